import { createHash } from 'node:crypto';
import { decodeBase64Url, parseJsonObject, sameBytes } from './encoding';
import { verifyJwt } from './jwt';
import { hookSecretBytes, importPublicKeys, type PublicKey, type VerificationKeys } from './keys';
import { verifyStandardWebhooks } from './standardWebhooks';
import { reject, Rejection, type DeliveryEvent, type Verdict } from './verdict';

/** Clock skew allowed on the JWT's `exp`, `iat` and `nbf`. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 30;
/** Largest body accepted. Events are small; anything bigger is refused before any hashing. */
export const MAX_BODY_BYTES = 256 * 1024;

export type HeaderValue = string | string[] | undefined;

/** A delivery as it arrived: header names in any case, and the body exactly as received. */
export interface DeliveryRequest {
	headers: Record<string, HeaderValue>;
	rawBody: Buffer | string;
}

export interface VerifyOptions {
	/** The current time in unix seconds (tests pin it); defaults to the clock. */
	now?: number;
	jwtToleranceSeconds?: number;
	maxBodyBytes?: number;
}

/**
 * One header's value. A header sent twice is joined with ", " as Node.js does, which no single
 * signature header survives: it is refused as malformed rather than guessed at.
 */
function singleHeader(headers: Record<string, HeaderValue>, name: string): string | undefined {
	const values = Object.entries(headers)
		.filter(([key]) => key.toLowerCase() === name)
		.flatMap(([, value]) => (value === undefined ? [] : Array.isArray(value) ? value : [value]));
	return values.length === 0 ? undefined : values.join(', ');
}

function parseEvent(rawBody: Buffer): DeliveryEvent {
	const event = parseJsonObject(rawBody);
	if (!event) reject('malformed_json', 'the body is not a JSON object');
	if (typeof event.id !== 'string' || event.id === '' || typeof event.type !== 'string' || event.type === '') {
		reject('invalid_payload', 'the body is not an event: it needs a string "id" and "type"');
	}
	return event as DeliveryEvent;
}

/** The verifier's keys in usable form; decoding them first lets a bad setting fail loudly, apart from bad deliveries. */
interface PreparedKeys {
	hmacKeys: Buffer[];
	publicKeys: PublicKey[];
	audience?: string;
	issuer?: string;
}

function prepareKeys(keys: VerificationKeys): PreparedKeys {
	return {
		hmacKeys: (keys.secrets ?? []).map((secret, i) => hookSecretBytes(secret, `secrets[${i}]`)),
		publicKeys: importPublicKeys(keys.publicKeys),
		audience: keys.audience,
		issuer: keys.issuer,
	};
}

function verifyWithJwt(token: string, rawBody: Buffer, keys: PreparedKeys, now: number, tolerance: number): DeliveryEvent {
	const { claims } = verifyJwt(token, keys, { now, toleranceSeconds: tolerance, audience: keys.audience, issuer: keys.issuer });
	const claimedDigest = typeof claims.body_sha256 === 'string' ? decodeBase64Url(claims.body_sha256) : undefined;
	if (!claimedDigest) reject('invalid_claims', 'X-Signature: the JWT claim "body_sha256" is missing or not base64url');
	if (!sameBytes(createHash('sha256').update(rawBody).digest(), claimedDigest)) {
		reject('body_hash_mismatch', 'the body is not the one the JWT signed (body_sha256)');
	}
	const event = parseEvent(rawBody);
	if (claims.evt !== event.id) reject('event_id_mismatch', 'X-Signature: the JWT claim "evt" is not the body\'s id');
	return event;
}

function verifyWithStandardWebhooks(
	headers: Record<string, HeaderValue>,
	rawBody: Buffer,
	keys: PreparedKeys,
	now: number,
): DeliveryEvent {
	const id = singleHeader(headers, 'webhook-id');
	const timestamp = singleHeader(headers, 'webhook-timestamp');
	const signature = singleHeader(headers, 'webhook-signature');
	if (!id || !timestamp || !signature) {
		reject('missing_signature', 'neither X-Signature nor the webhook-id/-timestamp/-signature headers were sent');
	}
	if (keys.hmacKeys.length === 0) reject('key_not_found', 'Standard Webhooks signatures need a hook secret, and none is held');
	verifyStandardWebhooks({ id, timestamp, signature }, rawBody, keys.hmacKeys, now);
	const event = parseEvent(rawBody);
	if (event.id !== id) reject('event_id_mismatch', 'webhook-id is not the body\'s id');
	if (keys.audience !== undefined && event.hook !== keys.audience) {
		reject('audience_mismatch', 'the body is meant for another hook ("hook")');
	}
	return event;
}

/**
 * Verifies one delivery per the delivery contract: the JWT in `X-Signature` when that header is
 * present (never falling back to the other scheme if it fails), otherwise the Standard Webhooks
 * headers. Never throws for a bad delivery: the verdict says why it was refused.
 * Throws TypeError only for bad configuration (a malformed secret or public key).
 */
export function verifyDelivery(request: DeliveryRequest, keys: VerificationKeys, options: VerifyOptions = {}): Verdict {
	const prepared = prepareKeys(keys);
	const now = options.now ?? Math.floor(Date.now() / 1000);
	const rawBody = typeof request.rawBody === 'string' ? Buffer.from(request.rawBody, 'utf8') : request.rawBody;
	try {
		if (!Buffer.isBuffer(rawBody)) reject('malformed_json', 'the raw body of the request is not available');
		if (rawBody.length > (options.maxBodyBytes ?? MAX_BODY_BYTES)) reject('body_too_large', 'the body is larger than allowed');
		const token = singleHeader(request.headers, 'x-signature');
		const event =
			token !== undefined
				? verifyWithJwt(token, rawBody, prepared, now, options.jwtToleranceSeconds ?? JWT_CLOCK_TOLERANCE_SECONDS)
				: verifyWithStandardWebhooks(request.headers, rawBody, prepared, now);
		return { ok: true, scheme: token !== undefined ? 'jwt' : 'standard-webhooks', event };
	} catch (error) {
		if (error instanceof Rejection) return { ok: false, code: error.code, reason: error.reason };
		// Anything else (a crypto routine refusing odd input) must still never let a delivery through.
		return { ok: false, code: 'invalid_signature', reason: 'the signature could not be checked' };
	}
}
