import { createHash, createHmac, verify as verifySignature } from 'node:crypto';
import { decodeCanonicalBase64Url, parseJsonObject, sameBytes } from './encoding';
import { candidateKeys, type AsymmetricAlgorithm, type PreparedKeys } from './keys';
import { reject } from './verdict';

/** Longest `X-Signature` accepted: a delivery JWT is a few hundred characters. */
export const MAX_JWT_LENGTH = 8192;

export interface JwtClock {
	/** Unix seconds. */
	now: number;
	/** Oldest accepted `iat`, in seconds before now. */
	maxAgeSeconds: number;
	/** Clock difference allowed with the sender on `exp`, `iat` and `nbf`, in seconds. */
	skewSeconds: number;
}

/** What the rest of the verification needs from a verified delivery JWT. */
export interface VerifiedJwt {
	eventId: string;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const REQUIRED_CLAIMS = ['iat', 'exp', 'evt', 'body_sha256'];

function decodeSegment(segment: string, what: string): Record<string, unknown> {
	const json = parseJsonObject(Buffer.from(segment, 'base64url'));
	if (!json) reject('malformed_signature', `X-Signature: the JWT ${what} is not a JSON object`);
	return json;
}

function checkHeader(header: Record<string, unknown>): void {
	// RFC 7515 §4.1.11: a critical extension the verifier does not implement makes the token invalid.
	if (header.crit !== undefined) reject('malformed_signature', 'X-Signature: the JWT has critical extensions (crit)');
	if (header.b64 !== undefined) reject('malformed_signature', 'X-Signature: unencoded JWT payloads (b64) are not accepted');
}

function checkSignature(alg: string, kid: unknown, signingInput: Buffer, signature: Buffer, keys: PreparedKeys): void {
	if (alg === 'HS256') {
		const matches = keys.hmacKeys.some((key) => sameBytes(createHmac('sha256', key).update(signingInput).digest(), signature));
		if (!matches) reject('invalid_signature', 'X-Signature: the JWT signature matches none of the hook secrets');
		return;
	}
	const candidates = candidateKeys(keys.publicKeys, alg as AsymmetricAlgorithm, kid);
	if (candidates.length !== 1) {
		reject('key_not_found', `X-Signature: ${candidates.length === 0 ? 'no' : 'more than one'} ${alg} key has kid "${String(kid)}"`);
	}
	const { key } = candidates[0];
	// JWS carries ES256 signatures as raw r||s (64 bytes), not DER.
	const valid =
		alg === 'ES256'
			? signature.length === 64 && verifySignature('sha256', signingInput, { key, dsaEncoding: 'ieee-p1363' }, signature)
			: verifySignature(null, signingInput, key, signature);
	if (!valid) reject('invalid_signature', 'X-Signature: the JWT signature does not verify with the public key');
}

const typOf = (value: unknown) => (typeof value === 'string' ? value.toLowerCase().replace(/^application\//, '') : undefined);

function checkClaims(header: Record<string, unknown>, claims: Record<string, unknown>, keys: PreparedKeys, clock: JwtClock): void {
	if (typOf(header.typ) !== 'jwt') reject('invalid_claims', 'X-Signature: the JWT header "typ" must be "JWT"');
	const required = [...REQUIRED_CLAIMS, ...(keys.issuer !== undefined ? ['iss'] : []), ...(keys.audience ? ['aud'] : [])];
	const missing = required.find((claim) => !(claim in claims));
	if (missing) reject('invalid_claims', `X-Signature: the JWT claim "${missing}" is missing`);
	if (keys.issuer !== undefined && claims.iss !== keys.issuer) reject('issuer_mismatch', 'X-Signature: the JWT "iss" is not the expected issuer');
	if (keys.audience) {
		const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
		if (!audiences.some((aud) => typeof aud === 'string' && keys.audience!.includes(aud))) {
			reject('audience_mismatch', 'X-Signature: the JWT is meant for another hook ("aud")');
		}
	}
	const { now, skewSeconds: skew, maxAgeSeconds } = clock;
	for (const claim of ['iat', 'nbf', 'exp']) {
		if (claims[claim] !== undefined && (typeof claims[claim] !== 'number' || !Number.isFinite(claims[claim]))) {
			reject('invalid_claims', `X-Signature: the JWT claim "${claim}" must be a number of seconds`);
		}
	}
	const iat = claims.iat as number;
	const exp = claims.exp as number;
	const nbf = claims.nbf as number | undefined;
	if (nbf !== undefined && nbf > now + skew) reject('not_yet_valid', 'X-Signature: the JWT is not valid yet ("nbf")');
	if (exp <= now - skew) reject('expired', 'X-Signature: the JWT has expired ("exp")');
	if (now - iat - skew > maxAgeSeconds) reject('expired', 'X-Signature: the JWT was issued too long ago ("iat")');
	if (iat > now + skew) reject('not_yet_valid', 'X-Signature: the JWT was issued in the future ("iat")');
	if (typeof claims.evt !== 'string' || claims.evt === '') reject('invalid_claims', 'X-Signature: the JWT claim "evt" must be the event id');
	if (typeof claims.body_sha256 !== 'string') reject('invalid_claims', 'X-Signature: the JWT claim "body_sha256" must be a string');
}

/**
 * Verifies the delivery JWT of `X-Signature` over the raw body: compact form, pinned algorithm
 * (checked before any key is touched), canonical signature, signature, then type, claims, times,
 * issuer, audience and `body_sha256`.
 */
export function verifyDeliveryJwt(token: string, rawBody: Buffer, keys: PreparedKeys, clock: JwtClock): VerifiedJwt {
	if (token.length > MAX_JWT_LENGTH || !COMPACT_JWS.test(token)) reject('malformed_signature', 'X-Signature is not a compact JWT');
	const [encodedHeader, encodedClaims, encodedSignature] = token.split('.');
	const header = decodeSegment(encodedHeader, 'header');
	const alg = header.alg;
	if (typeof alg !== 'string' || !(keys.algorithms as string[]).includes(alg)) {
		reject('algorithm_not_allowed', `X-Signature: the JWT algorithm ${JSON.stringify(alg ?? null)} is not allowed`);
	}
	const signature = decodeCanonicalBase64Url(encodedSignature);
	if (!signature) reject('malformed_signature', 'X-Signature: the JWT signature is not canonical base64url');
	checkHeader(header);
	checkSignature(alg, header.kid, Buffer.from(`${encodedHeader}.${encodedClaims}`, 'ascii'), signature, keys);
	const claims = decodeSegment(encodedClaims, 'claims');
	checkClaims(header, claims, keys, clock);
	const digest = createHash('sha256').update(rawBody).digest('base64url');
	if (!sameBytes(Buffer.from(digest), Buffer.from(claims.body_sha256 as string))) {
		reject('body_hash_mismatch', 'the body is not the one the JWT signed ("body_sha256")');
	}
	return { eventId: claims.evt as string };
}
