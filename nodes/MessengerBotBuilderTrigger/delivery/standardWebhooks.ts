import { createHmac } from 'node:crypto';
import { decodeBase64, sameBytes } from './encoding';
import { reject } from './verdict';

/** Standard Webhooks allows a 5-minute gap between `webhook-timestamp` and the receiver's clock. */
export const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 300;
/** More signatures than this in one header is not key rotation but an attempt to make us work. */
export const MAX_SIGNATURES = 8;

export interface StandardWebhooksHeaders {
	id: string;
	timestamp: string;
	signature: string;
}

/**
 * Verifies `webhook-signature` (`v1,<base64 HMAC-SHA256(secret, id.timestamp.body)>`, space-separated
 * to allow rotation) against every secret held, and `webhook-timestamp` against the clock.
 */
export function verifyStandardWebhooks(
	headers: StandardWebhooksHeaders,
	rawBody: Buffer,
	secrets: Buffer[],
	now: number,
): void {
	if (!/^[0-9]{1,12}$/.test(headers.timestamp)) {
		reject('malformed_signature', 'webhook-timestamp must be whole unix seconds');
	}
	const timestamp = Number(headers.timestamp);
	if (Math.abs(now - timestamp) > STANDARD_WEBHOOKS_TOLERANCE_SECONDS) {
		reject('timestamp_out_of_tolerance', 'webhook-timestamp is more than 5 minutes away from now');
	}

	const entries = headers.signature.split(' ').filter((entry) => entry !== '');
	if (entries.length === 0) reject('malformed_signature', 'webhook-signature is empty');
	if (entries.length > MAX_SIGNATURES) reject('malformed_signature', `webhook-signature lists more than ${MAX_SIGNATURES} signatures`);
	const offered = entries
		.filter((entry) => entry.startsWith('v1,'))
		.map((entry) => decodeBase64(entry.slice(3)))
		.filter((bytes): bytes is Buffer => bytes !== undefined && bytes.length === 32);
	if (offered.length === 0) reject('malformed_signature', 'webhook-signature holds no v1 signature');

	const content = Buffer.concat([Buffer.from(`${headers.id}.${headers.timestamp}.`, 'utf8'), rawBody]);
	const expected = secrets.map((secret) => createHmac('sha256', secret).update(content).digest());
	const matches = expected.some((mac) => offered.some((signature) => sameBytes(mac, signature)));
	if (!matches) reject('invalid_signature', 'webhook-signature does not match any hook secret');
}
