import { createHash, createHmac } from 'node:crypto';

/** base64url(SHA-256(raw body bytes)): the `body_sha256` claim of the delivery JWT. */
export function bodySha256(body: string | Uint8Array): string {
  return createHash('sha256').update(body).digest('base64url');
}

/** The content signed by Standard Webhooks: `${id}.${timestamp}.${body}`. */
export function standardWebhooksContent(id: string, timestamp: number | string, body: string | Uint8Array): Buffer {
  const prefix = Buffer.from(`${id}.${timestamp}.`, 'utf8');
  return Buffer.concat([prefix, typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** Raw HMAC-SHA256 of the Standard Webhooks content. */
export function standardWebhooksMac(key: Uint8Array, id: string, timestamp: number | string, body: string | Uint8Array): Buffer {
  return createHmac('sha256', key).update(standardWebhooksContent(id, timestamp, body)).digest();
}
