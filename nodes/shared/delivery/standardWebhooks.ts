import { concatBytes, decodeCanonicalBase64, textsEqual, utf8 } from './bytes';
import { refuse } from './errors';
import type { HmacSecret, KeyCache } from './keys';
import { settle, type PublicJwk, type Steps } from './platform';

export interface StandardWebhooksHeaders {
	id: string;
	timestamp: string;
	/** The `webhook-signature` values (one per header line). */
	signatures: readonly string[];
}

export interface StandardWebhooksKeys {
	/** Hook secrets for `v1` (HMAC-SHA256) signatures. */
	secrets: readonly HmacSecret[];
	/** Hook public keys for `v1a` (Ed25519) signatures. */
	publicKeys: readonly PublicJwk[];
	keyCache: KeyCache;
	/** Unix seconds (fractions allowed: they are dropped, as the reference JavaScript library does). */
	now: number;
	toleranceSeconds: number;
	/** What a developer should know when no key matches (see delivery.ts), if anything: a hint from an unverified request. */
	mismatchDiagnostic?: () => string | undefined;
}

/** More entries than any rotation needs: refusing them bounds the work an unauthenticated request can cause. */
export const MAX_SIGNATURE_ENTRIES = 10;
/**
 * Unix seconds in canonical decimal: no leading zero, sign, space, fraction or suffix; at most 12 digits. The
 * reference libraries (`standardwebhooks`, `svix`) read the header with `parseInt` and sign the number they parsed,
 * so for them a header `0123` stands for `123` and only a signature over `id.123.body` matches. Requiring the
 * canonical text makes the header exactly what is signed: whatever this accepts, they accept (a signature over
 * `id.0123.body` would pass here otherwise, and nowhere else), and a spelling they read loosely is refused here.
 */
const TIMESTAMP = /^(?:0|[1-9][0-9]{0,11})$/;

/** The signed content: `${id}.${timestamp}.` and the raw body bytes. */
export function standardWebhooksContent(id: string, timestamp: string | number, body: Uint8Array): Uint8Array {
	return concatBytes(utf8(`${id}.${timestamp}.`), body);
}

/**
 * The entries of a `webhook-signature` list by version. The list is space-delimited (a tab is not a separator); in an
 * entry, the signature is the field after the version, up to the next comma, as the reference libraries read it (so a
 * header sent on several lines, which arrives joined by ", ", still reads).
 */
export function signatureEntries(values: readonly string[]): { v1: string[]; v1a: string[] } {
	const v1: string[] = [];
	const v1a: string[] = [];
	let entries = 0;
	// One pass over each value, without intermediate lists: this runs for every request, signed or not.
	for (const value of values) {
		for (let start = 0; start < value.length;) {
			let end = value.indexOf(' ', start);
			if (end === -1) end = value.length;
			if (end > start) {
				entries += 1;
				if (entries > MAX_SIGNATURE_ENTRIES)
					refuse('malformed_signature', `webhook-signature lists more than ${MAX_SIGNATURE_ENTRIES} signatures`);
				const comma = value.indexOf(',', start);
				if (comma !== -1 && comma < end) {
					const nextComma = value.indexOf(',', comma + 1);
					const signature = value.slice(comma + 1, nextComma !== -1 && nextComma < end ? nextComma : end);
					const versionLength = comma - start;
					if (versionLength === 2 && value.startsWith('v1', start)) v1.push(signature);
					else if (versionLength === 3 && value.startsWith('v1a', start)) v1a.push(signature);
				}
			}
			start = end + 1;
		}
	}
	return { v1, v1a };
}

/**
 * Verifies Standard Webhooks headers: some `v1` entry must be the base64 HMAC-SHA256 of `id.timestamp.body` under a
 * hook secret (compared as text, in constant time), or some `v1a` entry the Ed25519 signature of the same content
 * under a hook public key; then the timestamp must lie within the tolerance of now, in whole seconds.
 */
export function* verifyStandardWebhooks(
	headers: StandardWebhooksHeaders,
	body: Uint8Array,
	keys: StandardWebhooksKeys,
): Steps<void> {
	if (!TIMESTAMP.test(headers.timestamp))
		refuse('malformed_signature', 'webhook-timestamp must be unix seconds in plain decimal digits');
	const { v1, v1a } = signatureEntries(headers.signatures);
	const prefix = `${headers.id}.${headers.timestamp}.`;
	let matched = false;
	if (v1.length > 0) {
		for (const secret of keys.secrets) {
			const expected = yield* settle(secret.mac([prefix, body], 'base64'));
			for (const signature of v1) if (textsEqual(signature, expected)) matched = true;
			if (matched) break;
		}
	}
	if (!matched && v1a.length > 0) matched = yield* matchesPublicKey(v1a, prefix, body, keys);
	if (!matched) {
		refuse('invalid_signature', 'webhook-signature matches none of the configured keys', {
			diagnostic: keys.mismatchDiagnostic?.(),
			diagnosticUnverified: true,
		});
	}

	const difference = Number(headers.timestamp) - Math.floor(keys.now);
	if (Math.abs(difference) > keys.toleranceSeconds) {
		refuse('timestamp_out_of_tolerance', `webhook-timestamp is outside the tolerance of ${keys.toleranceSeconds} s`, {
			clockDifferenceSeconds: difference,
			diagnostic: clockDiagnostic('webhook-timestamp', difference, keys.toleranceSeconds),
		});
	}
}

/** Whether some `v1a` entry is the Ed25519 signature of `prefix` and the body under some hook public key. */
function* matchesPublicKey(
	entries: readonly string[],
	prefix: string,
	body: Uint8Array,
	keys: StandardWebhooksKeys,
): Steps<boolean> {
	const offered = entries.map(decodeCanonicalBase64).filter((signature) => signature?.length === 64) as Uint8Array[];
	if (offered.length === 0) return false;
	const content = concatBytes(utf8(prefix), body);
	for (const jwk of keys.publicKeys) {
		const key = yield* keys.keyCache.publicKey(jwk, 'EdDSA');
		for (const signature of offered) {
			if (yield* settle(keys.keyCache.platform.verifySignature('EdDSA', key, content, signature))) return true;
		}
	}
	return false;
}

/** What a developer reads when a correctly signed delivery is refused for its time. */
export function clockDiagnostic(what: string, differenceSeconds: number, toleranceSeconds: number): string {
	const direction = differenceSeconds > 0 ? 'ahead of' : 'behind';
	return (
		`${what} is ${Math.abs(differenceSeconds)} s ${direction} this server's clock (tolerance ${toleranceSeconds} s): ` +
		(Math.abs(differenceSeconds) > 3600
			? 'a clock is wrong (synchronise this server with NTP), or the delivery is an old one replayed'
			: "synchronise this server's clock (NTP), or the delivery was held back on its way")
	);
}
