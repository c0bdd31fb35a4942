import { base64url, decodeLenientBase64 } from './bytes';
import { refuse } from './errors';
import {
	isThenable,
	settle,
	type DigestEncoding,
	type MaybePromise,
	type MessagePart,
	type PlatformCrypto,
	type PublicJwk,
	type PublicKeyAlgorithm,
	type Steps,
} from './platform';

/** Prefix of a hook signing secret (`/hook/create`). Optional when reading one, as in every Standard Webhooks library. */
export const HOOK_SECRET_PREFIX = 'whsec_';
/** Prefix of a hook's Ed25519 public key for Standard Webhooks `v1a` signatures. */
export const HOOK_PUBLIC_KEY_PREFIX = 'whpk_';
/** Fewer bytes than this is not a secret anyone generated on purpose (the service makes 32; the spec says 24 to 64). */
export const MIN_SECRET_BYTES = 16;

/**
 * The key bytes of a hook secret: standard base64 after an optional `whsec_`, padded or not; unused trailing bits are
 * ignored, as the Standard Webhooks libraries do. `parameter` names the option in the error; the secret never appears.
 */
export function decodeHookSecret(secret: string, parameter = 'secret'): Uint8Array {
	if (typeof secret !== 'string') throw new TypeError(`${parameter} must be a hook secret "whsec_<base64>"`);
	const encoded = secret.startsWith(HOOK_SECRET_PREFIX) ? secret.slice(HOOK_SECRET_PREFIX.length) : secret;
	const bytes = encoded === '' ? undefined : decodeLenientBase64(encoded);
	if (!bytes)
		throw new TypeError(`${parameter} must be a hook secret "whsec_<base64>" (the part after "whsec_" is not base64)`);
	if (bytes.length < MIN_SECRET_BYTES) {
		throw new TypeError(
			`${parameter} is too short: a hook secret carries at least ${MIN_SECRET_BYTES} bytes (32 are generated)`,
		);
	}
	return bytes;
}

/** A hook's `v1a` public key, `whpk_<base64 of the 32-byte Ed25519 key>`, as the JWK the platform imports. */
export function decodeHookPublicKey(publicKey: string, parameter = 'publicKey'): PublicJwk {
	const bytes =
		typeof publicKey === 'string' && publicKey.startsWith(HOOK_PUBLIC_KEY_PREFIX)
			? decodeLenientBase64(publicKey.slice(HOOK_PUBLIC_KEY_PREFIX.length))
			: undefined;
	if (!bytes || bytes.length !== 32)
		throw new TypeError(`${parameter} must be a hook public key "whpk_<base64 of 32 bytes>" (Ed25519)`);
	return { kty: 'OKP', crv: 'Ed25519', x: base64url(bytes) };
}

/** Key type and curve that each JWT algorithm needs. */
const KEY_SHAPE: Record<PublicKeyAlgorithm, { kty: string; crv: string }> = {
	ES256: { kty: 'EC', crv: 'P-256' },
	EdDSA: { kty: 'OKP', crv: 'Ed25519' },
};

/** Members of a private JWK: a key set for verifying holds public keys only. */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'];

/**
 * A key whose optional members are all well-formed for verifying: `kid`, `alg` a string, `use` "sig", `key_ops` a list
 * of distinct operations that a public key allows (only "verify" here), `ext` a boolean, no private member. A key that
 * is not is never used, as `jose` (and Web Crypto's import) refuse it.
 */
function usableForVerifying(jwk: PublicJwk, alg: PublicKeyAlgorithm): boolean {
	const member = jwk as unknown as Record<string, unknown>;
	const absentOr = (name: string, check: (value: unknown) => boolean) =>
		!(name in member) || member[name] === undefined || check(member[name]);
	return (
		absentOr('kid', (value) => typeof value === 'string') &&
		absentOr('alg', (value) => value === alg) &&
		absentOr('use', (value) => value === 'sig') &&
		absentOr('key_ops', (value) => Array.isArray(value) && value.length === 1 && value[0] === 'verify') &&
		absentOr('ext', (value) => typeof value === 'boolean') &&
		PRIVATE_MEMBERS.every((name) => !(name in member))
	);
}

/**
 * The keys of a key set that may have signed a JWT with this `alg` and `kid`: right type and curve, the same `kid`
 * when the JWT names one, well-formed and not declared for another algorithm or use (the selection `jose` makes). A
 * `kid` in the JWT that is not a string matches no key.
 */
export function candidateKeys(keys: readonly PublicJwk[], alg: PublicKeyAlgorithm, kid: unknown): PublicJwk[] {
	if (kid !== undefined && typeof kid !== 'string') return [];
	const shape = KEY_SHAPE[alg];
	return keys.filter(
		(jwk) =>
			jwk !== null &&
			typeof jwk === 'object' &&
			jwk.kty === shape.kty &&
			jwk.crv === shape.crv &&
			(kid === undefined || jwk.kid === kid) &&
			usableForVerifying(jwk, alg),
	);
}

/**
 * Where the public keys of ES256/EdDSA JWTs come from: a key set given inline, or one fetched and cached elsewhere
 * (the receiver lets `jose` fetch remote sets). `refresh` is asked once when no key matches (a key added since).
 */
export interface KeySetSource {
	keys(): MaybePromise<readonly PublicJwk[]>;
	refresh?(): MaybePromise<readonly PublicJwk[] | undefined>;
}

/** A key set given as JSON: `{ keys: [...] }`. */
export function localKeySet(jwks: { keys: readonly unknown[] }, parameter = 'jwks'): KeySetSource {
	if (jwks === null || typeof jwks !== 'object' || !Array.isArray(jwks.keys))
		throw new TypeError(`${parameter} must be a JSON Web Key Set: { keys: [...] }`);
	const keys = jwks.keys as readonly PublicJwk[];
	return { keys: () => keys };
}

/** Imports each key once per platform; keys are the objects of a key set (or decoded `whpk_` keys). */
export class KeyCache {
	readonly #publicKeys = new WeakMap<PublicJwk, MaybePromise<unknown>>();

	constructor(readonly platform: PlatformCrypto) {}

	*publicKey(jwk: PublicJwk, alg: PublicKeyAlgorithm): Steps<unknown> {
		let key = this.#publicKeys.get(jwk);
		if (key === undefined) {
			const { kty, crv, x, y } = jwk;
			try {
				key = this.platform.importPublicKey(kty === 'EC' ? { kty, crv, x, y } : { kty, crv, x }, alg);
			} catch (error) {
				refuse('key_not_found', `The ${alg} key "${String(jwk.kid ?? '')}" cannot be used`, { cause: error });
			}
			this.#publicKeys.set(jwk, key);
		}
		try {
			const imported = yield* settle(key);
			this.#publicKeys.set(jwk, imported);
			return imported;
		} catch (error) {
			this.#publicKeys.delete(jwk);
			return refuse('key_not_found', `The ${alg} key "${String(jwk.kid ?? '')}" cannot be used`, { cause: error });
		}
	}
}

/** A hook secret, imported for HMAC when first used. */
export class HmacSecret {
	#key: MaybePromise<unknown> | undefined;

	constructor(
		readonly bytes: Uint8Array,
		readonly platform: PlatformCrypto,
	) {}

	/** The MAC of the parts as text in `encoding`: at once when the key is imported synchronously (node:crypto). */
	mac(parts: readonly MessagePart[], encoding: DigestEncoding): MaybePromise<string> {
		const key = (this.#key ??= this.platform.importHmacKey(this.bytes));
		if (!isThenable(key)) return this.platform.hmacSha256(key, parts, encoding);
		return Promise.resolve(key).then((imported) => {
			this.#key = imported;
			return this.platform.hmacSha256(imported, parts, encoding);
		});
	}
}
