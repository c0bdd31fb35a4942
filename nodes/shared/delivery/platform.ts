/**
 * The cryptography the core needs, handed in by one small adapter per platform: `node:crypto` (synchronous, the fast
 * path: see nodeCrypto.ts) or Web Crypto (asynchronous: the receiver package's webCrypto.ts). The core itself computes nothing
 * cryptographic.
 *
 * The core's checks are written once, as generators that `yield` each adapter result (`yield* settle(...)`);
 * {@link runSteps} runs them, synchronously as long as every result is a plain value, and continues asynchronously from
 * the first promise. That driver is the only place where the synchronous and the asynchronous paths differ.
 */

export type MaybePromise<T> = T | Promise<T>;

/** The algorithms of asymmetric signatures: ES256 and EdDSA (Ed25519) JWTs, Ed25519 for Standard Webhooks `v1a`. */
export type PublicKeyAlgorithm = 'ES256' | 'EdDSA';

/** The public part of an EC P-256 or Ed25519 JSON Web Key. */
export interface PublicJwk {
	kty: string;
	crv?: string;
	x?: string;
	y?: string;
	kid?: string;
	alg?: string;
	use?: string;
	key_ops?: string[];
	[member: string]: unknown;
}

/**
 * How the core compares digests: as text in the canonical spelling of the encoding the contract uses (padded
 * base64 for Standard Webhooks `v1`, unpadded base64url for JWT segments and `body_sha256`).
 */
export type DigestEncoding = 'base64' | 'base64url';

/** Part of a message to authenticate: bytes, or text that stands for its UTF-8 bytes. */
export type MessagePart = Uint8Array | string;

export interface PlatformCrypto<SecretKey = unknown, PublicKey = unknown> {
	/** An HMAC-SHA256 key from raw bytes. */
	importHmacKey(bytes: Uint8Array): MaybePromise<SecretKey>;
	/**
	 * HMAC-SHA256 of the parts, in order, as one message (the body is not copied to prepend a prefix). A string part
	 * stands for its UTF-8 bytes: the adapter encodes it however is cheapest on its platform. The MAC comes as text in
	 * `encoding` (natively where the platform can: the core compares text, and never decodes what a request sent).
	 */
	hmacSha256(key: SecretKey, parts: readonly MessagePart[], encoding: DigestEncoding): MaybePromise<string>;
	/** SHA-256 of the data as text in `encoding`. */
	sha256(data: Uint8Array, encoding: DigestEncoding): MaybePromise<string>;
	/** A verification key from the public members of a JWK; throws (or rejects) when the platform cannot use it. */
	importPublicKey(jwk: PublicJwk, alg: PublicKeyAlgorithm): MaybePromise<PublicKey>;
	/** ES256 signatures are raw `r || s` (64 bytes), as JWS and Web Crypto write them. */
	verifySignature(
		alg: PublicKeyAlgorithm,
		key: PublicKey,
		data: Uint8Array,
		signature: Uint8Array,
	): MaybePromise<boolean>;
}

/**
 * One step of the core's checks: a promise goes to the driver, which hands back its settled value; a plain value is
 * the result at once (no hand-off: on node:crypto a whole verification runs without yielding once).
 */
export function* settle<T>(value: MaybePromise<T>): Generator<MaybePromise<T>, T, unknown> {
	return isThenable(value) ? ((yield value) as T) : value;
}

export type Steps<T> = Generator<unknown, T, unknown>;

export function isThenable(value: unknown): value is PromiseLike<unknown> {
	return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

/** Runs the core's steps: synchronously until a step is a promise, then asynchronously. */
export function runSteps<T>(steps: Steps<T>): MaybePromise<T> {
	let step = steps.next();
	while (!step.done) {
		if (isThenable(step.value)) return continueSteps(steps, step.value);
		step = steps.next(step.value);
	}
	return step.value;
}

async function continueSteps<T>(steps: Steps<T>, pending: PromiseLike<unknown>): Promise<T> {
	for (;;) {
		let value: unknown;
		let rejected = false;
		try {
			value = await pending;
		} catch (error) {
			value = error;
			rejected = true;
		}
		// A rejected step is thrown into the generator, where it waited; the generator's own errors propagate.
		let step = rejected ? steps.throw(value) : steps.next(value);
		while (!step.done && !isThenable(step.value)) step = steps.next(step.value);
		if (step.done) return step.value;
		pending = step.value as PromiseLike<unknown>;
	}
}
