import { createHmac, hash, type KeyObject } from 'node:crypto';
import { standardWebhooksContent } from '../../nodes/shared/delivery';

/** base64url(SHA-256(raw body bytes)): the `body_sha256` claim of the delivery JWT (signing side). */
export function bodySha256(body: string | Uint8Array): string {
	return hash('sha256', body, 'base64url');
}

const encoder = new TextEncoder();

/** Base64 HMAC-SHA256 of the Standard Webhooks content (signing side; the core verifies the same content). */
export function standardWebhooksMac(
	key: KeyObject | Uint8Array,
	id: string,
	timestamp: number | string,
	body: string | Uint8Array,
): string {
	return createHmac('sha256', key)
		.update(standardWebhooksContent(id, timestamp, typeof body === 'string' ? encoder.encode(body) : body))
		.digest('base64');
}
