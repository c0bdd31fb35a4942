/** What {@link DedupeStore.begin} found: the caller now holds the event's lease, or someone else does, or it is done. */
export type BeginOutcome = { state: 'acquired'; token: string } | { state: 'in_progress' } | { state: 'done' };

export const IN_PROGRESS: BeginOutcome = Object.freeze({ state: 'in_progress' });
export const DONE: BeginOutcome = Object.freeze({ state: 'done' });

/**
 * The processing state of event ids, shared by every receiver process that uses the same store. An event is
 * unknown, in progress (someone holds a lease on it, renewed while its listeners run) or done (its listeners
 * completed; remembered for the dedupe window). A lease that expires without completion (the process died, the
 * listeners failed) makes the event unknown again: its next delivery is processed, not answered as a duplicate.
 *
 * Each method may answer at once or with a promise; it throws (or rejects) when the store cannot answer, and the
 * receiver then answers 503 so that the sender retries.
 */
export interface DedupeStore {
	/** Takes a lease of `leaseMs` on `eventId` unless the event is done or leased by someone else. Atomic. */
	begin(eventId: string, leaseMs: number): BeginOutcome | Promise<BeginOutcome>;
	/** Extends the lease `token` holds; false when that lease is gone (expired, or taken over). */
	renew(eventId: string, token: string, leaseMs: number): boolean | Promise<boolean>;
	/**
	 * Records the event as done (for the dedupe window) and ends the lease, only if `token` still holds the lease, or
	 * nobody does (it lapsed and was not taken): atomic. Answers false, changing nothing, when another delivery holds
	 * the event's lease or has recorded it as done: this run overlapped another (its lease was lost). A store that
	 * answers nothing (`undefined`) is taken to have recorded it.
	 */
	complete(eventId: string, token: string): boolean | void | Promise<boolean | void>;
	/** Ends the lease `token` holds (only that one) without recording the event as done: its next delivery is processed again. */
	release(eventId: string, token: string): void | Promise<void>;
	/** Closes what the store opened itself (a connection made from a URL). */
	close?(): Promise<void>;
}

/** How long a done event id is remembered by default: longer than the sender's whole retry schedule. */
export const DEFAULT_DEDUPE_TTL_SECONDS = 24 * 60 * 60;

/** How long a lease lasts unless renewed; the receiver renews it every third of this while listeners run. */
export const DEFAULT_LEASE_MS = 30_000;

const STORE_METHODS = ['begin', 'renew', 'complete', 'release'] as const;

export function isDedupeStore(value: unknown): value is DedupeStore {
	return (
		typeof value === 'object' &&
		value !== null &&
		STORE_METHODS.every((method) => typeof (value as Record<string, unknown>)[method] === 'function')
	);
}
