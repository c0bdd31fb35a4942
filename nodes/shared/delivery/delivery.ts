import { lenientUtf8, strictUtf8, utf8 } from './bytes';
import { refuse } from './errors';
import { eventProblem, type DeliveryEvent } from './events';
import { MAX_SIGNATURE_HEADER_LENGTH, type HeaderReader } from './headers';
import {
	ASYMMETRIC_ALGORITHMS,
	bodySha256,
	isSymmetricAlgorithm,
	SYMMETRIC_ALGORITHMS,
	verifyJwt,
	type DeliveryAlgorithm,
} from './jwt';
import { decodeHookPublicKey, decodeHookSecret, HmacSecret, KeyCache, type KeySetSource } from './keys';
import { runSteps, type MaybePromise, type PlatformCrypto, type PublicJwk, type Steps } from './platform';
import { verifyStandardWebhooks } from './standardWebhooks';

export type SignatureScheme = 'jwt' | 'standard-webhooks';

export const DEFAULT_TOLERANCE_SECONDS = 300;
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Unix seconds, or a function returning them (a clock). */
export type Clock = number | (() => number);

/** What a verifier trusts and how strict it is; the receiver's and the trigger's options both come down to this. */
export interface CoreVerifyOptions {
	/** Hook secrets (`whsec_...`, the prefix optional); several during a rotation: each one is tried. */
	secrets?: string | readonly string[];
	/** Hook public keys (`whpk_...`) for Standard Webhooks `v1a` (Ed25519) signatures; several during a rotation. */
	publicKeys?: string | readonly string[];
	/** Public keys of ES256/EdDSA JWTs. */
	keySet?: KeySetSource;
	/** Allowed JWT algorithms. Default: `HS256` with secrets only; `ES256` and `EdDSA` with a key set. */
	algorithms?: readonly DeliveryAlgorithm[];
	/** Signature schemes accepted (default both). When `X-Signature` is present and `jwt` is accepted, it decides. */
	schemes?: readonly SignatureScheme[];
	/** Accepted hook ids: the JWT `aud`, or the body's `hook` for Standard Webhooks. */
	audience?: string | readonly string[];
	/** Required JWT `iss`, if set. */
	issuer?: string;
	/** Maximum age of a signature (JWT `iat`, Standard Webhooks timestamp), in seconds. Default 300. */
	toleranceSeconds?: number;
	/** Allowed clock difference with the sender for JWT `exp`/`iat`, in seconds. Default 5. */
	clockSkewSeconds?: number;
	/** Largest accepted body, in bytes. Default 1 MiB. */
	maxBodyBytes?: number;
	/** The current time in unix seconds. Default: the system clock. */
	now?: Clock;
}

/** Options checked once and turned into keys, ready for many verifications on one platform. */
export interface PreparedVerifier {
	secrets: HmacSecret[];
	publicKeys: PublicJwk[];
	keySet?: KeySetSource;
	keyCache: KeyCache;
	algorithms: DeliveryAlgorithm[];
	jwtEnabled: boolean;
	standardWebhooksEnabled: boolean;
	audience?: string[];
	issuer?: string;
	toleranceSeconds: number;
	clockSkewSeconds: number;
	maxBodyBytes: number;
	now: () => number;
}

/** A verified delivery and how it was verified. */
export interface VerifiedDelivery {
	event: DeliveryEvent;
	scheme: SignatureScheme;
	/** JWT `jti`: the id of this delivery attempt (JWT scheme only). */
	attemptId?: string;
	/** JWT `kid` (JWT scheme only). */
	keyId?: string;
}

const ALL_ALGORITHMS: readonly string[] = [...SYMMETRIC_ALGORITHMS, ...ASYMMETRIC_ALGORITHMS];

function asList<T>(value: T | readonly T[] | undefined): T[] {
	if (value === undefined) return [];
	return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

/** `value`, checked to be a positive (or, with `allowZero`, non-negative) finite number; `fallback` when undefined. */
export function positiveNumber(
	value: number | undefined,
	fallback: number,
	parameter: string,
	allowZero = false,
): number {
	if (value === undefined) return fallback;
	if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
		throw new TypeError(`${parameter} must be a ${allowZero ? 'non-negative' : 'positive'} number`);
	}
	return value;
}

export function resolveClock(now: Clock | undefined, parameter = 'now'): () => number {
	if (now === undefined) return () => Date.now() / 1000;
	if (typeof now === 'function') return now;
	if (typeof now !== 'number' || !Number.isFinite(now))
		throw new TypeError(`${parameter} must be unix seconds or a function returning them`);
	return () => now;
}

function resolveAlgorithms(options: CoreVerifyOptions, hasSecrets: boolean, hasKeySet: boolean): DeliveryAlgorithm[] {
	if (options.algorithms === undefined) {
		return hasKeySet ? [...ASYMMETRIC_ALGORITHMS] : hasSecrets ? [...SYMMETRIC_ALGORITHMS] : [];
	}
	const algorithms = asList(options.algorithms);
	for (const alg of algorithms) {
		if (!ALL_ALGORITHMS.includes(alg))
			throw new TypeError(`algorithms: "${String(alg)}" is not supported (use ${ALL_ALGORITHMS.join(', ')})`);
		const symmetric = isSymmetricAlgorithm(alg);
		// A public key must never be usable as an HMAC secret (algorithm confusion).
		if (symmetric && hasKeySet)
			throw new TypeError(
				`algorithms: ${alg} cannot be allowed together with jwks/jwksUrl (public keys are never HMAC secrets)`,
			);
		if (symmetric && !hasSecrets) throw new TypeError(`algorithms: ${alg} needs secrets`);
		if (!symmetric && !hasKeySet) throw new TypeError(`algorithms: ${alg} needs jwks or jwksUrl`);
	}
	return algorithms;
}

/** Checks options once: every mistake is a TypeError that names the option, never showing a secret. */
export function prepareVerifier(options: CoreVerifyOptions, platform: PlatformCrypto): PreparedVerifier {
	if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
	const secrets = asList(options.secrets).map(
		(secret, index) => new HmacSecret(decodeHookSecret(secret, `secrets[${index}]`), platform),
	);
	const publicKeys = asList(options.publicKeys).map((key, index) => decodeHookPublicKey(key, `publicKeys[${index}]`));
	const keySet = options.keySet;
	if (secrets.length === 0 && publicKeys.length === 0 && !keySet)
		throw new TypeError('Configure at least one of secrets, publicKeys, jwks or jwksUrl');
	const algorithms = resolveAlgorithms(options, secrets.length > 0, keySet !== undefined);

	const schemes = options.schemes === undefined ? ['jwt', 'standard-webhooks'] : asList(options.schemes);
	for (const scheme of schemes) {
		if (scheme !== 'jwt' && scheme !== 'standard-webhooks')
			throw new TypeError(`schemes: unknown scheme "${String(scheme)}"`);
	}
	const jwtEnabled = schemes.includes('jwt') && algorithms.length > 0;
	const standardWebhooksEnabled = schemes.includes('standard-webhooks') && secrets.length + publicKeys.length > 0;
	if (!jwtEnabled && !standardWebhooksEnabled)
		throw new TypeError('schemes: no accepted scheme can be verified with the given keys');

	const audience = options.audience === undefined ? undefined : asList(options.audience);
	if (audience && (audience.length === 0 || audience.some((a) => typeof a !== 'string' || a === ''))) {
		throw new TypeError('audience must be a hook id or a non-empty list of hook ids');
	}
	if (options.issuer !== undefined && (typeof options.issuer !== 'string' || options.issuer === ''))
		throw new TypeError('issuer must be a non-empty string');

	return {
		secrets,
		publicKeys,
		keySet,
		keyCache: new KeyCache(platform),
		algorithms,
		jwtEnabled,
		standardWebhooksEnabled,
		audience,
		issuer: options.issuer,
		toleranceSeconds: positiveNumber(options.toleranceSeconds, DEFAULT_TOLERANCE_SECONDS, 'toleranceSeconds'),
		clockSkewSeconds: positiveNumber(options.clockSkewSeconds, DEFAULT_CLOCK_SKEW_SECONDS, 'clockSkewSeconds', true),
		maxBodyBytes: Math.floor(positiveNumber(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes')),
		now: resolveClock(options.now),
	};
}

interface SignatureCheck {
	scheme: SignatureScheme;
	eventId: string;
	attemptId?: string;
	keyId?: string;
}

/** The signature headers: the JWT decides when present (and accepted), else the Standard Webhooks headers. */
function* checkSignature(
	body: Uint8Array,
	headers: HeaderReader,
	verifier: PreparedVerifier,
	now: number,
): Steps<SignatureCheck> {
	const token = headers.get('x-signature');
	if (token !== undefined && token !== '' && verifier.jwtEnabled) {
		if (token.length > MAX_SIGNATURE_HEADER_LENGTH)
			refuse('malformed_signature', `X-Signature is longer than ${MAX_SIGNATURE_HEADER_LENGTH} characters`);
		const jwt = yield* verifyJwt(token, {
			algorithms: verifier.algorithms,
			secrets: verifier.secrets,
			keySet: verifier.keySet,
			keyCache: verifier.keyCache,
			audience: verifier.audience,
			issuer: verifier.issuer,
			now,
			clockSkewSeconds: verifier.clockSkewSeconds,
			toleranceSeconds: verifier.toleranceSeconds,
			mismatchDiagnostic: (evt) =>
				typeof evt === 'string'
					? unverifiedMismatchDiagnostic(body, evt, 'its JWT\'s "evt" claim', jwtMismatchCauses)
					: undefined,
		});
		// Both sides are public (a signed claim, a hash of the body as received): no secret to hide from timing.
		if ((yield* bodySha256(body, verifier.keyCache)) !== jwt.bodySha256) {
			const diagnostic = yield* changedBodyDiagnostic(body, jwt.eventId, jwt.bodySha256, verifier.keyCache);
			refuse('body_hash_mismatch', 'JWT "body_sha256" does not match the SHA-256 of the raw body', { diagnostic });
		}
		return { scheme: 'jwt', eventId: jwt.eventId, attemptId: jwt.attemptId, keyId: jwt.keyId };
	}
	const signatures = headers.getAll('webhook-signature');
	if (signatures.some((value) => value !== '') && verifier.standardWebhooksEnabled) {
		const id = headers.get('webhook-id');
		const timestamp = headers.get('webhook-timestamp');
		if (!id || !timestamp) {
			refuse(
				'missing_signature',
				`webhook-signature needs webhook-id and webhook-timestamp (missing: ${!id ? 'webhook-id' : 'webhook-timestamp'})`,
			);
		}
		yield* verifyStandardWebhooks({ id, timestamp, signatures }, body, {
			secrets: verifier.secrets,
			publicKeys: verifier.publicKeys,
			keyCache: verifier.keyCache,
			now,
			toleranceSeconds: verifier.toleranceSeconds,
			mismatchDiagnostic: () =>
				unverifiedMismatchDiagnostic(body, id, 'its webhook-id header', standardWebhooksMismatchCauses),
		});
		return { scheme: 'standard-webhooks', eventId: id };
	}
	const accepted = [
		verifier.jwtEnabled && 'X-Signature',
		verifier.standardWebhooksEnabled && 'webhook-id/webhook-timestamp/webhook-signature',
	];
	return refuse('missing_signature', `No signature: expected ${accepted.filter(Boolean).join(' or ')}`);
}

export const RESERIALIZED_FIX =
	'verify the raw request bytes: mount the verifier before any JSON body parser, or keep the raw body ' +
	'(Express: express.json({ verify: captureRawBody }))';

/** A body that is JSON: its text, its `id` (when it is an object), and the same JSON as the service writes it (compact). */
interface JsonBody {
	text: string;
	id: unknown;
	compact: string;
}

function jsonBody(body: Uint8Array): JsonBody | undefined {
	const text = lenientUtf8(body);
	try {
		const json = JSON.parse(text) as { id?: unknown } | null;
		return { text, id: json?.id, compact: JSON.stringify(json) };
	} catch {
		return undefined;
	}
}

/**
 * A JWT whose own signature matched, over a body that is JSON for the very event the JWT names, but whose bytes are
 * not the signed ones: they were certainly changed on the way. The signed SHA-256 tells how: when the same JSON written
 * compactly (as the service writes it) has that hash, only the formatting changed (a JSON body parser or a proxy
 * that re-serializes); otherwise the content differs (an edit on the way comes first; a re-serialization that also
 * reordered keys or rewrote numbers last). The event id is the signed one.
 */
function* changedBodyDiagnostic(
	body: Uint8Array,
	signedEventId: string,
	signedSha256: string,
	keyCache: KeyCache,
): Steps<string | undefined> {
	const json = jsonBody(body);
	if (json?.id !== signedEventId) return undefined;
	const start = `The body is JSON for event ${signedEventId}, the event the signature names, but its bytes are not the signed ones: `;
	if ((yield* bodySha256(utf8(json.compact), keyCache)) === signedSha256) {
		return `${start}its content is the signed one and only its formatting changed on the way, as when a JSON body parser (or a proxy) re-serialized the body; ${RESERIALIZED_FIX}`;
	}
	return (
		`${start}its content differs from the signed one (written compactly it still does not match): it was changed on the way ` +
		`(a proxy or code that edits the body, or a test that sends a changed body), or re-serialized with its keys reordered or ` +
		`its numbers rewritten (a JSON body parser: ${RESERIALIZED_FIX})`
	);
}

export const UNVERIFIED_HINT_PREFIX = 'Unverified request (nothing vouches for what it claims): ';

/**
 * Why a Standard Webhooks signature over a delivery's body may match no key, most likely first. The service writes
 * its bodies compactly: a body written otherwise was re-formatted on the way (a JSON body parser, a proxy), which
 * alone changes the signed bytes; a compact body points at the key, or at content changed on the way.
 */
function standardWebhooksMismatchCauses(json: JsonBody): string {
	if (json.text !== json.compact) {
		return (
			'the body was re-formatted on the way (it is not written compactly as the service writes it: most often a JSON body parser that ' +
			`re-serialized the body: ${RESERIALIZED_FIX}), or the secret or public key is not this hook's`
		);
	}
	return "either the secret or public key is not this hook's, or the body's content was changed on the way (a proxy or code that edits it)";
}

/** A JWT signs its claims, not the body: changed bytes fail its `body_sha256` instead, after a signature that matched. */
const jwtMismatchCauses = () => "the secret or public key is not this hook's (the one /hook/create returned for it)";

/**
 * A signature that no configured key made, on a body whose JSON `id` equals the event id the request claims
 * (`webhook-id`, or the JWT's `evt`), as a delivery's does. Anyone can send that, so the hint names no id and states
 * nothing the request claims as a fact: it is marked unverified (see {@link DeliveryError.diagnosticUnverified}).
 */
function unverifiedMismatchDiagnostic(
	body: Uint8Array,
	claimedEventId: string,
	claimedBy: string,
	causes: (json: JsonBody) => string,
): string | undefined {
	const json = jsonBody(body);
	if (json?.id !== claimedEventId) return undefined;
	return (
		`${UNVERIFIED_HINT_PREFIX}its signature matches none of the configured keys, and its body is JSON whose "id" equals ${claimedBy}, ` +
		`as a delivery's does. If the service sent it, ${causes(json)}`
	);
}

/** The signed body as an event: JSON, an event, the signed id, the audience. */
function parseEvent(body: Uint8Array, signature: SignatureCheck, verifier: PreparedVerifier): DeliveryEvent {
	// Lenient decoding would turn bytes that are not UTF-8 into U+FFFD: the event would be accepted changed.
	const text = strictUtf8(body);
	if (text === undefined) refuse('malformed_json', 'The body is not valid UTF-8');
	let json: unknown;
	try {
		json = JSON.parse(text);
	} catch {
		refuse('malformed_json', 'The body is not valid JSON');
	}
	const problem = eventProblem(json);
	if (problem) {
		const type = (json as { type?: unknown } | null)?.type;
		refuse(
			'invalid_payload',
			`${problem.startsWith('data') ? `Invalid ${String(type)} event` : 'The body is not an event'}: check "${problem}"`,
		);
	}
	const event = json as DeliveryEvent;
	if (event.id !== signature.eventId)
		refuse('event_id_mismatch', `The signed event id differs from the body's id "${event.id}"`);
	if (signature.scheme === 'standard-webhooks' && verifier.audience && !verifier.audience.includes(event.hook)) {
		refuse('audience_mismatch', `The body's hook "${event.hook}" is not one of the configured audience`);
	}
	return event;
}

function* deliverySteps(
	body: Uint8Array,
	headers: HeaderReader,
	verifier: PreparedVerifier,
	now: number,
): Steps<VerifiedDelivery> {
	if (body.byteLength > verifier.maxBodyBytes)
		refuse('body_too_large', `The body has ${body.byteLength} bytes; the limit is ${verifier.maxBodyBytes}`);
	const signature = yield* checkSignature(body, headers, verifier, now);
	const event = parseEvent(body, signature, verifier);
	return { event, scheme: signature.scheme, attemptId: signature.attemptId, keyId: signature.keyId };
}

/**
 * Verifies one delivery per the delivery contract: the signature over the exact raw bytes, then the event. Returns
 * at once when every step the platform takes is synchronous (node:crypto, secrets, an inline key set), else a
 * promise. Throws (or rejects) a {@link DeliveryError}.
 */
export function verifyDeliveryWith(
	body: Uint8Array,
	headers: HeaderReader,
	verifier: PreparedVerifier,
	now = verifier.now(),
): MaybePromise<VerifiedDelivery> {
	return runSteps(deliverySteps(body, headers, verifier, now));
}
