import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { DOCUMENT_SHAPES, LEGACY_SLICE_SHAPES, recordShape, shapeProblem } from './storeSchema';
import { migrateSlices, MIGRATIONS, SCHEMA_VERSION } from './storeMigrations';

export type RecordKey = string | number;

/** `PRAGMA application_id` of sandbox data files ("MBBS"): a file without it is not ours. */
const APPLICATION_ID = 0x4d424253;
const SQLITE_HEADER = 'SQLite format 3\0';

/** A data file the sandbox refuses to open; the message is one line naming the file and what to do. */
export class DataFileError extends Error {
	constructor(
		file: string,
		readonly problem: string,
		advice = 'pass another --data file, or move this one away to start afresh',
	) {
		super(`${file} ${problem.replace(/\s+/g, ' ')}; ${advice}. Nothing was written to it.`);
		this.name = 'DataFileError';
	}
}

interface Pending {
	kind: string;
	key: RecordKey;
	/** `reinsert`: removed, then written again in the same transaction (it moves to the end of its kind's order). */
	op: 'put' | 'remove' | 'reinsert';
	value?: unknown;
}

interface LoadedDocument {
	value: unknown;
	/** The JSON in the file; undefined while the document was never written. */
	saved: string | undefined;
	/** The JSON `initial` made, for a document not in the file. */
	made?: string;
}

/**
 * The sandbox's state in SQLite (WAL), the system of record, with an in-memory working set.
 *
 * Domain modules keep their state in memory (`working`, `document`) and write through: every change
 * names what it changed (`put`, `remove`, ...), and `transaction` commits those writes before the
 * caller answers. A request is one transaction: it commits whole or not at all. Ids come from
 * `nextId`, whose counters are committed with the records that use them, so an id is never handed
 * out twice, across restarts included.
 */
export class Store {
	private readonly db: DatabaseSync;
	private readonly file: string | undefined;
	private readonly documents = new Map<string, LoadedDocument>();
	private readonly workingSets = new Map<string, unknown>();
	private readonly pending = new Map<string, Pending>();
	/** Records parsed and checked at open, handed to the first loader of their kind. */
	private preloaded = new Map<string, [RecordKey, unknown][]>();
	private readonly reloadListeners: (() => void)[] = [];
	/** Set when this transaction deleted rows at once (`removeBelow`, `removeKind`): a rollback must re-read them. */
	private removedAtOnce = false;
	private depth = 0;
	private readonly statements: Record<string, StatementSync>;
	/** True when the file held no state at open (demo data is seeded then). */
	readonly fresh: boolean;
	/** Set once `checkContents` ran (a migration runs it before its commit). */
	private checked = false;

	constructor(dataFile?: string) {
		this.file = dataFile;
		this.db = dataFile === undefined ? new DatabaseSync(':memory:') : openDataFile(dataFile);
		try {
			this.fresh = this.prepareSchema();
			// Checked before anything else is written (journal mode, lock).
			if (!this.fresh && !this.checked) this.checkContents();
			this.db.exec('PRAGMA query_only = OFF');
			// One process per file: two sandboxes on one file would each write from their own working set.
			// EXCLUSIVE holds the lock from the first write on (a second sandbox is refused at its start).
			if (dataFile !== undefined) this.db.exec('PRAGMA locking_mode = EXCLUSIVE');
			this.db.exec('PRAGMA journal_mode = WAL');
			if (dataFile !== undefined) this.db.exec('BEGIN IMMEDIATE; COMMIT');
			// NORMAL: a commit is in the WAL before the answer, so it survives the process being killed.
			this.db.exec('PRAGMA synchronous = NORMAL');
		} catch (error) {
			this.db.close();
			if (error instanceof DataFileError || dataFile === undefined) throw error;
			throw new DataFileError(
				dataFile,
				`is damaged (${(error as Error).message})`,
				'restore it from a copy, or pass another --data file',
			);
		}
		this.statements = {
			putDocument: this.db.prepare(
				'INSERT INTO documents (name, json) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET json = excluded.json',
			),
			getDocument: this.db.prepare('SELECT json FROM documents WHERE name = ?'),
			put: this.db.prepare(
				'INSERT INTO records (kind, key, json) VALUES (?, ?, ?) ON CONFLICT (kind, key) DO UPDATE SET json = excluded.json',
			),
			remove: this.db.prepare('DELETE FROM records WHERE kind = ? AND key = ?'),
			removeBelow: this.db.prepare('DELETE FROM records WHERE kind = ? AND key < ?'),
			removeKind: this.db.prepare('DELETE FROM records WHERE kind = ?'),
			recordsOf: this.db.prepare('SELECT key, json FROM records WHERE kind = ? ORDER BY rowid'),
		};
	}

	/** Creates or upgrades the schema; returns true when the file holds no state yet. */
	private prepareSchema(): boolean {
		const db = this.db;
		const applicationId = pragma(db, 'application_id');
		const version = pragma(db, 'user_version');
		const objects = db.prepare('SELECT type, name, tbl_name AS tableName FROM sqlite_master').all() as {
			type: string;
			name: string;
			tableName: string;
		}[];
		const file = this.file ?? ':memory:';
		let legacy: Map<string, unknown> | undefined;
		if (applicationId === APPLICATION_ID) {
			if (version > SCHEMA_VERSION) {
				throw new DataFileError(
					file,
					`was written by a newer sandbox (data schema ${version}; this one reads up to ${SCHEMA_VERSION})`,
					'start the newer sandbox, or pass another --data file',
				);
			}
		} else if (applicationId !== 0) {
			throw new DataFileError(file, `is an SQLite database of another application (application id ${applicationId})`);
		} else if (
			version === 0 &&
			objects.length > 0 &&
			objects.every(
				(object) =>
					object.tableName === 'slices' && (object.type === 'table' || object.name.startsWith('sqlite_autoindex_')),
			)
		) {
			legacy = readLegacySlices(db, file);
		} else if (version !== 0 || objects.length > 0) {
			// Not ours and not empty: anything in it (a view, a user_version alone) is another application's.
			throw new DataFileError(
				file,
				`is an SQLite database of another application (${describeForeign(objects, version)})`,
			);
		}
		if (legacy === undefined && version === SCHEMA_VERSION && applicationId === APPLICATION_ID) {
			return (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n === 0;
		}
		db.exec('PRAGMA query_only = OFF');
		db.exec('BEGIN IMMEDIATE');
		try {
			for (let step = applicationId === APPLICATION_ID ? version : 0; step < SCHEMA_VERSION; step++)
				MIGRATIONS[step](db);
			if (legacy) migrateSlices(db, legacy);
			// What a migration wrote is checked before it is committed: a refused file stays as it was.
			try {
				this.checkContents();
			} catch (error) {
				if (legacy && error instanceof DataFileError)
					throw new DataFileError(
						file,
						`is damaged: its old sections do not convert (${error.problem.replace(/^is damaged: /, '')})`,
					);
				throw error;
			}
			db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
			db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
			db.exec('COMMIT');
		} catch (error) {
			db.exec('ROLLBACK');
			throw error;
		}
		if (legacy) return legacy.size === 0;
		return (db.prepare('SELECT count(*) AS n FROM documents').get() as { n: number }).n === 0;
	}

	/** Parses and checks every document and record once, so a damaged file is refused at start. */
	private checkContents(): void {
		const file = this.file ?? ':memory:';
		for (const row of this.db.prepare('SELECT name, json FROM documents').all() as { name: string; json: string }[]) {
			const shape = DOCUMENT_SHAPES[row.name];
			if (!shape) throw new DataFileError(file, `is damaged: it holds an unknown document "${row.name}"`);
			const problem = shapeProblem(parseSection(file, `document "${row.name}"`, row.json), shape, '');
			if (problem) throw new DataFileError(file, `is damaged: document "${row.name}" has the wrong shape (${problem})`);
		}
		const preloaded = new Map<string, [RecordKey, unknown][]>();
		for (const row of this.db.prepare('SELECT kind, key, json FROM records ORDER BY rowid').iterate() as Iterable<{
			kind: string;
			key: RecordKey;
			json: string;
		}>) {
			const shape = recordShape(row.kind);
			if (!shape) throw new DataFileError(file, `is damaged: it holds records of an unknown kind "${row.kind}"`);
			const where = `record ${row.kind} ${row.key}`;
			const value = parseSection(file, where, row.json);
			const problem = shapeProblem(value, shape, '');
			if (problem) throw new DataFileError(file, `is damaged: ${where} has the wrong shape (${problem})`);
			let list = preloaded.get(row.kind);
			if (!list) preloaded.set(row.kind, (list = []));
			list.push([row.key, value]);
		}
		this.preloaded = preloaded;
		this.checked = true;
	}

	/**
	 * A small document, kept whole: read from the file once, written back at commit when its JSON changed.
	 * `initial` makes it when the file has none.
	 */
	document<T>(name: string, initial: () => T): T {
		let loaded = this.documents.get(name);
		if (!loaded) {
			const row = this.statements.getDocument.get(name) as { json: string } | undefined;
			if (row) loaded = { value: JSON.parse(row.json), saved: row.json };
			else {
				const value = initial();
				loaded = { value, saved: undefined, made: JSON.stringify(value) };
			}
			this.documents.set(name, loaded);
		}
		return loaded.value as T;
	}

	/** A domain's in-memory working set, built by `load` from the records on first use and after a reload. */
	working<T>(name: string, load: () => T): T {
		let value = this.workingSets.get(name) as T | undefined;
		if (value === undefined) {
			value = load();
			this.workingSets.set(name, value);
		}
		return value;
	}

	/** The records of a kind in the order they were first written. For loaders of working sets. */
	records<T>(kind: string): [RecordKey, T][] {
		const preloaded = this.preloaded.get(kind);
		if (preloaded) {
			this.preloaded.delete(kind);
			return preloaded as [RecordKey, T][];
		}
		return (this.statements.recordsOf.all(kind) as { key: RecordKey; json: string }[]).map((row) => [
			row.key,
			JSON.parse(row.json) as T,
		]);
	}

	/** Writes `value` as the record (kind, key) at commit; later changes to the object before the commit are included. */
	put(kind: string, key: RecordKey, value: unknown): void {
		const slot = this.slotOf(kind, key);
		const earlier = this.pending.get(slot);
		const op = earlier && (earlier.op === 'remove' || earlier.op === 'reinsert') ? 'reinsert' : 'put';
		this.pending.set(slot, { kind, key, op, value });
	}

	remove(kind: string, key: RecordKey): void {
		this.pending.set(this.slotOf(kind, key), { kind, key, op: 'remove' });
	}

	/** Removes the records of `kind` whose numeric key is below `key` (a list's oldest rows). */
	removeBelow(kind: string, key: number): void {
		this.inTransaction();
		for (const [slot, write] of this.pending)
			if (write.kind === kind && typeof write.key === 'number' && write.key < key) this.pending.delete(slot);
		this.statements.removeBelow.run(kind, key);
		this.removedAtOnce = true;
	}

	/** Removes every record of `kind`. */
	removeKind(kind: string): void {
		this.inTransaction();
		for (const [slot, write] of this.pending) if (write.kind === kind) this.pending.delete(slot);
		this.statements.removeKind.run(kind);
		this.removedAtOnce = true;
	}

	/** The next id of a sequence; committed with the transaction that uses it. `atLeast` lifts the counter. */
	nextId(sequence: string, atLeast = 1): number {
		const counters = this.document<Record<string, number>>('counters', () => ({}));
		const next = Math.max(Object.hasOwn(counters, sequence) ? counters[sequence] : 1, atLeast);
		counters[sequence] = next + 1;
		return next;
	}

	/** Lifts a sequence so that it hands out nothing at or below `used` (loaders call it with the highest id found). */
	reserveIds(sequence: string, used: number): void {
		const counters = this.document<Record<string, number>>('counters', () => ({}));
		const next = Object.hasOwn(counters, sequence) ? counters[sequence] : 1;
		if (next <= used) counters[sequence] = used + 1;
	}

	/**
	 * Runs `work` as one transaction: its writes are committed when it returns, rolled back when it
	 * throws. Nested calls join the outer transaction. `work` must be synchronous.
	 */
	transaction<T>(work: () => T): T {
		if (this.depth > 0) return work();
		this.depth = 1;
		this.db.exec('BEGIN IMMEDIATE');
		try {
			const result = work();
			if (result && typeof (result as { then?: unknown }).then === 'function')
				throw new Error('Store.transaction needs synchronous work');
			this.flush();
			this.db.exec('COMMIT');
			return result;
		} catch (error) {
			this.rollback();
			throw error;
		} finally {
			this.depth = 0;
			this.removedAtOnce = false;
		}
	}

	private flush(): void {
		const { put, remove } = this.statements;
		for (const write of this.pending.values()) {
			if (write.op !== 'put') remove.run(write.kind, write.key);
			if (write.op !== 'remove') put.run(write.kind, write.key, JSON.stringify(write.value));
		}
		this.pending.clear();
		for (const [name, loaded] of this.documents) {
			const json = JSON.stringify(loaded.value);
			if (json !== loaded.saved) {
				this.statements.putDocument.run(name, json);
				loaded.saved = json;
			}
		}
	}

	/** Undoes the transaction; when memory had already changed, the working set is read again from the file. */
	private rollback(): void {
		this.db.exec('ROLLBACK');
		// A document made by its `initial` (read before it was ever written, e.g. outside a transaction) is unchanged
		// while it still is what `initial` made.
		const changed =
			this.removedAtOnce ||
			this.pending.size > 0 ||
			[...this.documents.values()].some((loaded) => JSON.stringify(loaded.value) !== (loaded.saved ?? loaded.made));
		this.pending.clear();
		if (changed) this.reload();
	}

	private inTransaction(): void {
		if (this.depth === 0) throw new Error('Store writes need a transaction');
	}

	private slotOf(kind: string, key: RecordKey): string {
		this.inTransaction();
		return `${kind}\u0000${typeof key}\u0000${key}`;
	}

	/** Called after the working set was dropped (reset, restore, a rolled-back change): holders of state objects re-read them. */
	onReload(listener: () => void): void {
		this.reloadListeners.push(listener);
	}

	/** Drops the working set: every domain reads its state again from the database on next use. */
	reload(): void {
		this.documents.clear();
		this.workingSets.clear();
		this.preloaded.clear();
		for (const listener of this.reloadListeners) listener();
	}

	/** Deletes all state (snapshots are kept); `refill` writes the new state in the same transaction. */
	clear(refill: () => void): void {
		this.transaction(() => {
			this.pending.clear();
			this.db.exec('DELETE FROM records; DELETE FROM documents;');
			this.documents.clear();
			this.workingSets.clear();
			refill();
			// Written now: the reload below drops what is in memory, also when this joins an outer transaction.
			this.flush();
		});
		this.reload();
	}

	/** Copies the whole state; returns the snapshot's id. */
	snapshot(created: string): number {
		return this.transaction(() => {
			this.flush();
			const { lastInsertRowid } = this.db.prepare('INSERT INTO snapshots (created) VALUES (?)').run(created);
			const id = Number(lastInsertRowid);
			this.db
				.prepare('INSERT INTO snapshot_documents (snapshot, name, json) SELECT ?, name, json FROM documents')
				.run(id);
			this.db
				.prepare(
					'INSERT INTO snapshot_records (snapshot, ord, kind, key, json) SELECT ?, rowid, kind, key, json FROM records',
				)
				.run(id);
			return id;
		});
	}

	/** Replaces the whole state by a snapshot's; false when there is no such snapshot. */
	restore(id: number): boolean {
		const found = this.transaction(() => {
			if (!this.db.prepare('SELECT 1 FROM snapshots WHERE id = ?').get(id)) return false;
			this.pending.clear();
			this.db.exec('DELETE FROM records; DELETE FROM documents;');
			this.db
				.prepare('INSERT INTO documents (name, json) SELECT name, json FROM snapshot_documents WHERE snapshot = ?')
				.run(id);
			this.db
				.prepare(
					'INSERT INTO records (rowid, kind, key, json) SELECT ord, kind, key, json FROM snapshot_records WHERE snapshot = ? ORDER BY ord',
				)
				.run(id);
			this.documents.clear();
			this.workingSets.clear();
			return true;
		});
		if (found) this.reload();
		return found;
	}

	close(): void {
		if (this.db.isOpen) this.db.close();
	}
}

function pragma(db: DatabaseSync, name: string): number {
	return Number(Object.values(db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown>)[0]);
}

/** What a foreign file holds, for its refusal: `tables: users; views: v; user_version 42`. */
function describeForeign(objects: { type: string; name: string }[], version: number): string {
	const parts: string[] = [];
	for (const type of ['table', 'view', 'index', 'trigger']) {
		const names = objects
			.filter((object) => object.type === type && !object.name.startsWith('sqlite_'))
			.map((object) => object.name);
		if (names.length > 0) parts.push(`${type === 'index' ? 'indexes' : `${type}s`}: ${names.slice(0, 5).join(', ')}`);
	}
	if (parts.length === 0 && version === 0)
		parts.push(
			`objects: ${objects
				.slice(0, 5)
				.map((object) => object.name)
				.join(', ')}`,
		);
	if (version !== 0) parts.push(`user_version ${version}`);
	return parts.join('; ');
}

function parseSection(file: string, where: string, json: string): unknown {
	try {
		return JSON.parse(json);
	} catch {
		throw new DataFileError(file, `is damaged: ${where} is not valid JSON (truncated?)`);
	}
}

/**
 * Opens a data file for inspection without writing to it: garbage is refused before SQLite sees it,
 * and the connection is read-only (query_only) until the file is known to be the sandbox's.
 */
function openDataFile(file: string): DatabaseSync {
	let size = 0;
	try {
		size = statSync(file).size;
	} catch {
		// A new file.
	}
	if (size > 0) {
		const header = Buffer.alloc(SQLITE_HEADER.length);
		let descriptor: number | undefined;
		try {
			descriptor = openSync(file, 'r');
			readSync(descriptor, header, 0, header.length, 0);
		} catch (error) {
			throw new DataFileError(
				file,
				`cannot be read (${(error as Error).message})`,
				'check its permissions or pass another --data file',
			);
		} finally {
			if (descriptor !== undefined) closeSync(descriptor);
		}
		if (header.toString('latin1') !== SQLITE_HEADER)
			throw new DataFileError(file, 'is not a sandbox data file (not an SQLite database)');
	}
	let db: DatabaseSync;
	try {
		db = new DatabaseSync(file);
	} catch (error) {
		throw new DataFileError(
			file,
			`cannot be opened (${(error as Error).message})`,
			'check the path and its permissions, or pass another --data file',
		);
	}
	try {
		db.exec('PRAGMA query_only = ON');
		if (size > 0) {
			const problems = (db.prepare('PRAGMA quick_check(3)').all() as Record<string, string>[]).map(
				(row) => Object.values(row)[0],
			);
			if (problems.length !== 1 || problems[0] !== 'ok')
				throw new DataFileError(
					file,
					`is damaged (SQLite: ${problems.join('; ')})`,
					'restore it from a copy, or pass another --data file',
				);
		}
		return db;
	} catch (error) {
		db.close();
		if (error instanceof DataFileError) throw error;
		if (/locked|busy/i.test((error as Error).message)) {
			throw new DataFileError(
				file,
				'is in use by another running sandbox (or another program)',
				'stop that one first, or pass another --data file',
			);
		}
		throw new DataFileError(
			file,
			`is damaged (SQLite: ${(error as Error).message})`,
			'restore it from a copy, or pass another --data file',
		);
	}
}

/** The sections of a data file from before the SQLite store, each parsed and checked. */
function readLegacySlices(db: DatabaseSync, file: string): Map<string, unknown> {
	const columns = (db.prepare('PRAGMA table_info(slices)').all() as { name: string }[])
		.map((column) => column.name)
		.sort();
	if (columns.join(',') !== 'json,name')
		throw new DataFileError(file, 'is an SQLite database of another application (table slices of another shape)');
	const slices = new Map<string, unknown>();
	for (const row of db.prepare('SELECT name, json FROM slices').all() as { name: unknown; json: unknown }[]) {
		const name = String(row.name);
		const shape = LEGACY_SLICE_SHAPES[name];
		if (!shape) throw new DataFileError(file, `is damaged: it holds an unknown section "${name}"`);
		if (typeof row.json !== 'string') throw new DataFileError(file, `is damaged: section "${name}" is not text`);
		const value = parseSection(file, `section "${name}"`, row.json);
		const problem =
			shapeProblem(value, shape, name) ?? (name === 'chats' ? chatKeyProblem(value as { chats: object }) : undefined);
		if (problem) throw new DataFileError(file, `is damaged: section "${name}" has the wrong shape (${problem})`);
		slices.set(name, value);
	}
	return slices;
}

/** The old `chats` section is keyed by subscriber number; the migration turns each key into a number. */
function chatKeyProblem(section: { chats: object }): string | undefined {
	const key = Object.keys(section.chats).find((candidate) => !/^[1-9][0-9]{0,14}$/.test(candidate));
	return key === undefined ? undefined : `chats.chats.${key} is not a subscriber number`;
}
