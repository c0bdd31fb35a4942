/**
 * Remembers accepted event ids so that each event is emitted once, even when the sender retries it or several
 * receiver processes share the store.
 */
export interface DedupeStore {
  /**
   * Atomically records `eventId`. Returns (or resolves) `true` when it was not recorded yet (the caller now owns the
   * event), `false` when it was (a duplicate). Throws (or rejects) when the store cannot answer. An in-process store
   * answers at once: the receiver then accepts the delivery without waiting a turn.
   */
  claim(eventId: string): boolean | Promise<boolean>;
}

/** How long an event id is remembered by default: longer than the sender's whole retry schedule. */
export const DEFAULT_DEDUPE_TTL_SECONDS = 24 * 60 * 60;
