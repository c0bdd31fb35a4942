/**
 * The trigger's use of the delivery contract's verification core (./core, which the receiver package compiles too):
 * the same code, rules and error vocabulary as the receiver, on node:crypto, synchronously.
 */
import type { JsonWebKey } from 'node:crypto';
import {
	DELIVERY_ERROR_STATUS,
	DeliveryError,
	localKeySet,
	prepareVerifier,
	readHeaders,
	resolveClock,
	verifyDeliveryWith,
	type DeliveryAlgorithm,
	type DeliveryErrorCode,
	type DeliveryEvent,
	type PreparedVerifier,
	type SignatureScheme,
} from '../../shared/delivery';
import { nodeCrypto } from '../../shared/delivery/nodeCrypto';

export {
	DEFAULT_CLOCK_SKEW_SECONDS,
	DEFAULT_MAX_BODY_BYTES,
	DEFAULT_TOLERANCE_SECONDS,
	HOOK_PUBLIC_KEY_PREFIX,
	HOOK_SECRET_PREFIX,
	heldBackNote,
	UNVERIFIED_HINT_INTERVAL_MS,
	UnverifiedHintGate,
} from '../../shared/delivery';
export type { DeliveryEvent, SignatureScheme };
export type JwtAlgorithm = DeliveryAlgorithm;
export type RejectionCode = DeliveryErrorCode;

export type HeaderValue = string | string[] | undefined;

/** A delivery as it arrived: header names in any case, and the body exactly as received. */
export interface DeliveryRequest {
	headers: Record<string, HeaderValue>;
	rawBody: Uint8Array | string;
}

/** What the trigger trusts: its hook's secret, or its hook's `v1a` public key (several while one is rotated). */
export interface VerificationKeys {
	secrets?: string[];
	publicKeys?: string[];
	jwks?: { keys: JsonWebKey[] };
	algorithms?: JwtAlgorithm[];
	audience?: string[];
	issuer?: string;
}

export interface VerifyOptions {
	/** The current time in unix seconds (tests pin it); defaults to the clock. */
	now?: number;
	toleranceSeconds?: number;
	clockSkewSeconds?: number;
	maxBodyBytes?: number;
}

export type Verdict =
	| { ok: true; scheme: SignatureScheme; event: DeliveryEvent }
	/**
	 * `diagnostic` is for n8n's log (clocks apart, a re-serialized body), never for the answer; `diagnosticUnverified`
	 * marks one drawn from a request whose signature matched no key (see DeliveryError.diagnosticUnverified).
	 */
	| { ok: false; code: RejectionCode; reason: string; diagnostic?: string; diagnosticUnverified?: true };

/** The HTTP status that answers a refusal (the same as the receiver's). */
export function refusalStatus(code: RejectionCode): number {
	return DELIVERY_ERROR_STATUS[code];
}

/**
 * Prepared verifiers by what they were prepared from: a trigger verifies every delivery with the same keys, so the
 * secret is decoded and imported once, not per delivery. Bounded: many different key sets only make it start over.
 */
const preparedVerifiers = new Map<string, PreparedVerifier>();
const MAX_PREPARED_VERIFIERS = 64;

function preparedFor(keys: VerificationKeys, options: VerifyOptions): PreparedVerifier {
	const cacheKey = JSON.stringify([
		keys.secrets,
		keys.publicKeys,
		keys.jwks,
		keys.algorithms,
		keys.audience,
		keys.issuer,
		options.toleranceSeconds,
		options.clockSkewSeconds,
		options.maxBodyBytes,
	]);
	let verifier = preparedVerifiers.get(cacheKey);
	if (verifier) return verifier;
	verifier = prepareVerifier(
		{
			secrets: keys.secrets,
			publicKeys: keys.publicKeys,
			keySet: keys.jwks ? localKeySet(keys.jwks) : undefined,
			algorithms: keys.algorithms,
			audience: keys.audience,
			issuer: keys.issuer,
			toleranceSeconds: options.toleranceSeconds,
			clockSkewSeconds: options.clockSkewSeconds,
			maxBodyBytes: options.maxBodyBytes,
		},
		nodeCrypto,
	);
	if (preparedVerifiers.size >= MAX_PREPARED_VERIFIERS) preparedVerifiers.clear();
	preparedVerifiers.set(cacheKey, verifier);
	return verifier;
}

/**
 * Verifies one delivery per the delivery contract. Never throws for a bad delivery: the verdict says why it was
 * refused. Throws TypeError only for bad configuration (a malformed secret or key).
 */
export function verifyDelivery(request: DeliveryRequest, keys: VerificationKeys, options: VerifyOptions = {}): Verdict {
	const verifier = preparedFor(keys, options);
	const now = resolveClock(options.now)();
	const body = typeof request.rawBody === 'string' ? new TextEncoder().encode(request.rawBody) : request.rawBody;
	try {
		if (!(body instanceof Uint8Array))
			return { ok: false, code: 'malformed_json', reason: 'the raw body of the request is not available' };
		const verified = verifyDeliveryWith(body, readHeaders(request.headers), verifier, now);
		// node:crypto and keys held in memory: every step is synchronous.
		if (verified instanceof Promise) throw new Error('verification did not complete synchronously');
		return { ok: true, scheme: verified.scheme, event: verified.event };
	} catch (error) {
		if (error instanceof DeliveryError) {
			const verdict: Verdict = { ok: false, code: error.code, reason: error.message, diagnostic: error.diagnostic };
			if (error.diagnosticUnverified) verdict.diagnosticUnverified = true;
			return verdict;
		}
		// Anything else (a crypto routine refusing odd input) must still never let a delivery through.
		return { ok: false, code: 'invalid_signature', reason: 'the signature could not be checked' };
	}
}
