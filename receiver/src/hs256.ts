import { isUtf8 } from 'node:buffer';
import { createHmac, type KeyObject } from 'node:crypto';
import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { signaturesEqual } from './digest';
import { DeliveryError } from './errors';

/** What an HS256 delivery JWT is checked against (the receiver's resolved options). */
export interface Hs256Expectations {
  secrets: readonly KeyObject[];
  /** Accepted `aud` values, if any. */
  audience?: readonly string[];
  issuer?: string;
  /** Unix seconds. */
  now: number;
  clockSkewSeconds: number;
  /** Maximum age of `iat`, in seconds. */
  toleranceSeconds: number;
  requiredClaims: readonly string[];
}

/**
 * Verifies an HS256 compact JWT with `node:crypto`, synchronously, by the same rules as `jose`'s `jwtVerify` with
 * `{ algorithms: ['HS256'], typ: 'JWT', audience, issuer, clockTolerance, maxTokenAge, requiredClaims }`, and no
 * more lenient anywhere: `test/hs256.test.ts` checks every token it accepts against `jose` itself. `jose` verifies
 * HMAC through WebCrypto, a job on libuv's thread pool per token, which costs about five times the CPU of this
 * path (receiver/README.md, Benchmark); `jose` still verifies every token signed with a published key.
 *
 * The caller has checked that `token` is a compact JWS with a canonical signature and that `header.alg` is HS256.
 * Returns the claims; throws a {@link DeliveryError}.
 */
export function verifyHs256Jwt(token: string, header: Readonly<ProtectedHeaderParameters>, expect: Hs256Expectations): JWTPayload {
  // jose refuses unknown critical extensions and JWTs with unencoded payloads (b64: false); deliveries use neither.
  if (header.crit !== undefined) throw new DeliveryError('malformed_signature', 'X-Signature has a "crit" header: no extension is supported');
  const signingInputEnd = token.lastIndexOf('.');
  const signature = token.slice(signingInputEnd + 1);
  const signingInput = token.slice(0, signingInputEnd);
  if (!expect.secrets.some((secret) => macMatches(secret, signingInput, signature))) {
    throw new DeliveryError('invalid_signature', 'JWT signature matches none of the configured secrets');
  }
  const claims = decodeClaims(signingInput.slice(signingInput.indexOf('.') + 1));
  checkType(header);
  checkClaims(claims, expect);
  return claims;
}

/** The signature segment (canonical base64url, checked by the caller) against the MAC, in constant time. */
function macMatches(secret: KeyObject, signingInput: string, signature: string): boolean {
  // The signing input is base64url and dots: ASCII, so latin1 gives the same bytes as UTF-8, faster.
  return signaturesEqual(signature, createHmac('sha256', secret).update(signingInput, 'latin1').digest('base64url'));
}

function decodeClaims(segment: string): JWTPayload {
  if (segment.length % 4 === 1) throw new DeliveryError('malformed_signature', 'X-Signature is not a valid JWT: its payload is not base64url');
  const bytes = Buffer.from(segment, 'base64url');
  let claims: unknown;
  try {
    if (!isUtf8(bytes)) throw new TypeError('not UTF-8');
    claims = JSON.parse(bytes.toString('utf8'));
  } catch {
    claims = undefined;
  }
  if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) {
    throw new DeliveryError('malformed_signature', 'X-Signature is not a valid JWT: its claims set must be a top-level JSON object');
  }
  return claims as JWTPayload;
}

/** `typ` compared as media types (`JWT`, `jwt` and `application/jwt` are the same), as jose does. */
function checkType(header: Readonly<ProtectedHeaderParameters>): void {
  const { typ } = header;
  if (typeof typ !== 'string' || (typ.includes('/') ? typ.toLowerCase() : `application/${typ.toLowerCase()}`) !== 'application/jwt') {
    throw new DeliveryError('invalid_claims', 'JWT "typ" header must be "JWT"');
  }
}

function numericClaim(claims: JWTPayload, name: 'iat' | 'nbf' | 'exp'): number | undefined {
  const value = claims[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number') throw new DeliveryError('invalid_claims', `JWT claim "${name}" is not of the expected type`);
  return value;
}

function checkClaims(claims: JWTPayload, expect: Hs256Expectations): void {
  // jose requires `iat` whenever a maximum age is set (always, here), `iss` and `aud` when they are configured.
  for (const claim of expect.requiredClaims) requireClaim(claims, claim);
  requireClaim(claims, 'iat');
  if (expect.issuer !== undefined) requireClaim(claims, 'iss');
  if (expect.audience !== undefined) requireClaim(claims, 'aud');
  if (expect.issuer !== undefined && claims.iss !== expect.issuer) {
    throw new DeliveryError('issuer_mismatch', 'JWT "iss" is not the configured issuer');
  }
  if (expect.audience !== undefined && !audienceMatches(claims.aud, expect.audience)) {
    throw new DeliveryError('audience_mismatch', 'JWT "aud" is not one of the configured audience (hook ids)');
  }
  // Whole seconds, as jose counts them.
  const now = Math.floor(expect.now);
  const skew = expect.clockSkewSeconds;
  const iat = numericClaim(claims, 'iat');
  const nbf = numericClaim(claims, 'nbf');
  if (nbf !== undefined && nbf > now + skew) throw new DeliveryError('not_yet_valid', 'JWT "nbf" lies in the future');
  const exp = numericClaim(claims, 'exp');
  if (exp !== undefined && exp <= now - skew) throw new DeliveryError('expired', 'JWT is expired');
  const age = now - iat!;
  if (age - skew > expect.toleranceSeconds) throw new DeliveryError('expired', 'JWT is expired');
  if (age < -skew) throw new DeliveryError('not_yet_valid', 'JWT "iat" lies in the future');
}

function requireClaim(claims: JWTPayload, claim: string): void {
  if (!Object.hasOwn(claims, claim)) throw new DeliveryError('invalid_claims', `JWT claim "${claim}" is missing`);
}

function audienceMatches(aud: unknown, accepted: readonly string[]): boolean {
  if (typeof aud === 'string') return accepted.includes(aud);
  return Array.isArray(aud) && accepted.some((value) => aud.includes(value));
}
