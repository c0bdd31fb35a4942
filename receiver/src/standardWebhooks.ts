import { signaturesEqual, standardWebhooksMac } from './digest';
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

/** The base64 values of the v1 entries of a `webhook-signature` list; other versions (e.g. v1a) are ignored. */
function v1Signatures(values: string[]): string[] {
  // Most lists hold one signature in one header line: read it without splitting.
  if (values.length === 1 && !WHITESPACE.test(values[0])) return values[0].startsWith('v1,') ? [values[0].slice(3)] : [];
  // Entries are space-separated; repeated header lines arrive joined by ", " (web Headers).
  const entries = values.flatMap((value) => value.split(/,?\s+/)).filter((entry) => entry !== '');
  if (entries.length > MAX_SIGNATURE_ENTRIES) {
    throw new DeliveryError('malformed_signature', `webhook-signature lists more than ${MAX_SIGNATURE_ENTRIES} signatures`);
  }
  return entries.filter((entry) => entry.startsWith('v1,')).map((entry) => entry.slice(3));
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
  const received = v1Signatures(headers.signatures);
  const matches = options.hmacSecrets.some((secret) => {
    const expected = standardWebhooksMac(secret, headers.id, headers.timestamp, rawBody);
    return received.some((signature) => signaturesEqual(signature, expected));
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
