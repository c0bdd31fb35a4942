import type { Store } from '../store/store';

/** One call of an API method, as /log/get reports it. The key's value is never recorded. */
export interface ApiLogEntry {
	id: number;
	time: string;
	method: string;
	path: string;
	status: number;
	failed: boolean;
	code: string | null;
	keyId: string | null;
	durationMs: number;
}

/**
 * Two bounded buffers, oldest first, with ids from one sequence: calls made with a valid key, and calls
 * without one (no key, an unknown, expired or revoked key). Anyone can send the second kind, so they have a
 * buffer of their own: however many arrive, they cannot push out the entries of keyed calls.
 */
interface ApiLogState {
	keyed: ApiLogEntry[];
	unkeyed: ApiLogEntry[];
}

/** Entries of calls made with a valid key that are kept; older ones are dropped first. */
export const KEYED_LOG_CAPACITY = 10000;
/** Entries of calls without a valid key that are kept; older ones are dropped first. */
export const UNKEYED_LOG_CAPACITY = 1000;
/** Longer paths are stored cut to this many characters followed by `…` (method paths are far shorter). */
export const LOGGED_PATH_LENGTH = 256;

export const loggedPath = (path: string) =>
	path.length > LOGGED_PATH_LENGTH ? `${path.slice(0, LOGGED_PATH_LENGTH)}…` : path;

const isKeyed = (entry: ApiLogEntry) => entry.keyId !== null;

export function apiLogState(store: Store): ApiLogState {
	return store.working<ApiLogState>('apiLog', () => {
		const state: ApiLogState = { keyed: [], unkeyed: [] };
		for (const [, entry] of store.records<ApiLogEntry>('log')) {
			// Entries stored before paths were cut are cut in memory; the file keeps them until they are dropped.
			entry.path = loggedPath(entry.path);
			(isKeyed(entry) ? state.keyed : state.unkeyed).push(entry);
		}
		const highest = Math.max(state.keyed.at(-1)?.id ?? 0, state.unkeyed.at(-1)?.id ?? 0);
		store.reserveIds('log', highest);
		return state;
	});
}

export function recordCall(store: Store, entry: Omit<ApiLogEntry, 'id'>): void {
	store.transaction(() => {
		const state = apiLogState(store);
		const recorded = { id: store.nextId('log'), ...entry, path: loggedPath(entry.path) };
		const [buffer, capacity] = isKeyed(recorded)
			? [state.keyed, KEYED_LOG_CAPACITY]
			: [state.unkeyed, UNKEYED_LOG_CAPACITY];
		buffer.push(recorded);
		store.put('log', recorded.id, recorded);
		// Usually one entry; more only when a file written with other limits is opened.
		if (buffer.length > capacity) {
			for (const dropped of buffer.splice(0, buffer.length - capacity)) store.remove('log', dropped.id);
		}
	});
}

/** Every entry `visible` lets through, newest first. */
export function logEntriesNewestFirst(store: Store, visible: (entry: ApiLogEntry) => boolean): ApiLogEntry[] {
	const { keyed, unkeyed } = apiLogState(store);
	const merged: ApiLogEntry[] = [];
	let k = keyed.length - 1;
	let u = unkeyed.length - 1;
	while (k >= 0 || u >= 0) {
		const entry = u < 0 || (k >= 0 && keyed[k].id > unkeyed[u].id) ? keyed[k--] : unkeyed[u--];
		if (visible(entry)) merged.push(entry);
	}
	return merged;
}

/** Entries kept, of both buffers. */
export function apiLogEntryCount(store: Store): number {
	const { keyed, unkeyed } = apiLogState(store);
	return keyed.length + unkeyed.length;
}
