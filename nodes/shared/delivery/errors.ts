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
	/** Another process holds a live lease on this event and has not finished it: the sender should retry later (receiver only). */
	event_in_progress: 503,
	/** `afterListeners`: a listener failed; nothing is recorded as done and the sender retries (receiver only). */
	listener_failed: 500,
	/** `afterListeners`: the listeners did not finish within `listenerDeadlineMs`: the sender retries (receiver only). */
	listener_timeout: 503,
	/** `queue`: the event could not be enqueued: the sender should retry (receiver only). */
	queue_unavailable: 503,
	/** The body did not arrive within `bodyTimeoutMs` (receiver only). */
	body_timeout: 408,
	/** The client closed the connection before its body was complete (nobody reads this answer; receiver only). */
	client_aborted: 400,
	/** A fault of the receiver itself (logged); the sender retries (receiver only). */
	internal_error: 500,
} as const;

export type DeliveryErrorCode = keyof typeof DELIVERY_ERROR_STATUS;

export const DELIVERY_ERROR_CODES = Object.keys(DELIVERY_ERROR_STATUS) as DeliveryErrorCode[];

/**
 * Why a delivery was refused. `message` never contains a secret or key material; it is what the sender may read in
 * the refusal's body. `diagnostic`, when set, tells the developer what to do (by how many seconds the clocks differ,
 * a body that was re-serialized before verification): for logs and `onError`, never for the answer.
 */
export class DeliveryError extends Error {
	override readonly name = 'DeliveryError';
	readonly code: DeliveryErrorCode;
	/** HTTP status the receiver answers with. */
	readonly status: number;
	readonly diagnostic?: string;
	/**
	 * Set (true) with a `diagnostic` drawn from a request whose signature matched no configured key: anyone can send
	 * such a request, so the diagnostic states nothing it claims as a fact (no event id) and begins with "Unverified
	 * request". The receiver and the n8n trigger pass such hints on at most once a minute.
	 */
	readonly diagnosticUnverified?: true;
	/** Signature time minus this server's time, in whole seconds (clock refusals only). */
	readonly clockDifferenceSeconds?: number;

	constructor(
		code: DeliveryErrorCode,
		message: string,
		options?: { cause?: unknown; diagnostic?: string; diagnosticUnverified?: boolean; clockDifferenceSeconds?: number },
	) {
		super(message, options?.cause === undefined ? undefined : { cause: options.cause });
		this.code = code;
		this.status = DELIVERY_ERROR_STATUS[code];
		if (options?.diagnostic !== undefined) {
			this.diagnostic = options.diagnostic;
			if (options.diagnosticUnverified) this.diagnosticUnverified = true;
		}
		if (options?.clockDifferenceSeconds !== undefined) this.clockDifferenceSeconds = options.clockDifferenceSeconds;
	}
}

/** Throws the refusal: the core's checks read as statements. */
export function refuse(
	code: DeliveryErrorCode,
	message: string,
	options?: ConstructorParameters<typeof DeliveryError>[2],
): never {
	throw new DeliveryError(code, message, options);
}

export function isDeliveryError(error: unknown): error is DeliveryError {
	return error instanceof DeliveryError;
}

/** How often a hint drawn from an unverified request is passed on (to `onError`, to a log): once a minute. */
export const UNVERIFIED_HINT_INTERVAL_MS = 60_000;

/**
 * Lets one unverified hint through per interval and counts those held back, so that requests anyone can send cannot
 * flood a log or an error handler.
 */
export class UnverifiedHintGate {
	#openAt = 0;
	#heldBack = 0;

	constructor(readonly intervalMs = UNVERIFIED_HINT_INTERVAL_MS) {}

	/** The number of hints held back since the last one let through, or undefined: hold this one back. */
	pass(now = Date.now()): number | undefined {
		if (now < this.#openAt) {
			this.#heldBack += 1;
			return undefined;
		}
		this.#openAt = now + this.intervalMs;
		const heldBack = this.#heldBack;
		this.#heldBack = 0;
		return heldBack;
	}
}

/** What a log line adds about the hints held back before it (nothing when none was). */
export function heldBackNote(heldBack: number): string {
	return heldBack > 0
		? ` (${heldBack} more unverified ${heldBack === 1 ? 'hint was' : 'hints were'} held back since the last one)`
		: '';
}
