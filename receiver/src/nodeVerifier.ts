/**
 * Verification on `node:crypto`: the public `createVerifier` and `verifyDelivery` (which keeps a verifier per options
 * object), and the synchronous path the Receiver takes with the options it prepared once.
 */
import {
	verifyDeliveryWith,
	type HeaderReader,
	type HeaderSource,
	type MaybePromise,
	type VerifiedDelivery,
	type DeliveryEvent,
} from '../../nodes/shared/delivery';
import { nodeCrypto } from '../../nodes/shared/delivery/nodeCrypto';
import type { ResolvedVerifyOptions, VerifyOptions } from './options';
import { createVerifierOn, toBytes, type DeliveryVerifier, type RawBody } from './deliveryVerifier';

export type { DeliveryVerifier, MaybePromise, RawBody, VerifiedDelivery };

/**
 * Verifies a delivery and returns it at once when no I/O is needed (node:crypto, secrets, an inline key set), else a
 * promise: the receiver's hot path, which stays off the microtask queue for most deliveries. Throws (or rejects) a
 * {@link DeliveryError}.
 */
export function verifyDeliveryNow(
	rawBody: RawBody,
	headers: HeaderReader,
	options: ResolvedVerifyOptions,
): MaybePromise<VerifiedDelivery> {
	return verifyDeliveryWith(toBytes(rawBody), headers, options);
}

/** Checks options once (secrets, keys, algorithms) and returns a verifier for many deliveries (node:crypto). */
export function createVerifier(options: VerifyOptions): DeliveryVerifier {
	return createVerifierOn(options, nodeCrypto);
}

/**
 * The verifier prepared for an options object, with a snapshot of what it was prepared from. An options object edited
 * in place (a leaked secret removed from `secrets`, an audience added) no longer matches its snapshot, and the next
 * call prepares a verifier from the options as they are now: a removed secret stops verifying at once.
 */
const verifiers = new WeakMap<VerifyOptions, { snapshot: OptionsSnapshot; verifier: DeliveryVerifier }>();

/** Each option's value; lists (and the inline key set's `keys`) copied, so that edits in place show. */
type OptionsSnapshot = ReadonlyMap<string, unknown>;

function snapshotOf(options: VerifyOptions): OptionsSnapshot {
	const snapshot = new Map<string, unknown>();
	for (const [name, value] of Object.entries(options)) {
		snapshot.set(name, Array.isArray(value) ? [...(value as unknown[])] : value);
		if (
			name === 'jwks' &&
			value !== null &&
			typeof value === 'object' &&
			Array.isArray((value as { keys?: unknown }).keys)
		) {
			snapshot.set('jwks.keys', [...(value as { keys: unknown[] }).keys]);
		}
	}
	return snapshot;
}

const sameValue = (a: unknown, b: unknown) =>
	Array.isArray(a) && Array.isArray(b)
		? a.length === b.length && a.every((item, index) => Object.is(item, b[index]))
		: Object.is(a, b);

function unchanged(snapshot: OptionsSnapshot, current: OptionsSnapshot): boolean {
	if (snapshot.size !== current.size) return false;
	for (const [name, value] of snapshot) if (!current.has(name) || !sameValue(value, current.get(name))) return false;
	return true;
}

/**
 * Verifies one delivery: the signature (JWT in `X-Signature`, or Standard Webhooks headers) over the exact raw body,
 * then the event itself. Resolves to the typed event; rejects with a {@link DeliveryError} whose `code` says what failed.
 * Reusing the same `options` object reuses its imported keys and fetched key set for as long as its options stay the
 * same; a change to it (a secret removed from `secrets` in place, say) takes effect on the next call.
 */
export async function verifyDelivery(
	rawBody: RawBody,
	headers: HeaderSource,
	options: VerifyOptions,
): Promise<DeliveryEvent> {
	if (options === null || typeof options !== 'object')
		return (await createVerifier(options).verify(rawBody, headers)).event; // throws TypeError
	const snapshot = snapshotOf(options);
	let cached = verifiers.get(options);
	if (!cached || !unchanged(cached.snapshot, snapshot)) {
		cached = { snapshot, verifier: createVerifier(options) };
		verifiers.set(options, cached);
	}
	return (await cached.verifier.verify(rawBody, headers)).event;
}
