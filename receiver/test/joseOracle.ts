import fc from 'fast-check';
import { errors } from 'jose';
import type { DeliveryErrorCode } from '../src';

/** What the differential tests against `jose` share: the contract's claims, jose's errors in our vocabulary, spellings. */

/** The claims the delivery contract requires of every delivery JWT (test/fixtures/deliveries/README.md), written out. */
export const CONTRACT_REQUIRED_CLAIMS = ['iat', 'exp', 'evt', 'body_sha256'];

export const b64u = (bytes: Buffer | string) => Buffer.from(bytes).toString('base64url');

function claimError(error: InstanceType<typeof errors.JWTClaimValidationFailed>): DeliveryErrorCode {
	const { claim, reason } = error;
	if (reason === 'missing' || reason === 'invalid') return 'invalid_claims';
	return (
		(
			{ iat: 'not_yet_valid', nbf: 'not_yet_valid', aud: 'audience_mismatch', iss: 'issuer_mismatch' } as Record<
				string,
				DeliveryErrorCode
			>
		)[claim] ?? 'invalid_claims'
	);
}

/**
 * jose's error in the delivery vocabulary; a key set's own errors (no key, or several, that may have signed) are
 * `key_not_found`. Anything that is not a verification failure is a defect of the test: it throws.
 */
export function joseErrorCode(error: unknown): DeliveryErrorCode {
	if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys)
		return 'key_not_found';
	if (error instanceof errors.JWTExpired) return 'expired';
	if (error instanceof errors.JWTClaimValidationFailed) return claimError(error);
	if (error instanceof errors.JOSEAlgNotAllowed) return 'algorithm_not_allowed';
	if (error instanceof errors.JWSSignatureVerificationFailed) return 'invalid_signature';
	if (
		error instanceof errors.JWSInvalid ||
		error instanceof errors.JWTInvalid ||
		error instanceof errors.JOSENotSupported
	)
		return 'malformed_signature';
	throw error;
}

const BASE64URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/**
 * The same bytes in a non-canonical spelling: the last base64url character of a segment whose length is not a
 * multiple of 3 bytes carries unused bits (2 for a 32-byte MAC, 4 for a 64-byte signature); flipping the lowest
 * leaves the bytes unchanged.
 */
export function nonCanonicalSpelling(segment: string): string {
	const bytes = Buffer.from(segment, 'base64url');
	expect(bytes.length % 3).not.toBe(0);
	const last = BASE64URL_ALPHABET.indexOf(segment.at(-1)!);
	const twin = segment.slice(0, -1) + BASE64URL_ALPHABET[last ^ 1];
	expect(Buffer.from(twin, 'base64url').equals(bytes)).toBe(true);
	expect(twin).not.toBe(segment);
	return twin;
}

/** One differential run: random cases, both verdicts for a case, and a description of a case for a failure. */
export interface Differential<C, R extends { ours: { ok: boolean }; jose: { ok: boolean } }> {
	cases: fc.Arbitrary<C>;
	both(c: C): Promise<R>;
	describe(c: C, result: R): string;
	numRuns: number;
}

/**
 * Never more lenient: whatever ours accepts, jose accepts, and `same` holds of the two acceptances. Returns how
 * many cases ours accepted (a property over too few accepted cases says nothing: the caller checks the count).
 */
export async function neverMoreLenient<C, R extends { ours: { ok: boolean }; jose: { ok: boolean } }>(
	d: Differential<C, R>,
	same: (result: R) => void,
): Promise<number> {
	let accepted = 0;
	await fc.assert(
		fc.asyncProperty(d.cases, async (c) => {
			const result = await d.both(c);
			if (!result.ours.ok) return;
			accepted += 1;
			if (!result.jose.ok) throw new Error(`accepted by ours only:\n${d.describe(c, result)}`);
			same(result);
		}),
		{ numRuns: d.numRuns },
	);
	return accepted;
}

/**
 * The same acceptance as jose, except the documented `stricter` cases, which ours must refuse. Returns how many
 * cases both accepted, both refused, and were stricter (the caller checks each is common enough to mean something).
 */
export async function sameAcceptanceExceptStricter<C, R extends { ours: { ok: boolean }; jose: { ok: boolean } }>(
	d: Differential<C, R>,
	stricter: (c: C) => boolean,
): Promise<{ bothAccept: number; bothReject: number; stricter: number }> {
	const seen = { bothAccept: 0, bothReject: 0, stricter: 0 };
	await fc.assert(
		fc.asyncProperty(d.cases, async (c) => {
			const result = await d.both(c);
			if (stricter(c)) {
				seen.stricter += 1;
				if (result.ours.ok) throw new Error(`a documented stricter case was accepted:\n${d.describe(c, result)}`);
				return;
			}
			if (result.ours.ok !== result.jose.ok) throw new Error(`acceptance differs:\n${d.describe(c, result)}`);
			seen[result.ours.ok ? 'bothAccept' : 'bothReject'] += 1;
		}),
		{ numRuns: d.numRuns },
	);
	return seen;
}
