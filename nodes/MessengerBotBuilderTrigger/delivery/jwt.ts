import { createHmac, verify as verifySignature } from 'node:crypto';
import { decodeBase64Url, parseJsonObject, sameBytes } from './encoding';
import type { PublicKey } from './keys';
import { reject } from './verdict';

/** Longest `X-Signature` accepted: a delivery JWT is a few hundred characters. */
export const MAX_JWT_LENGTH = 4096;

export interface JwtKeys {
	/** HS256 key bytes of the hook secrets; empty when HS256 is not allowed. */
	hmacKeys: Buffer[];
	/** ES256/EdDSA public keys; when present, HS* is never allowed. */
	publicKeys: PublicKey[];
}

export interface JwtChecks {
	/** Unix seconds. */
	now: number;
	/** Clock skew allowed on `exp`, `iat` and `nbf`, in seconds. */
	toleranceSeconds: number;
	audience?: string;
	issuer?: string;
}

export interface VerifiedJwt {
	header: Record<string, unknown>;
	claims: Record<string, unknown>;
}

function decodeJson(part: string, what: string): Record<string, unknown> {
	const bytes = decodeBase64Url(part);
	const json = bytes && parseJsonObject(bytes);
	if (!json) reject('malformed_signature', `X-Signature: the JWT ${what} is not base64url JSON`);
	return json;
}

/** The algorithms this verifier accepts with its keys: HS256 with secrets only, never `none`. */
function allowedAlgorithms(keys: JwtKeys): Set<string> {
	if (keys.publicKeys.length > 0) return new Set(keys.publicKeys.map((key) => key.alg));
	return new Set(keys.hmacKeys.length > 0 ? ['HS256'] : []);
}

function checkSignature(alg: string, kid: unknown, signingInput: Buffer, signature: Buffer, keys: JwtKeys): void {
	if (alg === 'HS256') {
		const matches = keys.hmacKeys.some((key) =>
			sameBytes(createHmac('sha256', key).update(signingInput).digest(), signature),
		);
		if (!matches) reject('invalid_signature', 'X-Signature: the JWT signature does not match any hook secret');
		return;
	}
	const candidates = keys.publicKeys.filter(
		(key) => key.alg === alg && (kid === undefined || key.kid === kid),
	);
	if (candidates.length === 0) reject('key_not_found', `X-Signature: no ${alg} public key with kid "${String(kid)}"`);
	// ES256 signatures in a JWT are raw r||s (64 bytes), not DER.
	if (alg === 'ES256' && signature.length !== 64) reject('invalid_signature', 'X-Signature: an ES256 signature is 64 bytes');
	const matches = candidates.some((candidate) =>
		alg === 'ES256'
			? verifySignature('sha256', signingInput, { key: candidate.key, dsaEncoding: 'ieee-p1363' }, signature)
			: verifySignature(null, signingInput, candidate.key, signature),
	);
	if (!matches) reject('invalid_signature', 'X-Signature: the JWT signature does not match the public key');
}

function numericClaim(claims: Record<string, unknown>, name: string, required: boolean): number | undefined {
	const value = claims[name];
	if (value === undefined && !required) return undefined;
	if (typeof value !== 'number' || !Number.isFinite(value)) {
		reject('invalid_claims', `X-Signature: the JWT claim "${name}" must be a number of seconds`);
	}
	return value;
}

function checkTimes(claims: Record<string, unknown>, checks: JwtChecks): void {
	const { now, toleranceSeconds: skew } = checks;
	const exp = numericClaim(claims, 'exp', true)!;
	const iat = numericClaim(claims, 'iat', true)!;
	const nbf = numericClaim(claims, 'nbf', false);
	if (now > exp + skew) reject('expired', 'X-Signature: the JWT has expired');
	if (iat > now + skew) reject('not_yet_valid', 'X-Signature: the JWT was issued in the future');
	if (nbf !== undefined && nbf > now + skew) reject('not_yet_valid', 'X-Signature: the JWT is not valid yet (nbf)');
}

function checkAudienceAndIssuer(claims: Record<string, unknown>, checks: JwtChecks): void {
	if (checks.audience !== undefined) {
		const aud = claims.aud;
		const audiences = Array.isArray(aud) ? aud : [aud];
		if (!audiences.includes(checks.audience)) reject('audience_mismatch', 'X-Signature: the JWT is meant for another hook (aud)');
	}
	if (checks.issuer !== undefined && claims.iss !== checks.issuer) {
		reject('issuer_mismatch', 'X-Signature: the JWT has another issuer (iss)');
	}
}

/**
 * Verifies a compact JWS: structure, pinned algorithm, signature, then times, audience and issuer.
 * What the claims say about the body is checked by the caller.
 */
export function verifyJwt(token: string, keys: JwtKeys, checks: JwtChecks): VerifiedJwt {
	if (token.length > MAX_JWT_LENGTH) reject('malformed_signature', 'X-Signature: the JWT is too long');
	const parts = token.split('.');
	if (parts.length !== 3) reject('malformed_signature', 'X-Signature: not a compact JWT (three dot-separated parts)');
	const [encodedHeader, encodedClaims, encodedSignature] = parts;
	const header = decodeJson(encodedHeader, 'header');
	const alg = header.alg;
	if (typeof alg !== 'string' || !allowedAlgorithms(keys).has(alg)) {
		reject('algorithm_not_allowed', `X-Signature: the JWT algorithm "${String(alg)}" is not allowed`);
	}
	// A critical extension we do not implement must make the token invalid (RFC 7515 §4.1.11).
	if (header.crit !== undefined) reject('invalid_claims', 'X-Signature: the JWT has critical extensions (crit)');
	if (header.typ !== undefined && (typeof header.typ !== 'string' || header.typ.toUpperCase() !== 'JWT')) {
		reject('invalid_claims', 'X-Signature: the JWT type (typ) must be "JWT"');
	}
	const signature = decodeBase64Url(encodedSignature);
	if (!signature || signature.length === 0) reject('malformed_signature', 'X-Signature: the JWT signature is not base64url');
	checkSignature(alg, header.kid, Buffer.from(`${encodedHeader}.${encodedClaims}`, 'ascii'), signature, keys);
	const claims = decodeJson(encodedClaims, 'claims');
	checkTimes(claims, checks);
	checkAudienceAndIssuer(claims, checks);
	return { header, claims };
}
