import { createHmac, generateKeyPairSync } from 'node:crypto';
import {
	clockDiagnostic,
	DeliveryError,
	positiveNumber,
	prepareVerifier,
	readHeaders,
	resolveClock,
	verifyDeliveryWith,
	RESERIALIZED_FIX,
	type CoreVerifyOptions,
	type VerifiedDelivery,
} from '../../nodes/shared/delivery';
import { nodeCrypto } from '../../nodes/shared/delivery/nodeCrypto';
import { deliveryClaims, eventBody, HOOK, hs256, jwt, NOW, SECRET, SECRET_BYTES, verify } from './coreFixtures';

/**
 * What the verification core answers, word for word: every refusal's code and message, the diagnostics, and the
 * configuration errors that name the option: a mutant of the core (`npm run mutation`) that changes a refusal's
 * reason, or lets a wrong option through, fails here.
 */

const ID = 'evt_delivery';
const BODY = eventBody(ID);
const token = (claims: Record<string, unknown> = {}, header: Record<string, unknown> = {}, body = BODY, id = ID) =>
	jwt({ alg: 'HS256', typ: 'JWT', ...header }, { ...deliveryClaims(body, id), ...claims }, hs256);
const swSignature = (id: string, timestamp: string, body: string, secret = SECRET_BYTES) =>
	`v1,${createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
const sw = (id = ID, timestamp = String(NOW), body = BODY) => ({
	'webhook-id': id,
	'webhook-timestamp': timestamp,
	'webhook-signature': swSignature(id, timestamp, body),
});

/** The refusal as code, message and, when present, diagnostic and clock difference. */
function refusal(options: CoreVerifyOptions, body: string, headers: Record<string, string>) {
	try {
		verify(options, body, headers);
	} catch (error) {
		if (!(error instanceof DeliveryError)) throw error;
		return {
			code: error.code,
			message: error.message,
			...(error.diagnostic === undefined ? {} : { diagnostic: error.diagnostic }),
			...(error.clockDifferenceSeconds === undefined ? {} : { clockDifferenceSeconds: error.clockDifferenceSeconds }),
		};
	}
	throw new Error('expected a refusal, the delivery was accepted');
}

describe('JWT refusals, word for word', () => {
	const secrets = { secrets: SECRET };

	it.each([
		[
			'alg none',
			{ header: { alg: 'none' } },
			'algorithm_not_allowed',
			'JWT "alg" "none" is not allowed (allowed: HS256)',
		],
		[
			'no alg',
			{ header: { alg: undefined } },
			'algorithm_not_allowed',
			'JWT "alg" null is not allowed (allowed: HS256)',
		],
		[
			'a numeric alg',
			{ header: { alg: 256 } },
			'algorithm_not_allowed',
			'JWT "alg" 256 is not allowed (allowed: HS256)',
		],
		[
			'a crit header',
			{ header: { crit: ['b64'] } },
			'malformed_signature',
			'X-Signature has a "crit" header: no extension is supported',
		],
		[
			'b64 false',
			{ header: { b64: false } },
			'malformed_signature',
			'X-Signature has "b64": false without "crit" (RFC 7797)',
		],
		['no typ', { header: { typ: undefined } }, 'invalid_claims', 'JWT "typ" header must be "JWT"'],
		['typ JOSE', { header: { typ: 'JOSE' } }, 'invalid_claims', 'JWT "typ" header must be "JWT"'],
		[
			'typ application/jose',
			{ header: { typ: 'application/jose' } },
			'invalid_claims',
			'JWT "typ" header must be "JWT"',
		],
		['no iat', { claims: { iat: undefined } }, 'invalid_claims', 'JWT claim "iat" is missing'],
		['no exp', { claims: { exp: undefined } }, 'invalid_claims', 'JWT claim "exp" is missing'],
		['no evt', { claims: { evt: undefined } }, 'invalid_claims', 'JWT claim "evt" is missing'],
		['no body_sha256', { claims: { body_sha256: undefined } }, 'invalid_claims', 'JWT claim "body_sha256" is missing'],
		['a text iat', { claims: { iat: String(NOW) } }, 'invalid_claims', 'JWT claim "iat" is not of the expected type'],
		[
			'a text exp',
			{ claims: { exp: String(NOW + 60) } },
			'invalid_claims',
			'JWT claim "exp" is not of the expected type',
		],
		['a text nbf', { claims: { nbf: String(NOW) } }, 'invalid_claims', 'JWT claim "nbf" is not of the expected type'],
		['an empty evt', { claims: { evt: '' } }, 'invalid_claims', 'JWT claim "evt" must be the event id'],
		['a numeric evt', { claims: { evt: 5 } }, 'invalid_claims', 'JWT claim "evt" must be the event id'],
		[
			'a numeric body_sha256',
			{ claims: { body_sha256: 5 } },
			'invalid_claims',
			'JWT claim "body_sha256" must be a base64url string',
		],
		[
			'another secret',
			{ signer: 'other' },
			'invalid_signature',
			'JWT signature matches none of the configured secrets',
		],
	] as const)('%s', (_name, change, code, message) => {
		const header = 'header' in change ? change.header : {};
		const claims = 'claims' in change ? change.claims : {};
		const signature =
			'signer' in change
				? jwt({ alg: 'HS256', typ: 'JWT' }, deliveryClaims(BODY, ID), (input) =>
						createHmac('sha256', Buffer.alloc(32, 5)).update(input).digest(),
					)
				: token(claims, header);
		// A signature no secret made carries an unverified hint (its words: keysAndSignatures.test.ts); nothing else has one.
		const hint =
			'signer' in change
				? { diagnostic: expect.stringMatching(/^Unverified request \(nothing vouches for what it claims\): /) }
				: {};
		expect(refusal(secrets, BODY, { 'x-signature': signature })).toEqual({ code, message, ...hint });
	});

	it('an unreadable header, a claims set that is not an object, a non-canonical signature', () => {
		const [header, claims, signature] = token().split('.');
		const list = Buffer.from('[1]').toString('base64url');
		expect(refusal(secrets, BODY, { 'x-signature': `${list}.${claims}.${signature}` })).toEqual({
			code: 'malformed_signature',
			message: 'X-Signature has an unreadable JWT header',
		});
		const notJson = Buffer.from('{"alg":').toString('base64url');
		expect(refusal(secrets, BODY, { 'x-signature': `${notJson}.${claims}.${signature}` })).toEqual({
			code: 'malformed_signature',
			message: 'X-Signature has an unreadable JWT header',
		});
		const input = `${header}.${list}`;
		expect(refusal(secrets, BODY, { 'x-signature': `${input}.${hs256(input).toString('base64url')}` })).toEqual({
			code: 'malformed_signature',
			message: 'X-Signature is not a valid JWT: its claims set must be a top-level JSON object',
		});
		const last = signature[signature.length - 1];
		const nonCanonical = signature.slice(0, -1) + String.fromCharCode(last.charCodeAt(0) + 1);
		expect(refusal(secrets, BODY, { 'x-signature': `${header}.${claims}.${nonCanonical}` })).toEqual({
			code: 'malformed_signature',
			message: 'X-Signature has a non-canonical base64url signature',
		});
	});

	it('typ is compared as a media type', () => {
		for (const typ of ['JWT', 'jwt', 'application/jwt', 'Application/JWT']) {
			expect((verify(secrets, BODY, { 'x-signature': token({}, { typ }) }) as VerifiedDelivery).event.id).toBe(ID);
		}
	});

	it('issuer and audience: required when configured, compared exactly', () => {
		const options = { secrets: SECRET, issuer: 'mbb', audience: [HOOK, 'hook_other'] };
		expect(
			(verify(options, BODY, { 'x-signature': token({ iss: 'mbb', aud: HOOK }) }) as VerifiedDelivery).event.id,
		).toBe(ID);
		expect(
			(verify(options, BODY, { 'x-signature': token({ iss: 'mbb', aud: ['x', 'hook_other'] }) }) as VerifiedDelivery)
				.event.id,
		).toBe(ID);
		expect(refusal(options, BODY, { 'x-signature': token({ aud: HOOK }) })).toEqual({
			code: 'invalid_claims',
			message: 'JWT claim "iss" is missing',
		});
		expect(refusal(options, BODY, { 'x-signature': token({ iss: 'mbb' }) })).toEqual({
			code: 'invalid_claims',
			message: 'JWT claim "aud" is missing',
		});
		expect(refusal(options, BODY, { 'x-signature': token({ iss: 'other', aud: HOOK }) })).toEqual({
			code: 'issuer_mismatch',
			message: 'JWT "iss" is not the configured issuer',
		});
		for (const aud of ['hook_x', ['hook_x'], [], 5, { [HOOK]: true }]) {
			expect(refusal(options, BODY, { 'x-signature': token({ iss: 'mbb', aud }) })).toEqual({
				code: 'audience_mismatch',
				message: 'JWT "aud" is not one of the configured audience (hook ids)',
			});
		}
		// Without them configured, iss and aud may be anything or absent.
		expect(
			(verify({ secrets: SECRET }, BODY, { 'x-signature': token({ iss: 5, aud: 'hook_x' }) }) as VerifiedDelivery).event
				.id,
		).toBe(ID);
	});

	it('times at their exact limits: exp, nbf, iat age and iat in the future, with skew 5 and tolerance 300', () => {
		const accepted = (claims: Record<string, unknown>, now: number = NOW) =>
			(verify({ secrets: SECRET, now }, BODY, { 'x-signature': token(claims) }) as VerifiedDelivery).event.id;
		const refused = (claims: Record<string, unknown>, now: number = NOW) =>
			refusal({ secrets: SECRET, now }, BODY, { 'x-signature': token(claims) });
		// exp: valid while exp > now - skew.
		expect(accepted({ exp: NOW - 4 })).toBe(ID);
		expect(refused({ exp: NOW - 5 })).toEqual({
			code: 'expired',
			message: 'JWT is expired',
			clockDifferenceSeconds: 0,
			diagnostic: clockDiagnostic('The JWT\'s "iat"', 0, 300),
		});
		// nbf: valid while nbf <= now + skew.
		expect(accepted({ nbf: NOW + 5 })).toBe(ID);
		expect(refused({ nbf: NOW + 6 })).toEqual({
			code: 'not_yet_valid',
			message: 'JWT "nbf" lies in the future',
			clockDifferenceSeconds: 6,
			diagnostic: clockDiagnostic('The JWT\'s "nbf"', 6, 5),
		});
		// iat age: valid while now - iat - skew <= tolerance.
		expect(accepted({ iat: NOW - 305, exp: NOW + 60 })).toBe(ID);
		expect(refused({ iat: NOW - 306, exp: NOW + 60 })).toEqual({
			code: 'expired',
			message: 'JWT is expired',
			clockDifferenceSeconds: -306,
			diagnostic: clockDiagnostic('The JWT\'s "iat"', -306, 300),
		});
		// iat in the future: valid while iat - now <= skew.
		expect(accepted({ iat: NOW + 5 })).toBe(ID);
		expect(refused({ iat: NOW + 6 })).toEqual({
			code: 'not_yet_valid',
			message: 'JWT "iat" lies in the future',
			clockDifferenceSeconds: 6,
			diagnostic: clockDiagnostic('The JWT\'s "iat"', 6, 5),
		});
		// Fractions of the clock are dropped: 5.9 s after iat + skew is still within.
		expect(accepted({ iat: NOW + 5 }, NOW + 0.9)).toBe(ID);
		expect(accepted({ iat: NOW - 305, exp: NOW + 60 }, NOW + 0.9)).toBe(ID);
		// A clock skew of 0 is allowed and applies.
		expect(
			refusal({ secrets: SECRET, clockSkewSeconds: 0 }, BODY, { 'x-signature': token({ iat: NOW + 1 }) }),
		).toMatchObject({ code: 'not_yet_valid' });
	});
});

describe('Standard Webhooks refusals and the timestamp', () => {
	const options = { secrets: SECRET };

	it.each([
		['a leading zero', '0123'],
		['a sign', '+1800000000'],
		['a fraction', '1800000000.5'],
		['a suffix', '1800000000s'],
		['a prefix', 'x1800000000'],
		['13 digits', '1800000000000'],
		['empty after trimming', ' '],
	])('a timestamp with %s is malformed', (_name, timestamp) => {
		const headers = { ...sw(ID, String(NOW)), 'webhook-timestamp': timestamp };
		const expected =
			timestamp.trim() === ''
				? {
						code: 'missing_signature',
						message: 'webhook-signature needs webhook-id and webhook-timestamp (missing: webhook-timestamp)',
					}
				: { code: 'malformed_signature', message: 'webhook-timestamp must be unix seconds in plain decimal digits' };
		expect(refusal(options, BODY, headers)).toEqual(expected);
	});

	it('a timestamp of 0 and of 12 digits are read; the tolerance holds at exactly 300 s either way', () => {
		expect((verify({ ...options, now: 0 }, BODY, sw(ID, '0')) as VerifiedDelivery).event.id).toBe(ID);
		expect(
			(verify({ ...options, now: 999_999_999_999 }, BODY, sw(ID, '999999999999')) as VerifiedDelivery).event.id,
		).toBe(ID);
		for (const offset of [-300, 300]) {
			expect((verify(options, BODY, sw(ID, String(NOW + offset))) as VerifiedDelivery).event.id).toBe(ID);
		}
		expect(refusal(options, BODY, sw(ID, String(NOW - 301)))).toEqual({
			code: 'timestamp_out_of_tolerance',
			message: 'webhook-timestamp is outside the tolerance of 300 s',
			clockDifferenceSeconds: -301,
			diagnostic: clockDiagnostic('webhook-timestamp', -301, 300),
		});
		expect(refusal({ ...options, toleranceSeconds: 60 }, BODY, sw(ID, String(NOW + 61)))).toEqual({
			code: 'timestamp_out_of_tolerance',
			message: 'webhook-timestamp is outside the tolerance of 60 s',
			clockDifferenceSeconds: 61,
			diagnostic: clockDiagnostic('webhook-timestamp', 61, 60),
		});
		// The clock's fraction is dropped: 300.9 s after the timestamp is 300 whole seconds.
		expect((verify({ ...options, now: NOW + 300.9 }, BODY, sw(ID, String(NOW))) as VerifiedDelivery).event.id).toBe(ID);
	});

	it('clock diagnostics: direction, size, and the advice past one hour', () => {
		expect(clockDiagnostic('webhook-timestamp', 61, 60)).toBe(
			"webhook-timestamp is 61 s ahead of this server's clock (tolerance 60 s): synchronise this server's clock (NTP), or the delivery was held back on its way",
		);
		expect(clockDiagnostic('webhook-timestamp', -3600, 300)).toBe(
			"webhook-timestamp is 3600 s behind this server's clock (tolerance 300 s): synchronise this server's clock (NTP), or the delivery was held back on its way",
		);
		expect(clockDiagnostic('X', -3601, 300)).toBe(
			"X is 3601 s behind this server's clock (tolerance 300 s): a clock is wrong (synchronise this server with NTP), or the delivery is an old one replayed",
		);
		expect(clockDiagnostic('X', 0, 5)).toBe(
			"X is 0 s behind this server's clock (tolerance 5 s): synchronise this server's clock (NTP), or the delivery was held back on its way",
		);
	});

	it('a wrong signature over a body that is JSON for the named event: the diagnostic, marked unverified and naming no id, names the causes, most likely first', () => {
		const other = Buffer.alloc(32, 4);
		const headers = { ...sw(), 'webhook-signature': swSignature(ID, String(NOW), BODY, other) };
		const start =
			'Unverified request (nothing vouches for what it claims): its signature matches none of the configured keys, and its body is ' +
			'JSON whose "id" equals its webhook-id header, as a delivery\'s does. If the service sent it, ';
		// Written compactly, as the service writes its bodies: the key first, then content changed on the way.
		expect(JSON.stringify(JSON.parse(BODY))).toBe(BODY);
		expect(refusal(options, BODY, headers)).toEqual({
			code: 'invalid_signature',
			message: 'webhook-signature matches none of the configured keys',
			diagnostic: `${start}either the secret or public key is not this hook's, or the body's content was changed on the way (a proxy or code that edits it)`,
		});
		// Written otherwise (pretty, or one space added): re-formatted on the way first, the key second.
		for (const reformatted of [JSON.stringify(JSON.parse(BODY), null, 2), `${BODY} `]) {
			expect(refusal(options, reformatted, headers)).toEqual({
				code: 'invalid_signature',
				message: 'webhook-signature matches none of the configured keys',
				diagnostic:
					`${start}the body was re-formatted on the way (it is not written compactly as the service writes it: most often a JSON body ` +
					`parser that re-serialized the body: ${RESERIALIZED_FIX}), or the secret or public key is not this hook's`,
			});
		}
		let thrown: unknown;
		try {
			verify(options, BODY, headers);
		} catch (error) {
			thrown = error;
		}
		expect((thrown as DeliveryError).diagnosticUnverified).toBe(true);
		// A body for another event, or not JSON: nothing to say.
		expect(refusal(options, BODY, { ...headers, 'webhook-id': 'evt_other' })).toEqual({
			code: 'invalid_signature',
			message: 'webhook-signature matches none of the configured keys',
		});
		expect(refusal(options, 'not json', headers)).toEqual({
			code: 'invalid_signature',
			message: 'webhook-signature matches none of the configured keys',
		});
		expect(refusal(options, 'null', headers)).toEqual({
			code: 'invalid_signature',
			message: 'webhook-signature matches none of the configured keys',
		});
	});

	it('a genuine JWT over bytes that changed: the diagnostic says whether only the formatting or the content changed', () => {
		const start = `The body is JSON for event ${ID}, the event the signature names, but its bytes are not the signed ones: `;
		// The same JSON, formatted otherwise: written compactly it has the signed hash.
		for (const reformatted of [JSON.stringify(JSON.parse(BODY), null, 2), ` ${BODY}`]) {
			expect(refusal({ secrets: SECRET }, reformatted, { 'x-signature': token() })).toEqual({
				code: 'body_hash_mismatch',
				message: 'JWT "body_sha256" does not match the SHA-256 of the raw body',
				diagnostic: `${start}its content is the signed one and only its formatting changed on the way, as when a JSON body parser (or a proxy) re-serialized the body; ${RESERIALIZED_FIX}`,
			});
		}
		// One value changed (compact or not), or the keys reordered: the content differs, an edit on the way named first.
		const event = JSON.parse(BODY) as Record<string, unknown>;
		const reordered = JSON.stringify(Object.fromEntries(Object.entries(event).reverse()));
		expect(reordered).not.toBe(BODY);
		for (const changed of [
			JSON.stringify({ ...event, type: `${String(event.type)}!` }),
			JSON.stringify({ ...event, extra: 1 }, null, 2),
			reordered,
		]) {
			expect(refusal({ secrets: SECRET }, changed, { 'x-signature': token() })).toEqual({
				code: 'body_hash_mismatch',
				message: 'JWT "body_sha256" does not match the SHA-256 of the raw body',
				diagnostic:
					`${start}its content differs from the signed one (written compactly it still does not match): it was changed on the way ` +
					`(a proxy or code that edits the body, or a test that sends a changed body), or re-serialized with its keys reordered or ` +
					`its numbers rewritten (a JSON body parser: ${RESERIALIZED_FIX})`,
			});
		}
		expect(RESERIALIZED_FIX).toBe(
			'verify the raw request bytes: mount the verifier before any JSON body parser, or keep the raw body (Express: express.json({ verify: captureRawBody }))',
		);
	});

	it('a genuine JWT over the body of another event, or over bytes that are not JSON: no word of re-serialization', () => {
		const mismatch = {
			code: 'body_hash_mismatch',
			message: 'JWT "body_sha256" does not match the SHA-256 of the raw body',
		};
		// Only a body that is JSON for the very event the token names is said to have been changed on the way.
		for (const body of [eventBody('evt_other'), '{"id": "evt_delivery"', 'null', '[]', JSON.stringify({ id: 7 })]) {
			expect(refusal({ secrets: SECRET }, body, { 'x-signature': token() })).toStrictEqual(mismatch);
		}
	});
});

describe('which signature decides', () => {
	it('missing signatures are named by what the configuration accepts', () => {
		const ed = generateKeyPairSync('ed25519');
		const keySet = { keys: () => [{ ...(ed.publicKey.export({ format: 'jwk' }) as { kty: string }), kid: 'k' }] };
		expect(refusal({ secrets: SECRET }, BODY, {})).toEqual({
			code: 'missing_signature',
			message: 'No signature: expected X-Signature or webhook-id/webhook-timestamp/webhook-signature',
		});
		expect(refusal({ keySet }, BODY, sw())).toEqual({
			code: 'missing_signature',
			message: 'No signature: expected X-Signature',
		});
		// An empty webhook-signature is no signature: webhook-id and webhook-timestamp are not asked for.
		expect(refusal({ secrets: SECRET }, BODY, { 'webhook-signature': '' })).toEqual({
			code: 'missing_signature',
			message: 'No signature: expected X-Signature or webhook-id/webhook-timestamp/webhook-signature',
		});
		expect(refusal({ secrets: SECRET, schemes: ['standard-webhooks'] }, BODY, { 'x-signature': token() })).toEqual({
			code: 'missing_signature',
			message: 'No signature: expected webhook-id/webhook-timestamp/webhook-signature',
		});
		expect(refusal({ secrets: SECRET }, BODY, { ...sw(), 'webhook-id': '' })).toEqual({
			code: 'missing_signature',
			message: 'webhook-signature needs webhook-id and webhook-timestamp (missing: webhook-id)',
		});
		expect(
			refusal({ secrets: SECRET }, BODY, {
				'webhook-timestamp': String(NOW),
				'webhook-signature': sw()['webhook-signature'],
			}),
		).toEqual({
			code: 'missing_signature',
			message: 'webhook-signature needs webhook-id and webhook-timestamp (missing: webhook-id)',
		});
	});

	it('an empty X-Signature is no JWT: the Standard Webhooks headers decide; with JWT off, X-Signature is ignored', () => {
		expect((verify({ secrets: SECRET }, BODY, { ...sw(), 'x-signature': '' }) as VerifiedDelivery).scheme).toBe(
			'standard-webhooks',
		);
		expect(
			(
				verify({ secrets: SECRET, schemes: ['standard-webhooks'] }, BODY, {
					...sw(),
					'x-signature': 'garbage',
				}) as VerifiedDelivery
			).scheme,
		).toBe('standard-webhooks');
		// With JWT on, X-Signature decides even when the Standard Webhooks headers are valid.
		expect(refusal({ secrets: SECRET }, BODY, { ...sw(), 'x-signature': 'garbage' })).toEqual({
			code: 'malformed_signature',
			message: 'X-Signature is not a compact JWT',
		});
		// With Standard Webhooks off, its headers are not read.
		expect(refusal({ secrets: SECRET, schemes: ['jwt'] }, BODY, sw())).toEqual({
			code: 'missing_signature',
			message: 'No signature: expected X-Signature',
		});
	});

	it('X-Signature of 8192 characters is read, of 8193 refused unread', () => {
		const long = (length: number) => `${'a'.repeat(length - 4)}.b.c`;
		expect(refusal({ secrets: SECRET }, BODY, { 'x-signature': long(8192) })).toMatchObject({
			code: 'malformed_signature',
			message: 'X-Signature has an unreadable JWT header',
		});
		expect(refusal({ secrets: SECRET }, BODY, { 'x-signature': long(8193) })).toEqual({
			code: 'malformed_signature',
			message: 'X-Signature is longer than 8192 characters',
		});
	});

	it('the result names the scheme, the attempt and the key', () => {
		expect(verify({ secrets: SECRET }, BODY, { 'x-signature': token({ jti: 'a1' }, { kid: 'k1' }) })).toEqual({
			event: JSON.parse(BODY),
			scheme: 'jwt',
			attemptId: 'a1',
			keyId: 'k1',
		});
		expect(verify({ secrets: SECRET }, BODY, sw())).toEqual({
			event: JSON.parse(BODY),
			scheme: 'standard-webhooks',
			attemptId: undefined,
			keyId: undefined,
		});
	});
});

describe('the body', () => {
	const options = { secrets: SECRET };

	it('at the limit is read, one byte over is refused by size', () => {
		const size = Buffer.byteLength(BODY);
		expect((verify({ ...options, maxBodyBytes: size }, BODY, sw()) as VerifiedDelivery).event.id).toBe(ID);
		expect((verify({ ...options, maxBodyBytes: size + 0.9 }, BODY, sw()) as VerifiedDelivery).event.id).toBe(ID);
		expect(refusal({ ...options, maxBodyBytes: size - 1 }, BODY, sw())).toEqual({
			code: 'body_too_large',
			message: `The body has ${size} bytes; the limit is ${size - 1}`,
		});
		expect(refusal({ ...options, maxBodyBytes: size - 0.5 }, BODY, sw())).toEqual({
			code: 'body_too_large',
			message: `The body has ${size} bytes; the limit is ${size - 1}`,
		});
	});

	it('not UTF-8, not JSON, not an event, another event, another hook', () => {
		const signedBody = (body: string) => sw(ID, String(NOW), body);
		expect(refusal(options, '{"id": 1', signedBody('{"id": 1'))).toEqual({
			code: 'malformed_json',
			message: 'The body is not valid JSON',
		});
		// A date-time is a string: a one-element array that JavaScript would turn into the same text is not one.
		const arrayDate = BODY.replace('"created":"2027-01-15T08:00:00Z"', '"created":["2027-01-15T08:00:00Z"]');
		expect(arrayDate).not.toBe(BODY);
		expect(refusal(options, arrayDate, signedBody(arrayDate))).toEqual({
			code: 'invalid_payload',
			message: 'The body is not an event: check "created"',
		});
		// An expanded year (+YYYYYY) is a date Date.parse reads, but not the ISO 8601 date-time of the contract: the pattern
		// holds from the first character ("+00" before a valid-looking rest).
		const expandedYear = BODY.replace('"created":"2027-01-15T08:00:00Z"', '"created":"+002027-01-15T08:00:00Z"');
		expect(expandedYear).not.toBe(BODY);
		expect(Number.isNaN(Date.parse('+002027-01-15T08:00:00Z'))).toBe(false);
		expect(refusal(options, expandedYear, signedBody(expandedYear))).toEqual({
			code: 'invalid_payload',
			message: 'The body is not an event: check "created"',
		});
		const notAnEvent = JSON.stringify({ id: ID, type: 'subscriber.new' });
		expect(refusal(options, notAnEvent, signedBody(notAnEvent))).toEqual({
			code: 'invalid_payload',
			message: 'The body is not an event: check "created"',
		});
		const badData = BODY.replace('"botid":1', '"botid":""');
		expect(refusal(options, badData, signedBody(badData))).toEqual({
			code: 'invalid_payload',
			message: 'Invalid subscriber.new event: check "data.subscriber.botid"',
		});
		expect(refusal(options, 'null', signedBody('null'))).toEqual({
			code: 'invalid_payload',
			message: 'The body is not an event: check "(body)"',
		});
		const other = eventBody('evt_other');
		expect(refusal(options, other, signedBody(other))).toEqual({
			code: 'event_id_mismatch',
			message: 'The signed event id differs from the body\'s id "evt_other"',
		});
		expect(refusal({ ...options, audience: 'hook_x' }, BODY, sw())).toEqual({
			code: 'audience_mismatch',
			message: `The body's hook "${HOOK}" is not one of the configured audience`,
		});
		expect((verify({ ...options, audience: ['hook_x', HOOK] }, BODY, sw()) as VerifiedDelivery).event.hook).toBe(HOOK);
		// For JWTs the audience is the token's aud: the body's hook is not compared again.
		expect(
			(
				verify({ ...options, audience: 'hook_x' }, BODY, {
					'x-signature': token({ aud: 'hook_x' }),
				}) as VerifiedDelivery
			).event.hook,
		).toBe(HOOK);
	});

	it('bytes that are not UTF-8 are refused, not replaced', () => {
		const bytes = Buffer.concat([Buffer.from(BODY.slice(0, -2)), Buffer.from([0x22, 0xff, 0x22]), Buffer.from('}')]);
		// Signed over the exact bytes; verified through the core with a Uint8Array body.
		const signature = `v1,${createHmac('sha256', SECRET_BYTES)
			.update(Buffer.concat([Buffer.from(`${ID}.${NOW}.`), bytes]))
			.digest('base64')}`;
		const verifier = prepareVerifier({ secrets: SECRET, now: NOW }, nodeCrypto);
		expect(() =>
			verifyDeliveryWith(
				bytes,
				readHeaders({ 'webhook-id': ID, 'webhook-timestamp': String(NOW), 'webhook-signature': signature }),
				verifier,
			),
		).toThrow(expect.objectContaining({ code: 'malformed_json', message: 'The body is not valid UTF-8' }));
	});
});

describe('configuration errors name the option', () => {
	const prepare = (options: unknown) => () => prepareVerifier(options as CoreVerifyOptions, nodeCrypto);
	const ed = generateKeyPairSync('ed25519');
	const keySet = { keys: () => [ed.publicKey.export({ format: 'jwk' }) as { kty: string }] };
	const whpk = `whpk_${Buffer.from((ed.publicKey.export({ format: 'jwk' }) as { x: string }).x, 'base64url').toString('base64')}`;

	it.each([
		['no options', null, 'options must be an object'],
		['a string', 'whsec_x', 'options must be an object'],
		['no keys', {}, 'Configure at least one of secrets, publicKeys, jwks or jwksUrl'],
		[
			'an unknown algorithm',
			{ secrets: SECRET, algorithms: ['RS256'] },
			'algorithms: "RS256" is not supported (use HS256, ES256, EdDSA)',
		],
		[
			'HS256 with a key set',
			{ keySet, algorithms: ['HS256'] },
			'algorithms: HS256 cannot be allowed together with jwks/jwksUrl (public keys are never HMAC secrets)',
		],
		['HS256 without secrets', { publicKeys: whpk, algorithms: ['HS256'] }, 'algorithms: HS256 needs secrets'],
		['ES256 without a key set', { secrets: SECRET, algorithms: ['ES256'] }, 'algorithms: ES256 needs jwks or jwksUrl'],
		['an unknown scheme', { secrets: SECRET, schemes: ['jwt', 'svix'] }, 'schemes: unknown scheme "svix"'],
		[
			'JWT only with public keys only',
			{ publicKeys: whpk, schemes: ['jwt'] },
			'schemes: no accepted scheme can be verified with the given keys',
		],
		[
			'Standard Webhooks only with a key set only',
			{ keySet, schemes: ['standard-webhooks'] },
			'schemes: no accepted scheme can be verified with the given keys',
		],
		['no scheme', { secrets: SECRET, schemes: [] }, 'schemes: no accepted scheme can be verified with the given keys'],
		[
			'an empty audience list',
			{ secrets: SECRET, audience: [] },
			'audience must be a hook id or a non-empty list of hook ids',
		],
		[
			'an empty hook id',
			{ secrets: SECRET, audience: ['hook_a', ''] },
			'audience must be a hook id or a non-empty list of hook ids',
		],
		[
			'a numeric hook id',
			{ secrets: SECRET, audience: [5] },
			'audience must be a hook id or a non-empty list of hook ids',
		],
		['an empty issuer', { secrets: SECRET, issuer: '' }, 'issuer must be a non-empty string'],
		['a numeric issuer', { secrets: SECRET, issuer: 5 }, 'issuer must be a non-empty string'],
		['a zero tolerance', { secrets: SECRET, toleranceSeconds: 0 }, 'toleranceSeconds must be a positive number'],
		[
			'a negative clock skew',
			{ secrets: SECRET, clockSkewSeconds: -1 },
			'clockSkewSeconds must be a non-negative number',
		],
		['an infinite body limit', { secrets: SECRET, maxBodyBytes: Infinity }, 'maxBodyBytes must be a positive number'],
		['a text body limit', { secrets: SECRET, maxBodyBytes: '100' }, 'maxBodyBytes must be a positive number'],
		[
			'a clock that is text',
			{ secrets: SECRET, now: '1800000000' },
			'now must be unix seconds or a function returning them',
		],
		['a clock that is NaN', { secrets: SECRET, now: NaN }, 'now must be unix seconds or a function returning them'],
		[
			'a public key of 31 bytes',
			{ publicKeys: ['whpk_' + Buffer.alloc(31).toString('base64')] },
			'publicKeys[0] must be a hook public key "whpk_<base64 of 32 bytes>" (Ed25519)',
		],
		[
			'a public key without prefix',
			{ publicKeys: [Buffer.alloc(32).toString('base64')] },
			'publicKeys[0] must be a hook public key "whpk_<base64 of 32 bytes>" (Ed25519)',
		],
		[
			'a public key that is a number',
			{ publicKeys: [whpk, 5] },
			'publicKeys[1] must be a hook public key "whpk_<base64 of 32 bytes>" (Ed25519)',
		],
	])('%s', (_name, options, message) => {
		expect(prepare(options)).toThrow(new TypeError(message));
		let thrown: unknown;
		try {
			prepare(options)();
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(TypeError);
	});

	it('defaults: algorithms from the keys, both schemes, 300 s, 5 s, 1 MiB, the system clock', () => {
		const withSecrets = prepareVerifier({ secrets: SECRET }, nodeCrypto);
		expect([withSecrets.algorithms, withSecrets.jwtEnabled, withSecrets.standardWebhooksEnabled]).toEqual([
			['HS256'],
			true,
			true,
		]);
		expect([withSecrets.toleranceSeconds, withSecrets.clockSkewSeconds, withSecrets.maxBodyBytes]).toEqual([
			300,
			5,
			1024 * 1024,
		]);
		expect([withSecrets.audience, withSecrets.issuer]).toEqual([undefined, undefined]);
		const before = Date.now() / 1000;
		const read = withSecrets.now();
		expect(read).toBeGreaterThanOrEqual(before);
		expect(read).toBeLessThanOrEqual(Date.now() / 1000);
		expect(prepareVerifier({ keySet, secrets: SECRET }, nodeCrypto).algorithms).toEqual(['ES256', 'EdDSA']);
		const publicOnly = prepareVerifier({ publicKeys: whpk }, nodeCrypto);
		expect([publicOnly.algorithms, publicOnly.jwtEnabled, publicOnly.standardWebhooksEnabled]).toEqual([
			[],
			false,
			true,
		]);
		const single = prepareVerifier(
			{ secrets: SECRET, audience: HOOK, algorithms: 'HS256' as never, maxBodyBytes: 10.7 },
			nodeCrypto,
		);
		expect([single.audience, single.algorithms, single.maxBodyBytes]).toEqual([[HOOK], ['HS256'], 10]);
	});

	it('numbers and clocks', () => {
		expect(positiveNumber(undefined, 7, 'x')).toBe(7);
		expect(positiveNumber(0, 7, 'x', true)).toBe(0);
		expect(positiveNumber(0.5, 7, 'x')).toBe(0.5);
		expect(() => positiveNumber(0, 7, 'x')).toThrow(new TypeError('x must be a positive number'));
		expect(() => positiveNumber(-0.1, 7, 'x', true)).toThrow(new TypeError('x must be a non-negative number'));
		expect(() => positiveNumber(NaN, 7, 'x', true)).toThrow(new TypeError('x must be a non-negative number'));
		const clock = () => 42;
		expect(resolveClock(clock)).toBe(clock);
		expect(resolveClock(12.5)()).toBe(12.5);
		expect(() => resolveClock(Infinity, 'clock')).toThrow(
			new TypeError('clock must be unix seconds or a function returning them'),
		);
	});
});
