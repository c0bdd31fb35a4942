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
 * processes receive the same hook.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): DedupeStore & { readonly size: number } {
  const ttlMs = (options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS) * 1000;
  const maxEntries = options.maxEntries ?? 100_000;
  if (!(ttlMs > 0)) throw new TypeError('ttlSeconds must be a positive number');
  if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new TypeError('maxEntries must be a positive integer');
  const now = options.now ?? Date.now;
  // Insertion order is expiry order (one TTL for all), so expired ids are always at the front.
  const expiries = new Map<string, number>();
  // No id expires before this time: claims before it skip the expiry scan. A lower bound, not always exact (an id
  // forgotten for room leaves it as it was).
  let earliestExpiry = Infinity;

  const evictExpired = (at: number) => {
    if (at < earliestExpiry) return;
    for (const [id, expiresAt] of expiries) {
      if (expiresAt > at) {
        earliestExpiry = expiresAt;
        return;
      }
      expiries.delete(id);
    }
    earliestExpiry = Infinity;
  };

  return {
    get size() {
      return expiries.size;
    },
    async claim(eventId) {
      const at = now();
      evictExpired(at);
      if (expiries.has(eventId)) return false;
      const expiresAt = at + ttlMs;
      expiries.set(eventId, expiresAt);
      if (expiresAt < earliestExpiry) earliestExpiry = expiresAt;
      if (expiries.size > maxEntries) expiries.delete(expiries.keys().next().value!);
      return true;
    },
  };
}
