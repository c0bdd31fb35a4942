import { createHash } from 'node:crypto';
import { ApiError, invalidParam } from '../http/errors';
import type { Store } from '../store/store';
import { LIMITS } from '../openapi/limits';

/** How long a response is remembered under its Idempotency-Key (business time). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const MAX_KEY_LENGTH = LIMITS.idempotencyKey;
/** Expired entries are swept at most this often, so a busy caller does not pay a scan per request. */
const SWEEP_INTERVAL_MS = 60 * 1000;

interface RememberedResponse {
	fingerprint: string;
	response: unknown;
	expiresAt: number;
}

interface IdempotencyState {
	/** By `<method path> <API key id> <Idempotency-Key>`: a caller's keys never meet another API key's. */
	entries: Map<string, RememberedResponse>;
	sweptAt: number;
}

/** Remembered responses, kept as `idem` records so that a repeat after a restart is still recognised. */
export function idempotencyState(store: Store): IdempotencyState {
	return store.working<IdempotencyState>('idempotency', () => ({
		entries: new Map(store.records<RememberedResponse>('idem').map(([slot, entry]) => [String(slot), entry])),
		sweptAt: 0,
	}));
}

/** The Idempotency-Key header of a request, if any; 422 when it is blank or too long. */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string | undefined {
	const value = headers['idempotency-key'];
	if (value === undefined) return undefined;
	const key = Array.isArray(value) ? value[0] : value;
	if (key.trim() === '' || key.length > MAX_KEY_LENGTH) {
		throw invalidParam('Idempotency-Key', `must be a non-empty string of at most ${MAX_KEY_LENGTH} characters`);
	}
	return key;
}

/** SHA-256 of the request's parameters in a canonical JSON form (object keys sorted). */
export function fingerprintOf(request: unknown): string {
	return createHash('sha256').update(canonicalJson(request)).digest('hex');
}

function canonicalJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
	if (typeof value === 'object' && value !== null) {
		const entries = Object.entries(value)
			.filter(([, item]) => item !== undefined)
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
		return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item)}`).join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/**
 * Runs `perform` once per (method, API key, Idempotency-Key): a repeat with the same fingerprint within the TTL gets the
 * first response again and `perform` does not run; a repeat with another fingerprint is a 422
 * idempotency_mismatch. Only successful responses are remembered (a failed call may be retried).
 */
export function once<T>(
	store: Store,
	now: number,
	request: { method: string; apiKeyId: string; key: string | undefined; fingerprint: string },
	perform: () => T,
): T {
	if (request.key === undefined) return perform();
	const state = idempotencyState(store);
	sweep(store, state, now);
	const slot = `${request.method} ${request.apiKeyId} ${request.key}`;
	const remembered = state.entries.get(slot);
	if (remembered && remembered.expiresAt > now) {
		if (remembered.fingerprint !== request.fingerprint) {
			throw new ApiError(
				422,
				'idempotency_mismatch',
				'This Idempotency-Key was already used with a different request body',
				{ param: 'Idempotency-Key' },
			);
		}
		return remembered.response as T;
	}
	const response = perform();
	// A copy: the response may share arrays with live state that later edits change.
	const entry = {
		fingerprint: request.fingerprint,
		response: structuredClone(response),
		expiresAt: now + IDEMPOTENCY_TTL_MS,
	};
	state.entries.set(slot, entry);
	store.put('idem', slot, entry);
	return response;
}

function sweep(store: Store, state: IdempotencyState, now: number): void {
	if (now - state.sweptAt < SWEEP_INTERVAL_MS) return;
	state.sweptAt = now;
	for (const [slot, entry] of state.entries) {
		if (entry.expiresAt > now) continue;
		state.entries.delete(slot);
		store.remove('idem', slot);
	}
}
