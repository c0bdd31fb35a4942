import { createHmac, hash, type KeyObject } from 'node:crypto';

/** base64url(SHA-256(raw body bytes)): the `body_sha256` claim of the delivery JWT. */
export function bodySha256(body: string | Uint8Array): string {
  return hash('sha256', body, 'base64url');
}

/**
 * Raw HMAC-SHA256 of the Standard Webhooks content `${id}.${timestamp}.${body}`.
 * Give the key as a KeyObject when it is reused: Node prepares a raw key again on every call, which costs more
 * than the HMAC itself.
 */
export function standardWebhooksMac(key: KeyObject | Uint8Array, id: string, timestamp: number | string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest();
}
