import type { z } from 'zod';
import { DeliveryError } from './errors';
import { deliveryEnvelopeSchema, eventSchemas, isKnownEventType, type DeliveryEvent } from './events';
import { readHeaders, type HeaderReader, type HeaderSource } from './headers';
import { verifyJwtSignature, type VerifiedJwt } from './jwt';
import { resolveClock, resolveVerifyOptions, type Clock, type ResolvedVerifyOptions, type SignatureScheme, type VerifyOptions } from './options';
import { verifyStandardWebhooksSignature } from './standardWebhooks';

/** The raw request body exactly as received. */
export type RawBody = string | Uint8Array;

/** A verified delivery and how it was verified. */
export interface VerifiedDelivery {
  event: DeliveryEvent;
  scheme: SignatureScheme;
  /** JWT `jti`: the id of this delivery attempt (JWT scheme only). */
  attemptId?: string;
  /** JWT `kid` (JWT scheme only). */
  keyId?: string;
}

export interface DeliveryVerifier {
  /** Verifies a delivery; rejects with a {@link DeliveryError} saying what failed. */
  verify(rawBody: RawBody, headers: HeaderSource, at?: { now?: Clock }): Promise<VerifiedDelivery>;
  readonly maxBodyBytes: number;
}

function toBuffer(rawBody: RawBody): Buffer {
  if (typeof rawBody === 'string') return Buffer.from(rawBody, 'utf8');
  if (Buffer.isBuffer(rawBody)) return rawBody;
  if (rawBody instanceof Uint8Array) return Buffer.from(rawBody.buffer, rawBody.byteOffset, rawBody.byteLength);
  throw new TypeError('rawBody must be the raw request body as a string or bytes (not a parsed object)');
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('; ');
}

interface SignatureCheck {
  scheme: SignatureScheme;
  eventId: string;
  attemptId?: string;
  keyId?: string;
}

/** A value now, or later when it needs I/O or WebCrypto. */
export type MaybePromise<T> = T | Promise<T>;

/** Checks the signature headers: HMAC signatures at once, a JWT signed with a published key once its key set is read. */
function verifySignature(body: Buffer, headers: HeaderReader, options: ResolvedVerifyOptions): MaybePromise<SignatureCheck> {
  const token = headers.get('x-signature');
  if (token !== undefined && token !== '' && options.jwtEnabled) {
    const jwt = verifyJwtSignature(token, body, options);
    return jwt instanceof Promise ? jwt.then(jwtCheck) : jwtCheck(jwt);
  }
  const signatures = headers.getAll('webhook-signature').filter((value) => value !== '');
  if (signatures.length > 0 && options.standardWebhooksEnabled) {
    const id = headers.get('webhook-id');
    const timestamp = headers.get('webhook-timestamp');
    if (!id || !timestamp) {
      throw new DeliveryError('missing_signature', `webhook-signature needs webhook-id and webhook-timestamp (missing: ${!id ? 'webhook-id' : 'webhook-timestamp'})`);
    }
    const eventId = verifyStandardWebhooksSignature({ id, timestamp, signatures }, body, options);
    return { scheme: 'standard-webhooks', eventId };
  }
  const accepted = [options.jwtEnabled && 'X-Signature', options.standardWebhooksEnabled && 'webhook-id/webhook-timestamp/webhook-signature'];
  throw new DeliveryError('missing_signature', `No signature: expected ${accepted.filter(Boolean).join(' or ')}`);
}

function jwtCheck(jwt: VerifiedJwt): SignatureCheck {
  return { scheme: 'jwt', eventId: jwt.eventId, attemptId: jwt.attemptId, keyId: jwt.keyId };
}

/** Parses the signed body and checks it against the signature's event id, the audience and the event schemas. */
function parseEvent(body: Buffer, signature: SignatureCheck, options: ResolvedVerifyOptions): DeliveryEvent {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new DeliveryError('malformed_json', 'The body is not valid JSON');
  }
  // A known kind is checked by its own schema (which includes the envelope) in one pass; others by the envelope.
  const type = (json as { type?: unknown } | null)?.type;
  const known = typeof type === 'string' && isKnownEventType(type);
  const parsed = known ? eventSchemas[type].safeParse(json) : deliveryEnvelopeSchema.safeParse(json);
  if (!parsed.success) {
    throw new DeliveryError('invalid_payload', `${known ? `Invalid ${type} event` : 'The body is not an event'}: ${describeIssues(parsed.error)}`);
  }
  const event = parsed.data;
  if (event.id !== signature.eventId) {
    throw new DeliveryError('event_id_mismatch', `The signed event id differs from the body's id "${event.id}"`);
  }
  if (signature.scheme === 'standard-webhooks' && options.audience && !options.audience.includes(event.hook)) {
    throw new DeliveryError('audience_mismatch', `The body's hook "${event.hook}" is not one of the configured audience`);
  }
  return event;
}

function verifiedDelivery(body: Buffer, signature: SignatureCheck, options: ResolvedVerifyOptions): VerifiedDelivery {
  const event = parseEvent(body, signature, options);
  return { event, scheme: signature.scheme, attemptId: signature.attemptId, keyId: signature.keyId };
}

/**
 * Verifies a delivery and returns it at once when no I/O is needed (HMAC signatures), else a promise: the receiver's
 * hot path, which stays off the microtask queue for most deliveries. Throws (or rejects) a {@link DeliveryError}.
 */
export function verifyDeliveryNow(rawBody: RawBody, headers: HeaderReader, options: ResolvedVerifyOptions): MaybePromise<VerifiedDelivery> {
  const body = toBuffer(rawBody);
  if (body.byteLength > options.maxBodyBytes) {
    throw new DeliveryError('body_too_large', `The body has ${body.byteLength} bytes; the limit is ${options.maxBodyBytes}`);
  }
  const signature = verifySignature(body, headers, options);
  return signature instanceof Promise ? signature.then((checked) => verifiedDelivery(body, checked, options)) : verifiedDelivery(body, signature, options);
}

/** Checks options once (secrets, keys, algorithms) and returns a verifier for many deliveries. */
export function createVerifier(options: VerifyOptions): DeliveryVerifier {
  const resolved = resolveVerifyOptions(options);
  return {
    maxBodyBytes: resolved.maxBodyBytes,
    async verify(rawBody, headers, at) {
      const current = at?.now === undefined ? resolved : { ...resolved, now: resolveClock(at.now) };
      return verifyDeliveryNow(rawBody, readHeaders(headers), current);
    },
  };
}

const verifiers = new WeakMap<VerifyOptions, DeliveryVerifier>();

/**
 * Verifies one delivery: the signature (JWT in `X-Signature`, or Standard Webhooks headers) over the exact raw body,
 * then the event itself. Resolves to the typed event; rejects with a {@link DeliveryError} whose `code` says what failed.
 * Reusing the same `options` object reuses its imported keys and fetched key set.
 */
export async function verifyDelivery(rawBody: RawBody, headers: HeaderSource, options: VerifyOptions): Promise<DeliveryEvent> {
  let verifier = verifiers.get(options);
  if (!verifier) {
    verifier = createVerifier(options);
    verifiers.set(options, verifier);
  }
  return (await verifier.verify(rawBody, headers)).event;
}
