import { createHmac } from 'node:crypto';
import { decodeCanonicalBase64, sameBytes } from './encoding';
import { reject } from './verdict';

/** More entries than any key rotation needs; refusing them bounds the work a stranger can cause. */
export const MAX_SIGNATURE_ENTRIES = 10;

export interface StandardWebhooksHeaders {
	id: string;
	timestamp: string;
	/** Every `webhook-signature` value received (a header sent twice gives two). */
	signatures: string[];
}

/** The v1 HMACs offered; entries of other versions, or not canonical base64 of 32 bytes, are skipped. */
function offeredMacs(values: string[]): Buffer[] {
	// Entries are space-separated; a repeated header arrives joined by ", ".
	const entries = values.flatMap((value) => value.split(/,?\s+/)).filter((entry) => entry !== '');
	if (entries.length > MAX_SIGNATURE_ENTRIES) {
		reject('malformed_signature', `webhook-signature lists more than ${MAX_SIGNATURE_ENTRIES} signatures`);
	}
	return entries
		.filter((entry) => entry.startsWith('v1,'))
		.map((entry) => decodeCanonicalBase64(entry.slice(3)))
		.filter((mac): mac is Buffer => mac !== undefined && mac.length === 32);
}

/**
 * Verifies the Standard Webhooks headers: some v1 entry must be HMAC-SHA256(secret, `id.timestamp.body`)
 * for some secret held, and only then is the timestamp held against the clock (± `toleranceSeconds`).
 */
export function verifyStandardWebhooks(
	headers: StandardWebhooksHeaders,
	rawBody: Buffer,
	secrets: Buffer[],
	clock: { now: number; toleranceSeconds: number },
): void {
	if (!/^[0-9]{1,12}$/.test(headers.timestamp)) reject('malformed_signature', 'webhook-timestamp must be unix seconds');
	const macs = offeredMacs(headers.signatures);
	const content = Buffer.concat([Buffer.from(`${headers.id}.${headers.timestamp}.`, 'utf8'), rawBody]);
	const matches = secrets.some((secret) => {
		const expected = createHmac('sha256', secret).update(content).digest();
		return macs.some((mac) => sameBytes(mac, expected));
	});
	if (!matches) reject('invalid_signature', 'webhook-signature matches none of the hook secrets');
	if (Math.abs(clock.now - Number(headers.timestamp)) > clock.toleranceSeconds) {
		reject('timestamp_out_of_tolerance', `webhook-timestamp is more than ${clock.toleranceSeconds} s away from now`);
	}
}
