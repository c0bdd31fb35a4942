import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { decodeCanonicalBase64 } from './encoding';

/** Prefix of every hook signing secret. */
export const HOOK_SECRET_PREFIX = 'whsec_';

export const SYMMETRIC_ALGORITHMS = ['HS256'] as const;
export const ASYMMETRIC_ALGORITHMS = ['ES256', 'EdDSA'] as const;
export type AsymmetricAlgorithm = (typeof ASYMMETRIC_ALGORITHMS)[number];
export type JwtAlgorithm = (typeof SYMMETRIC_ALGORITHMS)[number] | AsymmetricAlgorithm;

/** What a verifier trusts. Several secrets may be held at once while a secret is being rotated. */
export interface VerificationKeys {
	/** Hook secrets `whsec_<base64>`: keys of HS256 JWTs and of Standard Webhooks signatures. */
	secrets?: string[];
	/** Public keys (a JWKS) for ES256 and EdDSA JWTs. When given, HS* JWTs are refused. */
	jwks?: { keys: JsonWebKey[] };
	/** The JWT algorithms accepted. Default: ES256 and EdDSA with a JWKS, else HS256 with secrets. */
	algorithms?: JwtAlgorithm[];
	/** Accepted hook ids: the JWT's `aud`, or the body's `hook` for Standard Webhooks. Not checked when absent. */
	audience?: string[];
	/** Required JWT `iss`; not checked when absent. */
	issuer?: string;
}

export interface PublicKey {
	jwk: JsonWebKey;
	key: KeyObject;
}

/** Keys decoded once, ready to verify. */
export interface PreparedKeys {
	hmacKeys: Buffer[];
	publicKeys: PublicKey[];
	algorithms: JwtAlgorithm[];
	audience?: string[];
	issuer?: string;
}

const isSymmetric = (alg: string) => (SYMMETRIC_ALGORITHMS as readonly string[]).includes(alg);

/** The key bytes of a hook secret; `parameter` names the setting in the error, never the secret itself. */
export function hookSecretBytes(secret: string, parameter = 'secret'): Buffer {
	const bytes =
		typeof secret === 'string' && secret.startsWith(HOOK_SECRET_PREFIX)
			? decodeCanonicalBase64(secret.slice(HOOK_SECRET_PREFIX.length))
			: undefined;
	if (!bytes || bytes.length < 16) {
		throw new TypeError(`${parameter} must be a hook secret of the form "whsec_<base64 of at least 16 bytes>"`);
	}
	return bytes;
}

function importPublicKey(jwk: JsonWebKey, index: number): PublicKey {
	const { kty, crv, x, y } = jwk;
	const supported = (kty === 'EC' && crv === 'P-256' && typeof y === 'string') || (kty === 'OKP' && crv === 'Ed25519');
	if (!supported || typeof x !== 'string') {
		throw new TypeError(`jwks.keys[${index}] must be an EC P-256 or an Ed25519 public key`);
	}
	const publicPart: JsonWebKey = kty === 'EC' ? { kty, crv, x, y } : { kty, crv, x };
	return { jwk, key: createPublicKey({ key: publicPart, format: 'jwk' }) };
}

function pinAlgorithms(keys: VerificationKeys, hasSecrets: boolean, hasPublicKeys: boolean): JwtAlgorithm[] {
	if (keys.algorithms === undefined) {
		return hasPublicKeys ? [...ASYMMETRIC_ALGORITHMS] : hasSecrets ? [...SYMMETRIC_ALGORITHMS] : [];
	}
	for (const alg of keys.algorithms) {
		if (!isSymmetric(alg) && !(ASYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) {
			throw new TypeError(`algorithms: "${String(alg)}" is not supported (HS256, ES256, EdDSA)`);
		}
		// A public key must never be usable as an HMAC secret (algorithm confusion).
		if (isSymmetric(alg) && hasPublicKeys) throw new TypeError(`algorithms: ${alg} cannot be allowed together with jwks`);
	}
	return [...keys.algorithms];
}

export function prepareKeys(keys: VerificationKeys): PreparedKeys {
	const hmacKeys = (keys.secrets ?? []).map((secret, index) => hookSecretBytes(secret, `secrets[${index}]`));
	const publicKeys = (keys.jwks?.keys ?? []).map(importPublicKey);
	return {
		hmacKeys,
		publicKeys,
		algorithms: pinAlgorithms(keys, hmacKeys.length > 0, publicKeys.length > 0),
		audience: keys.audience,
		issuer: keys.issuer,
	};
}

/** Key type and curve each asymmetric algorithm needs. */
const KEY_SHAPE: Record<AsymmetricAlgorithm, { kty: string; crv: string }> = {
	ES256: { kty: 'EC', crv: 'P-256' },
	EdDSA: { kty: 'OKP', crv: 'Ed25519' },
};

/**
 * The public keys that may have signed a JWT with this `alg` and `kid`: right type and curve, same
 * `kid` when the JWT names one, and not declared for another algorithm or use.
 */
export function candidateKeys(publicKeys: PublicKey[], alg: AsymmetricAlgorithm, kid: unknown): PublicKey[] {
	const shape = KEY_SHAPE[alg];
	return publicKeys.filter(({ jwk }) => {
		const ops = (jwk as { key_ops?: unknown }).key_ops;
		return (
			jwk.kty === shape.kty &&
			jwk.crv === shape.crv &&
			(typeof kid !== 'string' || jwk.kid === kid) &&
			(typeof jwk.alg !== 'string' || jwk.alg === alg) &&
			(typeof jwk.use !== 'string' || jwk.use === 'sig') &&
			(!Array.isArray(ops) || ops.includes('verify'))
		);
	});
}
