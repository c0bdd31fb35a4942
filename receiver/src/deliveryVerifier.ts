/**
 * A verifier over any platform's cryptography: options checked once, then many deliveries verified. The Node.js
 * entry builds it on `node:crypto` (nodeVerifier.ts), the `/web` entry on Web Crypto (web.ts).
 */
import {
	readHeaders,
	verifyDeliveryWith,
	type HeaderSource,
	type PlatformCrypto,
	type VerifiedDelivery,
} from '../../nodes/shared/delivery';
import { resolveClock, resolveVerifyOptions, type Clock, type VerifyOptions } from './options';

/** The raw request body exactly as received. */
export type RawBody = string | Uint8Array;

export interface DeliveryVerifier {
	/** Verifies a delivery; rejects with a {@link DeliveryError} saying what failed. */
	verify(rawBody: RawBody, headers: HeaderSource, at?: { now?: Clock }): Promise<VerifiedDelivery>;
	readonly maxBodyBytes: number;
}

const encoder = new TextEncoder();

export function toBytes(rawBody: RawBody): Uint8Array {
	if (typeof rawBody === 'string') return encoder.encode(rawBody);
	if (rawBody instanceof Uint8Array) return rawBody;
	throw new TypeError('rawBody must be the raw request body as a string or bytes (not a parsed object)');
}

/** Checks options once (secrets, keys, algorithms) and returns a verifier for many deliveries. */
export function createVerifierOn(options: VerifyOptions, platform: PlatformCrypto): DeliveryVerifier {
	const resolved = resolveVerifyOptions(options, platform);
	return {
		maxBodyBytes: resolved.maxBodyBytes,
		async verify(rawBody, headers, at) {
			const now = at?.now === undefined ? resolved.now() : resolveClock(at.now)();
			return verifyDeliveryWith(toBytes(rawBody), readHeaders(headers), resolved, now);
		},
	};
}
