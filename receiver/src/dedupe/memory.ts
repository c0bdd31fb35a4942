import { IdTable } from './idTable';
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
 * processes receive the same hook. Every operation is O(1), also when it is full and forgets an id per claim, and the
 * ids are kept as bytes in typed arrays, not as objects for the garbage collector (see {@link IdTable}).
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore & { claim(eventId: string): boolean; readonly size: number } {
  const ttlMs = (options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS) * 1000;
  const maxEntries = options.maxEntries ?? 100_000;
  if (!(ttlMs > 0)) throw new TypeError('ttlSeconds must be a positive number');
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  const now = options.now ?? Date.now;
  // One TTL for all: the oldest id is also the first to expire.
  const remembered = new IdTable(maxEntries);

  return {
    get size() {
      return remembered.size;
    },
    claim(eventId: string): boolean {
      const at = now();
      while (remembered.oldestExpiry() <= at) remembered.forgetOldest();
      return remembered.addIfAbsent(eventId, at + ttlMs);
    },
  };
}
