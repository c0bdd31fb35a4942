import { createHmac, hash, type KeyObject } from 'node:crypto';

/** base64url(SHA-256(raw body bytes)): the `body_sha256` claim of the delivery JWT. */
export function bodySha256(body: string | Uint8Array): string {
  return hash('sha256', body, 'base64url');
}

/**
 * Base64 HMAC-SHA256 of the Standard Webhooks content `${id}.${timestamp}.${body}`.
 * Give the key as a KeyObject when it is reused: Node prepares a raw key again on every call, which costs more
 * than the HMAC itself.
 */
export function standardWebhooksMac(key: KeyObject | Uint8Array, id: string, timestamp: number | string, body: string | Uint8Array): string {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(body).digest('base64');
}

/**
 * Compares a received signature with the expected one in time that does not depend on where they differ. Both are
 * compared in their canonical text encoding: a received value spelled any other way (unused bits set, missing
 * padding, foreign characters) is simply not equal, with no decoding of attacker input.
 */
export function signaturesEqual(received: string, expected: string): boolean {
  if (received.length !== expected.length) return false;
  let difference = 0;
  for (let i = 0; i < expected.length; i += 1) difference |= received.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}
