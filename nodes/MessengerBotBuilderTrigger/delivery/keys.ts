import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { decodeBase64 } from './encoding';

/** Prefix of every hook signing secret. */
export const HOOK_SECRET_PREFIX = 'whsec_';

/** What a verifier trusts. Several secrets may be held at once while a secret is being rotated. */
export interface VerificationKeys {
	/** Hook secrets `whsec_<base64>`: keys of HS256 JWTs and of Standard Webhooks signatures. */
	secrets?: string[];
	/** Public keys (JWK with `kid`) for ES256 and EdDSA JWTs. When given, HS* JWTs are refused. */
	publicKeys?: JsonWebKey[];
	/** Expected `aud` of the JWT (the hook id); not checked when absent. */
	audience?: string;
	/** Expected `iss` of the JWT; not checked when absent. */
	issuer?: string;
}

/** The key bytes of a hook secret; `parameter` names the setting in the error, never the secret itself. */
export function hookSecretBytes(secret: string, parameter = 'secret'): Buffer {
	const bytes =
		typeof secret === 'string' && secret.startsWith(HOOK_SECRET_PREFIX)
			? decodeBase64(secret.slice(HOOK_SECRET_PREFIX.length))
			: undefined;
	if (!bytes || bytes.length < 16) {
		throw new TypeError(`${parameter} must be a hook secret of the form "whsec_<base64 of at least 16 bytes>"`);
	}
	return bytes;
}

export type AsymmetricAlgorithm = 'ES256' | 'EdDSA';

export interface PublicKey {
	kid?: string;
	alg: AsymmetricAlgorithm;
	key: KeyObject;
}

/** Which JWT algorithm a JWK can verify, from its key type and curve (its own `alg`, if any, must agree). */
function algorithmOf(jwk: JsonWebKey): AsymmetricAlgorithm | undefined {
	const fromType =
		jwk.kty === 'EC' && jwk.crv === 'P-256' ? 'ES256' : jwk.kty === 'OKP' && jwk.crv === 'Ed25519' ? 'EdDSA' : undefined;
	if (fromType && jwk.alg !== undefined && jwk.alg !== fromType) return undefined;
	return fromType;
}

/** The usable public keys; a private part, if present, is ignored. */
export function importPublicKeys(jwks: JsonWebKey[] = []): PublicKey[] {
	return jwks.map((jwk, index) => {
		const alg = algorithmOf(jwk);
		if (!alg) throw new TypeError(`publicKeys[${index}] must be an EC P-256 (ES256) or Ed25519 (EdDSA) public JWK`);
		const { kty, crv, x, y } = jwk;
		const publicPart: JsonWebKey = y === undefined ? { kty, crv, x } : { kty, crv, x, y };
		const key = createPublicKey({ key: publicPart, format: 'jwk' });
		return { kid: typeof jwk.kid === 'string' ? jwk.kid : undefined, alg, key };
	});
}
