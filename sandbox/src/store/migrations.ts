import type { DatabaseSync } from 'node:sqlite';

/**
 * The schema of the data file, by version. Each step runs once, in a transaction, when a file of an
 * older version is opened; `PRAGMA user_version` records the version reached.
 *
 * - `documents`: small state kept whole (bots and chains, keys, hooks, counters, the clock offset).
 * - `records`: one row per entity, found by (kind, key) through its unique index; the rowid keeps
 *   insertion order, which an update (ON CONFLICT DO UPDATE) does not change.
 * - `snapshots`, `snapshot_documents`, `snapshot_records`: copies made by POST /sandbox/snapshot.
 */
export const MIGRATIONS: ((db: DatabaseSync) => void)[] = [
	// 0 -> 1
	(db) => {
		db.exec(`
      CREATE TABLE documents (name TEXT PRIMARY KEY, json TEXT NOT NULL);
      CREATE TABLE records (kind TEXT NOT NULL, key NOT NULL, json TEXT NOT NULL, UNIQUE (kind, key));
      CREATE TABLE snapshots (id INTEGER PRIMARY KEY AUTOINCREMENT, created TEXT NOT NULL);
      CREATE TABLE snapshot_documents (snapshot INTEGER NOT NULL, name TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (snapshot, name));
      CREATE TABLE snapshot_records (
        snapshot INTEGER NOT NULL, ord INTEGER NOT NULL, kind TEXT NOT NULL, key NOT NULL, json TEXT NOT NULL,
        PRIMARY KEY (snapshot, ord)
      );
    `);
	},
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** An entity of an old section: the fields the migration reads, and the rest it copies as they are. */
type Entity<Fields> = Fields & Record<string, unknown>;
type Numbered = Entity<{ id: number }>;

/** The old sections the migration reads into records, as LEGACY_SLICE_SHAPES checked them. */
interface LegacySections {
	lists: { nextId: number; lists: Entity<{ id: number; rows: Numbered[] }>[] };
	subscribers: { nextId: number; subscribers: Numbered[] };
	chats: { nextId: number; chats: Record<string, Numbered[]> };
	chainRuns: { runs: Entity<{ subscriber: number; chaincode: string }>[] };
	broadcasts: { broadcasts: Entity<{ code: string }>[] };
	catalog: { nextItemId: number; apps: unknown[]; links: unknown[]; items: Numbered[] };
	payments: { payments: unknown[] };
	apiLog: { nextId: number; entries: Numbered[] };
	stats: { days: Record<string, unknown> };
	idempotency: { entries: Record<string, unknown> };
	deliveries: { deliveries: Entity<{ id: string }>[] };
}

/**
 * Moves the state of a data file written before the SQLite store (one JSON section per domain in
 * table `slices`, already checked against LEGACY_SLICE_SHAPES) into documents and records, then drops
 * `slices`. Runs inside the migration's transaction.
 */
export function migrateSlices(db: DatabaseSync, slices: Map<string, unknown>): void {
	const putDocument = db.prepare('INSERT INTO documents (name, json) VALUES (?, ?)');
	const putRecord = db.prepare('INSERT INTO records (kind, key, json) VALUES (?, ?, ?)');
	const counters: Record<string, number> = {};
	const document = (name: string, value: unknown) => putDocument.run(name, JSON.stringify(value));
	const record = (kind: string, key: string | number, value: unknown) =>
		putRecord.run(kind, key, JSON.stringify(value));
	// The shapes were checked when the file was opened.
	const section = <Name extends keyof LegacySections>(name: Name) =>
		slices.get(name) as LegacySections[Name] | undefined;

	for (const name of ['directory', 'keys', 'hooks', 'signingKeys']) {
		if (slices.has(name)) document(name, slices.get(name));
	}
	const lists = section('lists');
	if (lists) {
		counters.lists = lists.nextId;
		for (const { rows, ...list } of lists.lists) {
			record('list', list.id, list);
			for (const row of rows) record(`row/${list.id}`, row.id, row);
		}
	}
	const subscribers = section('subscribers');
	if (subscribers) {
		counters.subscribers = subscribers.nextId;
		for (const card of subscribers.subscribers) record('subscriber', card.id, card);
	}
	const chats = section('chats');
	if (chats) {
		counters.chat = chats.nextId;
		const messages = Object.entries(chats.chats).flatMap(([subscriber, chat]) =>
			chat.map((message) => ({ ...message, subscriber: Number(subscriber) })),
		);
		for (const message of messages.sort((a, b) => a.id - b.id)) record('chat', message.id, message);
	}
	for (const run of section('chainRuns')?.runs ?? []) record('run', `${run.subscriber}/${run.chaincode}`, run);
	for (const broadcast of section('broadcasts')?.broadcasts ?? []) record('broadcast', broadcast.code, broadcast);
	const catalog = section('catalog');
	if (catalog) {
		counters.items = catalog.nextItemId;
		document('catalog', { apps: catalog.apps, links: catalog.links });
		for (const item of catalog.items) record('item', item.id, item);
	}
	const payments = section('payments')?.payments ?? [];
	payments.forEach((payment, index) => record('payment', index + 1, payment));
	counters.payments = payments.length + 1;
	const apiLog = section('apiLog');
	if (apiLog) {
		counters.log = apiLog.nextId;
		for (const entry of apiLog.entries) record('log', entry.id, entry);
	}
	for (const [day, counts] of Object.entries(section('stats')?.days ?? {})) record('statsDay', day, counts);
	for (const [slot, entry] of Object.entries(section('idempotency')?.entries ?? {})) record('idem', slot, entry);
	for (const delivery of section('deliveries')?.deliveries ?? []) record('delivery', delivery.id, delivery);
	document('counters', counters);
	db.exec('DROP TABLE slices');
}
