import { randomBytes } from 'node:crypto';
import type { Store } from '../store/store';

export const SCOPE_AREAS = [
	'account',
	'bots',
	'subscribers',
	'messages',
	'chains',
	'broadcasts',
	'lists',
	'catalog',
	'crm',
	'stats',
	'log',
	'hooks',
	'keys',
] as const;

export const ALL_SCOPES: string[] = SCOPE_AREAS.flatMap((area) => [`${area}:read`, `${area}:write`]);

/** The key every account has: all scopes, every bot, never expires, cannot be revoked. */
export const ACCOUNT_KEY_ID = 'account';

export interface ApiKey {
	id: string;
	key: string;
	name: string;
	/** `*` for the account key: every scope. */
	scopes: string[];
	/** Bots this key may touch; empty means all. */
	bots: string[];
	created: string;
	/** Epoch ms; null never expires. */
	expiresAt: number | null;
	revoked: boolean;
	/**
	 * Id of the key that created this one. Absent for the account key and for keys stored before the sandbox
	 * recorded creators: those have no creator to outlive or to be revoked with.
	 */
	createdBy?: string;
}

interface KeysState {
	keys: ApiKey[];
}

export const newKeyValue = () => `mbb_${randomBytes(24).toString('base64url')}`;

export function keysState(store: Store): KeysState {
	return store.document<KeysState>('keys', () => ({ keys: [] }));
}

export function publicKey(key: ApiKey) {
	return {
		id: key.id,
		name: key.name,
		scopes: key.scopes,
		bots: key.bots,
		created: key.created,
		expires: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
		revoked: key.revoked,
	};
}

/** The account key: all scopes, no bot restriction, no expiry. Created once per store. */
export function ensureAccountKey(store: Store, fixedValue: string | undefined, nowIso: string): ApiKey {
	const state = keysState(store);
	let account = state.keys.find((key) => key.id === ACCOUNT_KEY_ID);
	if (!account) {
		account = {
			id: ACCOUNT_KEY_ID,
			key: fixedValue ?? newKeyValue(),
			name: 'Account key',
			scopes: ['*'],
			bots: [],
			created: nowIso,
			expiresAt: null,
			revoked: false,
		};
		state.keys.unshift(account);
	} else if (fixedValue && account.key !== fixedValue) {
		account.key = fixedValue;
	}
	return account;
}

export function hasScope(key: ApiKey, scope: string): boolean {
	return key.scopes.includes('*') || key.scopes.includes(scope);
}

/**
 * True when a key restricted to `keyBots` may manage an object bound to `objectBots` (a key, a hook):
 * an unrestricted key manages everything; a restricted one only what is bound to its bots alone.
 */
export function withinBots(objectBots: string[], keyBots: string[]): boolean {
	if (keyBots.length === 0) return true;
	return objectBots.length > 0 && objectBots.every((botid) => keyBots.includes(botid));
}

/** The keys `id` created, directly or through keys it created, in creation order. */
export function keysCreatedBy(keys: ApiKey[], id: string): ApiKey[] {
	const found: ApiKey[] = [];
	const creators = new Set([id]);
	// Keys are stored in creation order and a creator always exists before what it creates: one pass finds them all.
	for (const key of keys) {
		if (key.createdBy !== undefined && creators.has(key.createdBy)) {
			found.push(key);
			creators.add(key.id);
		}
	}
	return found;
}

/**
 * Whether `caller` may revoke `target`: the account key any key; any other key only itself and the keys it created,
 * directly or through them (a key never turns on its creator, its siblings or keys it did not make). A key stored
 * without a recorded creator (by an older sandbox) is revocable by itself and the account key only.
 */
export function mayRevoke(keys: ApiKey[], caller: ApiKey, target: ApiKey): boolean {
	if (caller.id === ACCOUNT_KEY_ID || target.id === caller.id) return true;
	return keysCreatedBy(keys, caller.id).some((key) => key.id === target.id);
}

/**
 * When a key made by `creator` expires: `wanted` (epoch ms, null: never), but never after its creator.
 * `limited` is true when the creator's expiry was taken instead of `wanted`.
 */
export function expiryWithin(creator: ApiKey, wanted: number | null): { expiresAt: number | null; limited: boolean } {
	if (creator.expiresAt === null) return { expiresAt: wanted, limited: false };
	if (wanted !== null && wanted <= creator.expiresAt) return { expiresAt: wanted, limited: false };
	return { expiresAt: creator.expiresAt, limited: true };
}

/**
 * Whose calls `reader` sees in the API log: every call (`all`) for a key not restricted to bots, else the ids of
 * the keys whose calls it sees: its own and those of the keys it created (directly or through them), whose
 * rights are within its own.
 */
export function logReadableKeyIds(keys: ApiKey[], reader: ApiKey): 'all' | Set<string> {
	if (reader.bots.length === 0) return 'all';
	return new Set([reader.id, ...keysCreatedBy(keys, reader.id).map((key) => key.id)]);
}
