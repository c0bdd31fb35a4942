import { DatabaseSync } from 'node:sqlite';

/**
 * The sandbox's state: named slices, each owned by one domain module, held in memory and,
 * with a data file, saved to SQLite shortly after every change and on close.
 * A handler either throws before touching state or finishes its change, so a saved snapshot
 * never holds half a request.
 */
export class Store {
  private readonly slices = new Map<string, unknown>();
  private readonly db: DatabaseSync | undefined;
  private readonly saved: Map<string, unknown>;
  private saveTimer: NodeJS.Timeout | undefined;

  constructor(dataFile?: string) {
    this.saved = new Map();
    if (dataFile) {
      this.db = new DatabaseSync(dataFile);
      this.db.exec('CREATE TABLE IF NOT EXISTS slices (name TEXT PRIMARY KEY, json TEXT NOT NULL)');
      const rows = this.db.prepare('SELECT name, json FROM slices').all() as { name: string; json: string }[];
      for (const row of rows) this.saved.set(row.name, JSON.parse(row.json));
    }
  }

  /** True when a data file held saved state at start (then demo data is not seeded again). */
  get restored(): boolean {
    return this.saved.size > 0;
  }

  /** The slice `name`, restored from the data file or created by `initial`. */
  slice<T>(name: string, initial: () => T): T {
    let value = this.slices.get(name) as T | undefined;
    if (value === undefined) {
      value = (this.saved.get(name) as T | undefined) ?? initial();
      this.slices.set(name, value);
    }
    return value;
  }

  /** Marks state as changed: the data file is written within 100 ms. */
  changed(): void {
    if (!this.db || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.flush(), 100);
    this.saveTimer.unref();
  }

  flush(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.db) return;
    const upsert = this.db.prepare(
      'INSERT INTO slices (name, json) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET json = excluded.json',
    );
    this.db.exec('BEGIN');
    for (const [name, value] of this.slices) upsert.run(name, JSON.stringify(value));
    this.db.exec('COMMIT');
  }

  close(): void {
    this.flush();
    this.db?.close();
  }
}
