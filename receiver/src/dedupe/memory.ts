import { DEFAULT_DEDUPE_TTL_SECONDS, type DedupeStore } from './store';

export interface MemoryDedupeStoreOptions {
  /** How long an id is remembered, in seconds (default 24 h). */
  ttlSeconds?: number;
  /** Most ids remembered at once; the oldest are forgotten first (default 100 000). */
  maxEntries?: number;
  /** Milliseconds clock, for tests. */
  now?: () => number;
}

/**
 * Bounded in-process store with expiry. Enough for one receiver process; use the Redis store when several
 * processes receive the same hook. Every operation is O(1), also when it is full and forgets an id per claim.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore & { claim(eventId: string): boolean; readonly size: number } {
  const ttlMs = (options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS) * 1000;
  const maxEntries = options.maxEntries ?? 100_000;
  if (!(ttlMs > 0)) throw new TypeError('ttlSeconds must be a positive number');
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  const now = options.now ?? Date.now;
  const remembered = new Set<string>();
  // The remembered ids oldest first, with their expiry times; one TTL for all, so claim order is expiry order.
  // (A Map's insertion order would do, but finding its oldest live key walks over every id deleted before it.)
  const queue = new ClaimQueue();

  const forgetOldest = () => remembered.delete(queue.shift());

  return {
    get size() {
      return remembered.size;
    },
    claim(eventId: string): boolean {
      const at = now();
      while (queue.length > 0 && queue.oldestExpiry() <= at) forgetOldest();
      if (remembered.has(eventId)) return false;
      remembered.add(eventId);
      queue.push(eventId, at + ttlMs);
      if (remembered.size > maxEntries) forgetOldest();
      return true;
    },
  };
}

/** A first-in first-out queue of ids and expiry times, in arrays that are compacted once half of them is consumed. */
class ClaimQueue {
  #ids: string[] = [];
  #expiries: number[] = [];
  #head = 0;

  get length(): number {
    return this.#ids.length - this.#head;
  }

  oldestExpiry(): number {
    return this.#expiries[this.#head];
  }

  push(id: string, expiresAt: number): void {
    this.#ids.push(id);
    this.#expiries.push(expiresAt);
  }

  shift(): string {
    const id = this.#ids[this.#head];
    this.#head += 1;
    if (this.#head >= 1024 && this.#head * 2 >= this.#ids.length) {
      this.#ids = this.#ids.slice(this.#head);
      this.#expiries = this.#expiries.slice(this.#head);
      this.#head = 0;
    }
    return id;
  }
}
