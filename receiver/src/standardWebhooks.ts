import { timingSafeEqual } from 'node:crypto';
import { standardWebhooksMac } from './digest';
import { DeliveryError } from './errors';
import type { ResolvedVerifyOptions } from './options';

export interface StandardWebhooksHeaders {
  id: string;
  timestamp: string;
  /** The `webhook-signature` values (one per header line). */
  signatures: string[];
}

/** More entries than any rotation needs: refusing them bounds the work an unauthenticated request can cause. */
export const MAX_SIGNATURE_ENTRIES = 10;
const TIMESTAMP = /^[0-9]{1,12}$/;
const WHITESPACE = /\s/;
/** Canonical base64 of a 32-byte HMAC-SHA256. */
const HMAC_SHA256_BASE64 = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

/** The v1 signatures of a `webhook-signature` list; other versions (e.g. v1a) are ignored. */
function parseSignatureList(values: string[]): Buffer[] {
  // Most lists hold one signature in one header line: read it without splitting.
  if (values.length === 1 && !WHITESPACE.test(values[0])) {
    const mac = v1Signature(values[0]);
    return mac ? [mac] : [];
  }
  // Entries are space-separated; repeated header lines arrive joined by ", " (web Headers).
  const entries = values.flatMap((value) => value.split(/,?\s+/)).filter((entry) => entry !== '');
  if (entries.length > MAX_SIGNATURE_ENTRIES) {
    throw new DeliveryError('malformed_signature', `webhook-signature lists more than ${MAX_SIGNATURE_ENTRIES} signatures`);
  }
  const macs: Buffer[] = [];
  for (const entry of entries) {
    const mac = v1Signature(entry);
    if (mac) macs.push(mac);
  }
  return macs;
}

/** The MAC of a `v1,<base64>` entry, or undefined for another version or a malformed value. */
function v1Signature(entry: string): Buffer | undefined {
  if (!entry.startsWith('v1,')) return undefined;
  const encoded = entry.slice(3);
  return HMAC_SHA256_BASE64.test(encoded) ? Buffer.from(encoded, 'base64') : undefined;
}

/**
 * Verifies the Standard Webhooks headers: some listed v1 signature must be the HMAC of `id.timestamp.body` under some
 * configured secret (compared in constant time), and the timestamp must be within the tolerance.
 * Returns the signed `webhook-id`.
 */
export function verifyStandardWebhooksSignature(headers: StandardWebhooksHeaders, rawBody: Buffer, options: ResolvedVerifyOptions): string {
  if (!TIMESTAMP.test(headers.timestamp)) {
    throw new DeliveryError('malformed_signature', 'webhook-timestamp must be unix seconds');
  }
  const macs = parseSignatureList(headers.signatures);
  const matches = options.hmacSecrets.some((secret) => {
    const expected = standardWebhooksMac(secret, headers.id, headers.timestamp, rawBody);
    return macs.some((mac) => timingSafeEqual(mac, expected));
  });
  if (!matches) throw new DeliveryError('invalid_signature', 'webhook-signature matches none of the configured secrets');

  const age = options.now() - Number(headers.timestamp);
  if (Math.abs(age) > options.toleranceSeconds) {
    throw new DeliveryError(
      'timestamp_out_of_tolerance',
      `webhook-timestamp is ${Math.round(Math.abs(age))} s in the ${age > 0 ? 'past' : 'future'} (tolerance ${options.toleranceSeconds} s)`,
    );
  }
  return headers.id;
}
