import {
	decodeBase64urlCharactersText,
	decodeCanonicalBase64url,
	isCanonicalBase64url,
	textsEqual,
	utf8,
} from './bytes';
import { refuse } from './errors';
import { candidateKeys, type HmacSecret, type KeyCache, type KeySetSource } from './keys';
import { settle, type PublicJwk, type PublicKeyAlgorithm, type Steps } from './platform';
import { clockDiagnostic } from './standardWebhooks';

export const SYMMETRIC_ALGORITHMS = ['HS256'] as const;
export const ASYMMETRIC_ALGORITHMS = ['ES256', 'EdDSA'] as const;
export type DeliveryAlgorithm = (typeof SYMMETRIC_ALGORITHMS)[number] | (typeof ASYMMETRIC_ALGORITHMS)[number];

export const isSymmetricAlgorithm = (alg: string) => (SYMMETRIC_ALGORITHMS as readonly string[]).includes(alg);

/** Claims every delivery JWT must carry. */
export const REQUIRED_CLAIMS = ['iat', 'exp', 'evt', 'body_sha256'] as const;

export interface JwtKeys {
	algorithms: readonly DeliveryAlgorithm[];
	secrets: readonly HmacSecret[];
	keySet?: KeySetSource;
	keyCache: KeyCache;
	audience?: readonly string[];
	issuer?: string;
	/** Unix seconds; JWT times are compared in whole seconds, as `jose` does. */
	now: number;
	clockSkewSeconds: number;
	/** Oldest accepted `iat`, in seconds before now. */
	toleranceSeconds: number;
	/**
	 * What a developer should know when no key made the signature (see delivery.ts), if anything: a hint from an
	 * unverified request, given the `evt` its unverified claims name.
	 */
	mismatchDiagnostic?: (claimedEventId: unknown) => string | undefined;
}

export type JwtHeader = Record<string, unknown>;
export type JwtClaims = Record<string, unknown>;

/** What the rest of the verification needs from a verified delivery JWT. */
export interface VerifiedJwt {
	eventId: string;
	attemptId?: string;
	keyId?: string;
	claims: JwtClaims;
	/** `body_sha256`, checked by the caller against the body. */
	bodySha256: string;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** A JSON object from a canonical base64url segment of strict UTF-8 (of a token {@link COMPACT_JWS} took), or undefined. */
function decodeObject(segment: string): Record<string, unknown> | undefined {
	const text = decodeBase64urlCharactersText(segment);
	if (text === undefined) return undefined;
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return undefined;
	}
	return typeof value === 'object' && value !== null && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}

/**
 * Decoded protected headers by their base64url segment: a hook's deliveries all carry the same header, so it is
 * decoded once. Bounded: many different headers only make it start over.
 */
const decodedHeaders = new Map<string, Readonly<JwtHeader>>();
const MAX_DECODED_HEADERS = 64;

function decodeHeader(segment: string): Readonly<JwtHeader> | undefined {
	let header = decodedHeaders.get(segment);
	if (header) return header;
	const decoded = decodeObject(segment);
	if (!decoded) return undefined;
	header = Object.freeze(decoded);
	if (decodedHeaders.size >= MAX_DECODED_HEADERS) decodedHeaders.clear();
	decodedHeaders.set(segment, header);
	return header;
}

/**
 * Verifies the delivery JWT of `X-Signature`, by the rules of `jose`'s `jwtVerify` with `{ algorithms, typ: 'JWT',
 * audience, issuer, clockTolerance, maxTokenAge, requiredClaims }` and nowhere more lenient (receiver/test/hs256.test.ts
 * holds it against jose). Order: compact form, header, pinned `alg` (before any key is touched), canonical signature,
 * no extensions, signature, then type, claims and times. `body_sha256` is left to the caller.
 */
export function* verifyJwt(token: string, keys: JwtKeys): Steps<VerifiedJwt> {
	if (!COMPACT_JWS.test(token)) refuse('malformed_signature', 'X-Signature is not a compact JWT');
	const headerEnd = token.indexOf('.');
	const signingInputEnd = token.indexOf('.', headerEnd + 1);
	const headerSegment = token.slice(0, headerEnd);
	const header = decodeHeader(headerSegment);
	if (!header) refuse('malformed_signature', 'X-Signature has an unreadable JWT header');
	const alg = header.alg;
	if (typeof alg !== 'string' || !(keys.algorithms as readonly string[]).includes(alg)) {
		refuse(
			'algorithm_not_allowed',
			`JWT "alg" ${JSON.stringify(alg ?? null)} is not allowed (allowed: ${keys.algorithms.join(', ')})`,
		);
	}
	const signatureSegment = token.slice(signingInputEnd + 1);
	if (!isCanonicalBase64url(signatureSegment))
		refuse('malformed_signature', 'X-Signature has a non-canonical base64url signature');
	// No extension is implemented: a critical one makes the token invalid (RFC 7515 §4.1.11), and an unencoded payload
	// (RFC 7797 `b64: false`) is only valid when declared critical.
	if (header.crit !== undefined)
		refuse('malformed_signature', 'X-Signature has a "crit" header: no extension is supported');
	if (header.b64 === false) refuse('malformed_signature', 'X-Signature has "b64": false without "crit" (RFC 7797)');

	// The signing input is the token's own text up to the second dot: no copy, no encoding (the adapter hashes the text).
	const signingInput = token.slice(0, signingInputEnd);
	const mismatch = () => keys.mismatchDiagnostic?.(decodeObject(token.slice(headerEnd + 1, signingInputEnd))?.evt);
	if (isSymmetricAlgorithm(alg)) yield* checkMac(signingInput, signatureSegment, keys, mismatch);
	else
		yield* checkPublicKeySignature(
			alg as PublicKeyAlgorithm,
			header.kid,
			signingInput,
			signatureSegment,
			keys,
			mismatch,
		);

	const claims = decodeObject(token.slice(headerEnd + 1, signingInputEnd));
	if (!claims)
		refuse('malformed_signature', 'X-Signature is not a valid JWT: its claims set must be a top-level JSON object');
	checkType(header);
	checkClaims(claims, keys);
	const { evt, body_sha256: bodySha256, jti } = claims;
	if (typeof evt !== 'string' || evt === '') refuse('invalid_claims', 'JWT claim "evt" must be the event id');
	if (typeof bodySha256 !== 'string') refuse('invalid_claims', 'JWT claim "body_sha256" must be a base64url string');
	return {
		eventId: evt,
		attemptId: typeof jti === 'string' ? jti : undefined,
		keyId: typeof header.kid === 'string' ? header.kid : undefined,
		claims,
		bodySha256,
	};
}

/**
 * The signature segment (canonical, checked before) against the base64url of each secret's MAC, as text in constant
 * time: a canonical segment decodes to the MAC exactly when it is the MAC's one spelling, so nothing received is decoded.
 */
function* checkMac(
	signingInput: string,
	signatureSegment: string,
	keys: JwtKeys,
	mismatch: () => string | undefined,
): Steps<void> {
	for (const secret of keys.secrets) {
		if (textsEqual(signatureSegment, yield* settle(secret.mac([signingInput], 'base64url')))) return;
	}
	refuse('invalid_signature', 'JWT signature matches none of the configured secrets', {
		diagnostic: mismatch(),
		diagnosticUnverified: true,
	});
}

function* checkPublicKeySignature(
	alg: PublicKeyAlgorithm,
	kid: unknown,
	signingInput: string,
	signatureSegment: string,
	keys: JwtKeys,
	mismatch: () => string | undefined,
): Steps<void> {
	const jwk = yield* selectKey(alg, kid, keys.keySet);
	const key = yield* keys.keyCache.publicKey(jwk, alg);
	const signature = decodeCanonicalBase64url(signatureSegment)!;
	const valid =
		signature.length === 64 &&
		(yield* settle(keys.keyCache.platform.verifySignature(alg, key, utf8(signingInput), signature)));
	if (!valid)
		refuse('invalid_signature', 'JWT signature does not verify', {
			diagnostic: mismatch(),
			diagnosticUnverified: true,
		});
}

function* selectKey(alg: PublicKeyAlgorithm, kid: unknown, keySet: KeySetSource | undefined): Steps<PublicJwk> {
	if (!keySet) return refuse('key_not_found', `No key set is configured for ${alg}`);
	let candidates = candidateKeys(yield* readKeySet(() => keySet.keys()), alg, kid);
	if (candidates.length === 0 && keySet.refresh) {
		const refreshed = yield* readKeySet(() => keySet.refresh!());
		if (refreshed) candidates = candidateKeys(refreshed, alg, kid);
	}
	if (candidates.length === 0)
		refuse('key_not_found', `No key in the key set matches kid "${String(kid)}" and alg ${alg}`);
	if (candidates.length > 1) refuse('key_not_found', `Several keys in the key set match kid "${String(kid)}"`);
	return candidates[0];
}

function* readKeySet<T>(read: () => T | Promise<T>): Steps<T> {
	try {
		return yield* settle(read());
	} catch (error) {
		return refuse('key_set_unavailable', 'The key set (JWKS) could not be fetched', { cause: error });
	}
}

/** `typ` compared as media types (`JWT`, `jwt` and `application/jwt` are the same), as jose does. */
function checkType(header: Readonly<JwtHeader>): void {
	const { typ } = header;
	if (
		typeof typ !== 'string' ||
		(typ.includes('/') ? typ.toLowerCase() : `application/${typ.toLowerCase()}`) !== 'application/jwt'
	) {
		refuse('invalid_claims', 'JWT "typ" header must be "JWT"');
	}
}

function numericClaim(claims: JwtClaims, name: 'iat' | 'nbf' | 'exp'): number | undefined {
	const value = claims[name];
	if (value === undefined) return undefined;
	if (typeof value !== 'number') refuse('invalid_claims', `JWT claim "${name}" is not of the expected type`);
	return value;
}

function requireClaim(claims: JwtClaims, claim: string): void {
	if (!Object.hasOwn(claims, claim)) refuse('invalid_claims', `JWT claim "${claim}" is missing`);
}

function audienceMatches(aud: unknown, accepted: readonly string[]): boolean {
	if (typeof aud === 'string') return accepted.includes(aud);
	return Array.isArray(aud) && accepted.some((value) => aud.includes(value));
}

function checkClaims(claims: JwtClaims, keys: JwtKeys): void {
	for (const claim of REQUIRED_CLAIMS) requireClaim(claims, claim);
	if (keys.issuer !== undefined) requireClaim(claims, 'iss');
	if (keys.audience !== undefined) requireClaim(claims, 'aud');
	if (keys.issuer !== undefined && claims.iss !== keys.issuer)
		refuse('issuer_mismatch', 'JWT "iss" is not the configured issuer');
	if (keys.audience !== undefined && !audienceMatches(claims.aud, keys.audience)) {
		refuse('audience_mismatch', 'JWT "aud" is not one of the configured audience (hook ids)');
	}
	// Whole seconds, as jose counts them.
	const now = Math.floor(keys.now);
	const skew = keys.clockSkewSeconds;
	const iat = numericClaim(claims, 'iat')!;
	const nbf = numericClaim(claims, 'nbf');
	if (nbf !== undefined && nbf > now + skew) refuseEarly('nbf', nbf, now, skew);
	// In jose's order: a mistyped `exp` is found only after `nbf` is checked.
	const exp = numericClaim(claims, 'exp');
	if (exp !== undefined && exp <= now - skew) refuseLate(iat, now, keys.toleranceSeconds);
	const age = now - iat;
	if (age - skew > keys.toleranceSeconds) refuseLate(iat, now, keys.toleranceSeconds);
	if (age < -skew) refuseEarly('iat', iat, now, skew);
}

function refuseLate(iat: number, now: number, toleranceSeconds: number): never {
	return refuse('expired', 'JWT is expired', {
		clockDifferenceSeconds: iat - now,
		diagnostic: clockDiagnostic('The JWT\'s "iat"', iat - now, toleranceSeconds),
	});
}

/** The diagnostic names the claim that lies in the future. */
function refuseEarly(claim: 'iat' | 'nbf', at: number, now: number, skew: number): never {
	return refuse('not_yet_valid', `JWT "${claim}" lies in the future`, {
		clockDifferenceSeconds: at - now,
		diagnostic: clockDiagnostic(`The JWT's "${claim}"`, at - now, skew),
	});
}

/** base64url(SHA-256(raw body bytes)): the `body_sha256` claim of the delivery JWT. */
export function* bodySha256(body: Uint8Array, keyCache: KeyCache): Steps<string> {
	return yield* settle(keyCache.platform.sha256(body, 'base64url'));
}
