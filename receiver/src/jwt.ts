import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { bodySha256 } from './digest';
import { verifyHs256Jwt, type Hs256Expectations } from './hs256';
import { DeliveryError } from './errors';
import type { ResolvedVerifyOptions } from './options';
import { SYMMETRIC_ALGORITHMS } from './options';

/** Claims of a verified delivery JWT that the rest of the verification needs. */
export interface VerifiedJwt {
  eventId: string;
  attemptId?: string;
  keyId?: string;
}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/**
 * Decoded protected headers by their base64url segment. A hook's deliveries all carry the same header, so decoding it
 * once saves a base64 decode and a JSON parse per delivery (jose decodes it again when it verifies). Bounded: an
 * attacker sending many different headers only makes it start over.
 */
const decodedHeaders = new Map<string, Readonly<ProtectedHeaderParameters>>();
const MAX_DECODED_HEADERS = 64;

function parseHeader(token: string): Readonly<ProtectedHeaderParameters> {
  if (!COMPACT_JWS.test(token)) throw new DeliveryError('malformed_signature', 'X-Signature is not a compact JWT');
  const segment = token.slice(0, token.indexOf('.'));
  let header = decodedHeaders.get(segment);
  if (header) return header;
  try {
    header = Object.freeze(decodeProtectedHeader(token));
  } catch {
    throw new DeliveryError('malformed_signature', 'X-Signature has an unreadable JWT header');
  }
  if (decodedHeaders.size >= MAX_DECODED_HEADERS) decodedHeaders.clear();
  decodedHeaders.set(segment, header);
  return header;
}

/** base64url alphabet value of each character code (the token already matched COMPACT_JWS). */
const BASE64URL_VALUE = new Map([...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].map((char, value) => [char, value]));

/**
 * base64url has several spellings of the same bytes (unused trailing bits); only the canonical one is accepted,
 * so that a delivery's signature cannot be altered and still pass. A segment of 4n+2 characters leaves 4 unused
 * bits in its last character, 4n+3 leaves 2, 4n+1 cannot be decoded at all.
 */
function assertCanonicalSignatureSegment(token: string): void {
  const length = token.length - token.lastIndexOf('.') - 1;
  const unusedBits = [0, -1, 4, 2][length % 4];
  const last = BASE64URL_VALUE.get(token[token.length - 1]) ?? 0;
  if (unusedBits === -1 || (unusedBits > 0 && (last & ((1 << unusedBits) - 1)) !== 0)) {
    throw new DeliveryError('malformed_signature', 'X-Signature has a non-canonical base64url signature');
  }
}

function claimError(error: InstanceType<typeof errors.JWTClaimValidationFailed>): DeliveryError {
  const { claim, reason } = error;
  if (reason === 'missing' || reason === 'invalid') {
    return new DeliveryError('invalid_claims', `JWT claim "${claim}" is ${reason === 'missing' ? 'missing' : 'not of the expected type'}`);
  }
  switch (claim) {
    case 'iat':
    case 'nbf':
      return new DeliveryError('not_yet_valid', `JWT "${claim}" lies in the future`);
    case 'aud':
      return new DeliveryError('audience_mismatch', 'JWT "aud" is not one of the configured audience (hook ids)');
    case 'iss':
      return new DeliveryError('issuer_mismatch', 'JWT "iss" is not the configured issuer');
    default:
      return new DeliveryError('invalid_claims', `JWT "${claim}" check failed`);
  }
}

/** Turns a jose verification failure into the delivery error vocabulary. */
export function toDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof errors.JWTExpired) return new DeliveryError('expired', 'JWT is expired');
  if (error instanceof errors.JWTClaimValidationFailed) return claimError(error);
  if (error instanceof errors.JOSEAlgNotAllowed) return new DeliveryError('algorithm_not_allowed', 'JWT "alg" is not allowed');
  if (error instanceof errors.JWSSignatureVerificationFailed) return new DeliveryError('invalid_signature', 'JWT signature does not verify');
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid || error instanceof errors.JOSENotSupported) {
    return new DeliveryError('malformed_signature', `X-Signature is not a valid JWT: ${error.message}`);
  }
  throw error;
}

async function resolvePublicKey(options: ResolvedVerifyOptions, header: ProtectedHeaderParameters & { alg: string }, token: string) {
  const [protectedSegment, payload, signature] = token.split('.');
  try {
    return await options.keySet!(header, { protected: protectedSegment, payload, signature });
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) {
      throw new DeliveryError('key_not_found', `No key in the key set matches kid "${String(header.kid)}" and alg ${header.alg}`);
    }
    if (error instanceof errors.JWKSMultipleMatchingKeys) {
      throw new DeliveryError('key_not_found', `Several keys in the key set match kid "${String(header.kid)}"`);
    }
    throw new DeliveryError('key_set_unavailable', 'The key set (JWKS) could not be fetched', { cause: error });
  }
}

const REQUIRED_CLAIMS = ['iat', 'exp', 'evt', 'body_sha256'];

/** What `jose` checks a token signed with a published key against (and the HS256 verifier's test oracle). */
export function joseVerifyOptions(options: ResolvedVerifyOptions) {
  return {
    algorithms: options.algorithms,
    audience: options.audience,
    issuer: options.issuer,
    typ: 'JWT',
    currentDate: new Date(options.now() * 1000),
    clockTolerance: options.clockSkewSeconds,
    maxTokenAge: options.toleranceSeconds,
    requiredClaims: REQUIRED_CLAIMS,
  };
}

/** The same checks as {@link joseVerifyOptions}, for the HS256 verifier. */
export function hs256Expectations(options: ResolvedVerifyOptions): Hs256Expectations {
  return {
    secrets: options.hmacSecrets,
    audience: options.audience,
    issuer: options.issuer,
    now: options.now(),
    clockSkewSeconds: options.clockSkewSeconds,
    toleranceSeconds: options.toleranceSeconds,
    requiredClaims: REQUIRED_CLAIMS,
  };
}

/** ES256/EdDSA: the key comes from the key set (maybe fetched), and `jose` verifies. */
async function verifyWithKeySet(token: string, header: Readonly<ProtectedHeaderParameters> & { alg: string }, options: ResolvedVerifyOptions) {
  try {
    const key = await resolvePublicKey(options, header, token);
    return (await jwtVerify(token, key, joseVerifyOptions(options))).payload;
  } catch (error) {
    throw toDeliveryError(error);
  }
}

/** The delivery's own claims: `evt` names the event, `body_sha256` binds the token to these exact bytes. */
function deliveryClaims(payload: JWTPayload, header: Readonly<ProtectedHeaderParameters>, rawBody: Buffer): VerifiedJwt {
  const { evt, body_sha256: bodyHash } = payload as JWTPayload & { evt?: unknown; body_sha256?: unknown };
  if (typeof evt !== 'string' || evt === '') throw new DeliveryError('invalid_claims', 'JWT claim "evt" must be the event id');
  if (typeof bodyHash !== 'string') throw new DeliveryError('invalid_claims', 'JWT claim "body_sha256" must be a base64url string');
  // Both sides are public (a signed claim, a hash of the body as received): no secret to hide from timing.
  if (bodySha256(rawBody) !== bodyHash) {
    throw new DeliveryError('body_hash_mismatch', 'JWT "body_sha256" does not match the SHA-256 of the raw body');
  }
  return { eventId: evt, attemptId: typeof payload.jti === 'string' ? payload.jti : undefined, keyId: typeof header.kid === 'string' ? header.kid : undefined };
}

/**
 * Verifies the JWT of `X-Signature` over the raw body: signature, times, audience, issuer and `body_sha256`.
 * HS256 is checked at once with the hook secrets; a token signed with a published key resolves once `jose` has it.
 */
export function verifyJwtSignature(token: string, rawBody: Buffer, options: ResolvedVerifyOptions): VerifiedJwt | Promise<VerifiedJwt> {
  const header = parseHeader(token);
  const alg = header.alg;
  if (typeof alg !== 'string' || !(options.algorithms as string[]).includes(alg)) {
    throw new DeliveryError('algorithm_not_allowed', `JWT "alg" ${JSON.stringify(alg ?? null)} is not allowed (allowed: ${options.algorithms.join(', ')})`);
  }
  assertCanonicalSignatureSegment(token);
  if ((SYMMETRIC_ALGORITHMS as readonly string[]).includes(alg)) {
    return deliveryClaims(verifyHs256Jwt(token, header, hs256Expectations(options)), header, rawBody);
  }
  return verifyWithKeySet(token, { ...header, alg }, options).then((payload) => deliveryClaims(payload, header, rawBody));
}
