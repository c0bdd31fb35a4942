import { dataProblem, envelopeProblem } from './eventShape';
import { verifyDeliveryJwt } from './jwt';
import { prepareKeys, type PreparedKeys, type VerificationKeys } from './keys';
import { verifyStandardWebhooks } from './standardWebhooks';
import { reject, Rejection, type DeliveryEvent, type SignatureScheme, type Verdict } from './verdict';

/** Oldest accepted signature (JWT `iat`, `webhook-timestamp`), in seconds. */
export const DEFAULT_TOLERANCE_SECONDS = 300;
/** Clock difference allowed with the sender on the JWT's `exp`, `iat` and `nbf`. */
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;
/** Largest body accepted; events are small. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export type HeaderValue = string | string[] | undefined;

/** A delivery as it arrived: header names in any case, and the body exactly as received. */
export interface DeliveryRequest {
	headers: Record<string, HeaderValue>;
	rawBody: Buffer | string;
}

export interface VerifyOptions {
	/** The current time in unix seconds (tests pin it); defaults to the clock. */
	now?: number;
	toleranceSeconds?: number;
	clockSkewSeconds?: number;
	maxBodyBytes?: number;
}

/** Every value of a header, whatever the case of its name. */
function headerValues(headers: Record<string, HeaderValue>, name: string): string[] {
	return Object.entries(headers)
		.filter(([key]) => key.toLowerCase() === name)
		.flatMap(([, value]) => (value === undefined ? [] : Array.isArray(value) ? value : [value]))
		.map((value) => value.trim());
}

/** A single-valued header; sent twice it is joined with ", " (as Node.js does), which no signature survives. */
function headerValue(headers: Record<string, HeaderValue>, name: string): string | undefined {
	const values = headerValues(headers, name);
	return values.length === 0 ? undefined : values.join(', ');
}

interface SignedEvent {
	scheme: SignatureScheme;
	eventId: string;
}

function verifySignature(request: DeliveryRequest, rawBody: Buffer, keys: PreparedKeys, options: Required<VerifyOptions>): SignedEvent {
	const token = headerValue(request.headers, 'x-signature');
	if (token && keys.algorithms.length > 0) {
		const clock = { now: options.now, maxAgeSeconds: options.toleranceSeconds, skewSeconds: options.clockSkewSeconds };
		return { scheme: 'jwt', eventId: verifyDeliveryJwt(token, rawBody, keys, clock).eventId };
	}
	const signatures = headerValues(request.headers, 'webhook-signature').filter((value) => value !== '');
	if (signatures.length > 0 && keys.hmacKeys.length > 0) {
		const id = headerValue(request.headers, 'webhook-id');
		const timestamp = headerValue(request.headers, 'webhook-timestamp');
		if (!id || !timestamp) reject('missing_signature', 'webhook-signature came without webhook-id or webhook-timestamp');
		verifyStandardWebhooks({ id, timestamp, signatures }, rawBody, keys.hmacKeys, options);
		return { scheme: 'standard-webhooks', eventId: id };
	}
	return reject('missing_signature', 'the delivery carries neither X-Signature nor webhook-signature');
}

/** The signed body as an event: JSON, an event envelope, the signed id, the audience, its kind's shape. */
function parseEvent(rawBody: Buffer, signed: SignedEvent, keys: PreparedKeys): DeliveryEvent {
	let body: unknown;
	try {
		body = JSON.parse(rawBody.toString('utf8'));
	} catch {
		reject('malformed_json', 'the body is not JSON');
	}
	const problem = envelopeProblem(body);
	if (problem) reject('invalid_payload', `the body is not an event: check "${problem}"`);
	const event = body as DeliveryEvent;
	if (event.id !== signed.eventId) reject('event_id_mismatch', "the signed event id is not the body's id");
	if (signed.scheme === 'standard-webhooks' && keys.audience && !keys.audience.includes(event.hook as string)) {
		reject('audience_mismatch', 'the body is meant for another hook ("hook")');
	}
	const dataIssue = dataProblem(event.type, event.data);
	if (dataIssue) reject('invalid_payload', `the ${event.type} event is not well-formed: check "${dataIssue}"`);
	return event;
}

/**
 * Verifies one delivery per the delivery contract. The JWT in `X-Signature` decides when that header is
 * present (never falling back to the other scheme if it fails); otherwise the Standard Webhooks headers
 * do. Then the body must be the signed event. Never throws for a bad delivery: the verdict says why
 * it was refused. Throws TypeError only for bad configuration (a malformed secret or key).
 */
export function verifyDelivery(request: DeliveryRequest, keys: VerificationKeys, options: VerifyOptions = {}): Verdict {
	const prepared = prepareKeys(keys);
	const resolved: Required<VerifyOptions> = {
		now: options.now ?? Date.now() / 1000,
		toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
		clockSkewSeconds: options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS,
		maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
	};
	const rawBody = typeof request.rawBody === 'string' ? Buffer.from(request.rawBody, 'utf8') : request.rawBody;
	try {
		if (!Buffer.isBuffer(rawBody)) reject('malformed_json', 'the raw body of the request is not available');
		if (rawBody.length > resolved.maxBodyBytes) reject('body_too_large', `the body is larger than ${resolved.maxBodyBytes} bytes`);
		const signed = verifySignature(request, rawBody, prepared, resolved);
		return { ok: true, scheme: signed.scheme, event: parseEvent(rawBody, signed, prepared) };
	} catch (error) {
		if (error instanceof Rejection) return { ok: false, code: error.code, reason: error.reason };
		// Anything else (a crypto routine refusing odd input) must still never let a delivery through.
		return { ok: false, code: 'invalid_signature', reason: 'the signature could not be checked' };
	}
}
