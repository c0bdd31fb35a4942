import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openStoreDatabase } from './fileFormat';
import type { RecordKey } from './schema';

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
	private readonly documents = new Map<string, LoadedDocument>();
	private readonly workingSets = new Map<string, unknown>();
	private readonly pending = new Map<string, Pending>();
	/** Records parsed and checked at open, handed to the first loader of their kind. */
	private preloaded: Map<string, [RecordKey, unknown][]>;
	private readonly reloadListeners: (() => void)[] = [];
	/** Set when this transaction deleted rows at once (`removeBelow`, `removeKind`): a rollback must re-read them. */
	private removedAtOnce = false;
	private depth = 0;
	private readonly statements: Record<string, StatementSync>;
	/** True when the file held no state at open (demo data is seeded then). */
	readonly fresh: boolean;

	constructor(dataFile?: string) {
		const opened = openStoreDatabase(dataFile);
		this.db = opened.db;
		this.fresh = opened.fresh;
		this.preloaded = opened.preloaded;
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
