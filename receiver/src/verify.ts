import { verifyDeliveryWith, type HeaderReader, type HeaderSource, type MaybePromise, type VerifiedDelivery } from './core';
import { nodeCrypto } from '../../nodes/MessengerBotBuilderTrigger/delivery/core/nodeCrypto';
import type { DeliveryEvent } from './events';
import type { ResolvedVerifyOptions, VerifyOptions } from './options';
import { createVerifierOn, toBytes, type DeliveryVerifier, type RawBody } from './verifier';

export type { DeliveryVerifier, MaybePromise, RawBody, VerifiedDelivery };

/**
 * Verifies a delivery and returns it at once when no I/O is needed (node:crypto, secrets, an inline key set), else a
 * promise: the receiver's hot path, which stays off the microtask queue for most deliveries. Throws (or rejects) a
 * {@link DeliveryError}.
 */
export function verifyDeliveryNow(rawBody: RawBody, headers: HeaderReader, options: ResolvedVerifyOptions): MaybePromise<VerifiedDelivery> {
  return verifyDeliveryWith(toBytes(rawBody), headers, options);
}

/** Checks options once (secrets, keys, algorithms) and returns a verifier for many deliveries (node:crypto). */
export function createVerifier(options: VerifyOptions): DeliveryVerifier {
  return createVerifierOn(options, nodeCrypto);
}

const verifiers = new WeakMap<VerifyOptions, DeliveryVerifier>();

/**
 * Verifies one delivery: the signature (JWT in `X-Signature`, or Standard Webhooks headers) over the exact raw body,
 * then the event itself. Resolves to the typed event; rejects with a {@link DeliveryError} whose `code` says what failed.
 * Reusing the same `options` object reuses its imported keys and fetched key set.
 */
export async function verifyDelivery(rawBody: RawBody, headers: HeaderSource, options: VerifyOptions): Promise<DeliveryEvent> {
  let verifier = verifiers.get(options);
  if (!verifier) {
    verifier = createVerifier(options);
    verifiers.set(options, verifier);
  }
  return (await verifier.verify(rawBody, headers)).event;
}
