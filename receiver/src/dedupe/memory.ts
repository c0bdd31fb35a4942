import { IdTable, MAX_ID_TABLE_ENTRIES } from './idTable';
import { DEFAULT_DEDUPE_TTL_SECONDS, DONE, IN_PROGRESS, type BeginOutcome, type DedupeStore } from './store';

export interface MemoryDedupeStoreOptions {
	/** How long a done id is remembered, in seconds (default 24 h). */
	ttlSeconds?: number;
	/**
	 * Most done ids remembered at once; the oldest are forgotten first (default 100 000, at most 16 777 216). The store
	 * reserves about 90 bytes of address space per id when it is made; memory is committed as ids arrive.
	 */
	maxEntries?: number;
	/** Milliseconds clock, for tests. */
	now?: () => number;
}

export interface MemoryDedupeStore extends DedupeStore {
	begin(eventId: string, leaseMs: number): BeginOutcome;
	renew(eventId: string, token: string, leaseMs: number): boolean;
	complete(eventId: string, token: string): boolean;
	release(eventId: string, token: string): void;
	/** Done ids remembered. */
	readonly size: number;
	/** Leases held (events in progress). */
	readonly leased: number;
}

interface Lease {
	token: string;
	expiresAt: number;
}

/**
 * Bounded in-process store with expiry. Enough for one receiver process; use the Redis store when several
 * processes receive the same hook. It answers synchronously, so an `onReceipt` delivery is verified, leased and
 * answered in one turn. Done ids are kept as bytes in typed arrays (see {@link IdTable}), O(1) also when full;
 * leases (events whose listeners are running) in a map.
 */
export function memoryDedupeStore(options: MemoryDedupeStoreOptions = {}): MemoryDedupeStore {
	const ttlMs = (options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS) * 1000;
	const maxEntries = options.maxEntries ?? 100_000;
	if (!(ttlMs > 0)) throw new TypeError('ttlSeconds must be a positive number');
	if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_ID_TABLE_ENTRIES) {
		throw new TypeError(`maxEntries must be a positive integer of at most ${MAX_ID_TABLE_ENTRIES}`);
	}
	const now = options.now ?? Date.now;
	// One TTL for all: the oldest id is also the first to expire.
	const done = new IdTable(maxEntries);
	let leases = new Map<string, Lease>();
	let endedSinceRenewal = 0;
	// An entry deleted from a long-lived Map stays reachable from its table in the old generation until the next full
	// collection, so young collections promote it (see HeldList). So the Map is replaced by a new one when it empties
	// (under load, at every turn whose listeners finish at once) or, while leases stay held (listeners awaiting I/O),
	// by a copy once more than twice as many leases have ended since as it holds: O(1) per lease over time.
	const endLease = (eventId: string) => {
		leases.delete(eventId);
		endedSinceRenewal += 1;
		if (leases.size === 0) leases = new Map();
		else if (endedSinceRenewal > 2 * leases.size + 256) leases = new Map(leases);
		else return;
		endedSinceRenewal = 0;
	};
	let lastToken = 0;

	const held = (eventId: string, token: string) => {
		const lease = leases.get(eventId);
		return lease !== undefined && lease.token === token ? lease : undefined;
	};

	return {
		get size() {
			return done.size;
		},
		get leased() {
			return leases.size;
		},
		begin(eventId, leaseMs) {
			const at = now();
			while (done.oldestExpiry() <= at) done.forgetOldest();
			if (done.has(eventId)) return DONE;
			const lease = leases.get(eventId);
			if (lease !== undefined && lease.expiresAt > at) return IN_PROGRESS;
			const token = String((lastToken += 1));
			leases.set(eventId, { token, expiresAt: at + leaseMs });
			return { state: 'acquired', token };
		},
		renew(eventId, token, leaseMs) {
			const lease = held(eventId, token);
			if (lease === undefined) return false;
			lease.expiresAt = now() + leaseMs;
			return true;
		},
		complete(eventId, token) {
			const at = now();
			while (done.oldestExpiry() <= at) done.forgetOldest();
			if (done.has(eventId)) return false;
			const lease = leases.get(eventId);
			// Another delivery holds a live lease: this run's own lapsed (or was never this token's).
			if (lease !== undefined && lease.token !== token && lease.expiresAt > at) return false;
			endLease(eventId);
			done.addIfAbsent(eventId, at + ttlMs);
			return true;
		},
		release(eventId, token) {
			if (held(eventId, token)) endLease(eventId);
		},
	};
}
