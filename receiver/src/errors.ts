/**
 * Every way a delivery can be refused, with the HTTP status the receiver answers.
 * The same vocabulary is used by the shared test vectors (test/fixtures/deliveries).
 */
export const DELIVERY_ERROR_STATUS = {
  /** Neither `X-Signature` nor the Standard Webhooks headers are present. */
  missing_signature: 401,
  /** A signature header is present but cannot be parsed (not a compact JWS, bad timestamp, too many entries). */
  malformed_signature: 401,
  /** No configured secret or key produces the signature. */
  invalid_signature: 401,
  /** The JWT's `alg` is not one of the pinned algorithms (includes `none` and HS* with public keys). */
  algorithm_not_allowed: 401,
  /** No key of the key set has the JWT's `kid` (and `alg`). */
  key_not_found: 401,
  /** The JWT lacks a required claim or header field, or one has the wrong type. */
  invalid_claims: 401,
  /** The JWT is past `exp`, or older than the tolerance. */
  expired: 401,
  /** The JWT's `iat` lies in the future. */
  not_yet_valid: 401,
  /** The JWT's `aud` (or, for Standard Webhooks, the body's `hook`) is not a configured audience. */
  audience_mismatch: 401,
  /** The JWT's `iss` is not the configured issuer. */
  issuer_mismatch: 401,
  /** The JWT's `evt` (or `webhook-id`) differs from the body's `id`. */
  event_id_mismatch: 401,
  /** The JWT's `body_sha256` differs from the SHA-256 of the raw body bytes. */
  body_hash_mismatch: 401,
  /** The Standard Webhooks timestamp is further from now than the tolerance. */
  timestamp_out_of_tolerance: 401,
  /** The body is larger than `maxBodyBytes`. */
  body_too_large: 413,
  /** The signed body is not JSON. */
  malformed_json: 400,
  /** The signed body is JSON but not a valid event (envelope or known kind's data). */
  invalid_payload: 400,
  /** The request's Content-Type is not JSON (receiver only). */
  unsupported_media_type: 415,
  /** The request's method is not POST (receiver only). */
  method_not_allowed: 405,
  /** The remote key set could not be fetched: the sender should retry. */
  key_set_unavailable: 503,
  /** The deduplication store did not answer: the sender should retry. */
  dedupe_unavailable: 503,
} as const;

export type DeliveryErrorCode = keyof typeof DELIVERY_ERROR_STATUS;

export const DELIVERY_ERROR_CODES = Object.keys(DELIVERY_ERROR_STATUS) as DeliveryErrorCode[];

/** Why a delivery was refused. `message` never contains a secret or key material. */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  readonly code: DeliveryErrorCode;
  /** HTTP status the receiver answers with. */
  readonly status: number;

  constructor(code: DeliveryErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.status = DELIVERY_ERROR_STATUS[code];
  }
}

export function isDeliveryError(error: unknown): error is DeliveryError {
  return error instanceof DeliveryError;
}
