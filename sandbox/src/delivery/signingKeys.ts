import { createPrivateKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import {
	generateHookKeyPair,
	signDelivery,
	signStandardWebhooksV1a,
	type AsymmetricJwtKey,
} from '@messenger-bot-builder/receiver';
import type { Store } from '../store/store';

export type AsymmetricAlgorithm = AsymmetricJwtKey['alg'];

/** The account's key pair for ES256/EdDSA delivery JWTs, kept as JWK so it survives restarts. */
interface StoredSigningKey {
	kid: string;
	alg: AsymmetricAlgorithm;
	created: string;
	privateJwk: JsonWebKey;
	publicJwk: JsonWebKey;
}

/** A hook's own Ed25519 key pair for Standard Webhooks `v1a` signatures (`--signing v1a`). */
interface StoredHookKey {
	hookId: string;
	/** `whpk_<base64 of the 32-byte public key>`, as /hook/create returns it. */
	publicKey: string;
	privateJwk: JsonWebKey;
	created: string;
}

interface SigningKeysState {
	keys: StoredSigningKey[];
	/** Absent in data files written before `v1a` existed. */
	hookKeys?: StoredHookKey[];
}

function signingKeysState(store: Store): SigningKeysState {
	return store.document<SigningKeysState>('signingKeys', () => ({ keys: [] }));
}

function generateKeyPair(alg: AsymmetricAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
	return alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
}

/** The account's key for `alg`, generated (and saved) the first time it is needed. */
export function ensureSigningKey(store: Store, alg: AsymmetricAlgorithm, nowIso: string): StoredSigningKey {
	const state = signingKeysState(store);
	let key = state.keys.find((candidate) => candidate.alg === alg);
	if (!key) {
		const pair = generateKeyPair(alg);
		key = {
			kid: `${alg.toLowerCase()}_${randomBytes(8).toString('hex')}`,
			alg,
			created: nowIso,
			privateJwk: pair.privateKey.export({ format: 'jwk' }),
			publicJwk: pair.publicKey.export({ format: 'jwk' }),
		};
		state.keys.push(key);
	}
	return key;
}

/** The account key the configured signing needs (ES256 and EdDSA JWTs); HS256 and `v1a` use per-hook secrets and keys. */
export function ensureConfiguredSigningKey(store: Store, signing: string, nowIso: string): void {
	if (signing === 'ES256' || signing === 'EdDSA') ensureSigningKey(store, signing, nowIso);
}

/** What `signDelivery` needs to sign with the account's key for `alg`. */
export function jwtSigningKey(store: Store, alg: AsymmetricAlgorithm, nowIso: string): AsymmetricJwtKey {
	const key = ensureSigningKey(store, alg, nowIso);
	return { alg, kid: key.kid, privateKey: createPrivateKey({ key: key.privateJwk, format: 'jwk' }) };
}

/**
 * The public half of every key the account has had (a key used before a switch of algorithm
 * still verifies deliveries signed with it), as served at /.well-known/jwks.json.
 */
export function publicJwks(store: Store): { keys: JsonWebKey[] } {
	return {
		keys: signingKeysState(store).keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.alg, use: 'sig' })),
	};
}

/** Makes (and saves) the `v1a` key pair of a new hook; returns its public key `whpk_…`, the only part ever shown. */
export function createHookSigningKey(store: Store, hookId: string, nowIso: string): string {
	const state = signingKeysState(store);
	const pair = generateHookKeyPair();
	(state.hookKeys ??= []).push({
		hookId,
		publicKey: pair.publicKey,
		privateJwk: pair.privateKey.export({ format: 'jwk' }),
		created: nowIso,
	});
	return pair.publicKey;
}

/** Forgets a deleted hook's `v1a` key. */
export function forgetHookSigningKey(store: Store, hookId: string): void {
	const state = signingKeysState(store);
	if (!state.hookKeys?.some((key) => key.hookId === hookId)) return;
	state.hookKeys = state.hookKeys.filter((key) => key.hookId !== hookId);
}

/** True for a hook made under `--signing v1a`: it signs with its own key and its secret is never used. */
export function hookUsesOwnSigningKey(store: Store, hookId: string): boolean {
	return signingKeysState(store).hookKeys?.some((key) => key.hookId === hookId) ?? false;
}

function hookPrivateKey(store: Store, hookId: string): KeyObject | undefined {
	const stored = signingKeysState(store).hookKeys?.find((key) => key.hookId === hookId);
	return stored && createPrivateKey({ key: stored.privateJwk, format: 'jwk' });
}

export interface AttemptToSign {
	hookId: string;
	secret: string;
	eventId: string;
	body: string;
	attemptId: string;
	/** Unix seconds of the attempt. */
	timestamp: number;
	/** The account key of ES256/EdDSA JWTs, when the sandbox signs JWTs with one. */
	jwtKey?: AsymmetricJwtKey;
}

/**
 * The signature headers of one attempt. A hook made under `--signing v1a` has its own Ed25519 key: its deliveries
 * carry only the Standard Webhooks `v1a` signature (no JWT, no HMAC: the receiver holds no secret at all). Every other
 * hook gets the JWT and the `v1` HMAC.
 */
export function signAttempt(
	store: Store,
	attempt: AttemptToSign,
): Promise<Record<string, string>> | Record<string, string> {
	const v1aKey = hookPrivateKey(store, attempt.hookId);
	if (v1aKey)
		return signStandardWebhooksV1a({
			body: attempt.body,
			eventId: attempt.eventId,
			timestamp: attempt.timestamp,
			privateKey: v1aKey,
		});
	return signDelivery({
		body: attempt.body,
		eventId: attempt.eventId,
		hookId: attempt.hookId,
		secret: attempt.secret,
		attemptId: attempt.attemptId,
		timestamp: attempt.timestamp,
		jwtKey: attempt.jwtKey,
	});
}
