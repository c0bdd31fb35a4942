import { createHash, createHmac, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { Webhook as SvixWebhook } from 'svix';
import { createVerifier, DeliveryError, sampleEvent, type VerifyOptions } from '../../receiver/src';
import { createWebVerifier } from '../../receiver/src/web';
import {
	verifyDelivery as triggerVerify,
	type VerificationKeys,
} from '../../nodes/MessengerBotBuilderTrigger/delivery';
import { propertyRuns } from '../../receiver/test/propertyRuns';

/**
 * The receiver (node:crypto and Web Crypto) and the trigger, held against outside oracles and against each other:
 * the official Standard Webhooks test cases, the shared delivery vectors, and random deliveries and mutations checked
 * against the `standardwebhooks` and `svix` packages. Every implementation must reach the same outcome on every case.
 */

type Outcome = string; // 'valid' or a refusal code

interface Settings {
	secrets?: string[];
	publicKeys?: string[];
	jwks?: { keys: unknown[] };
	algorithms?: VerifyOptions['algorithms'];
	audience?: string[];
	issuer?: string;
	toleranceSeconds?: number;
	maxBodyBytes?: number;
	now: number;
}

const outcomeOf = async (run: () => Promise<unknown>): Promise<Outcome> => {
	try {
		await run();
		return 'valid';
	} catch (error) {
		if (error instanceof DeliveryError) return error.code;
		throw error;
	}
};

/** The three implementations on one delivery: the receiver on node:crypto, on Web Crypto, and the trigger. */
async function outcomes(
	settings: Settings,
	headers: Record<string, string>,
	body: string | Uint8Array,
): Promise<Record<'receiver' | 'web' | 'trigger', Outcome>> {
	const receiver = await outcomeOf(() => createVerifier(settings as VerifyOptions).verify(body, headers));
	const web = await outcomeOf(() => createWebVerifier(settings as VerifyOptions).verify(body, headers));
	const rawBody = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
	const verdict = triggerVerify({ headers, rawBody }, settings as VerificationKeys, {
		now: settings.now,
		toleranceSeconds: settings.toleranceSeconds,
		maxBodyBytes: settings.maxBodyBytes,
	});
	return { receiver, web, trigger: verdict.ok ? 'valid' : verdict.code };
}

/** Codes that a delivery can only reach once its signature matched: the body checks. */
const AFTER_SIGNATURE = new Set([
	'valid',
	'malformed_json',
	'invalid_payload',
	'event_id_mismatch',
	'audience_mismatch',
]);

// ---------------------------------------------------------------------------------------------------------------
// The official Standard Webhooks test cases
// ---------------------------------------------------------------------------------------------------------------

interface OfficialCase {
	name: string;
	sources: string[];
	secret: string;
	now: number;
	headers: Record<string, string>;
	payload: string;
	expected: string;
	note?: string;
}

const official = JSON.parse(
	readFileSync(join(__dirname, '../fixtures/standard-webhooks/official-cases.json'), 'utf8'),
) as {
	cases: OfficialCase[];
	configuration_errors: { name: string; sources: string[]; secret: string }[];
};

/** The official payload `{"test": 2432232314}` is not an event: past its signature, a delivery is refused for its body. */
const deliveryExpectation = (c: OfficialCase) =>
	c.expected !== 'valid' ? c.expected : c.payload === '' ? 'malformed_json' : 'invalid_payload';

/** Runs an oracle at a given time (unix seconds, maybe with a fraction). */
function atTime<T>(now: number, run: () => T): T {
	const spy = jest.spyOn(Date, 'now').mockReturnValue(Math.floor(now * 1000));
	try {
		return run();
	} finally {
		spy.mockRestore();
	}
}

function oracleAccepts(
	secret: string,
	headers: Record<string, string>,
	payload: string,
	now: number,
): { standardwebhooks: boolean; svix: boolean } {
	const attempt = (verify: () => unknown) => {
		try {
			atTime(now, verify);
			return true;
		} catch {
			return false;
		}
	};
	return {
		standardwebhooks: attempt(() =>
			new StandardWebhook(secret).verify(payload, headers, { jsonParse: false } as never),
		),
		svix: attempt(() => new SvixWebhook(secret).verify(payload, headers)),
	};
}

describe('the official Standard Webhooks test cases', () => {
	it('are all here, each with its source', () => {
		expect(official.cases).toHaveLength(24);
		for (const c of official.cases) expect(c.sources.length).toBeGreaterThan(0);
		expect(official.cases.filter((c) => c.expected === 'valid').length).toBeGreaterThanOrEqual(9);
	});

	it.each(official.cases.map((c) => [c.name, c] as const))(
		'%s: receiver (node:crypto, Web Crypto) and trigger agree',
		async (_name, c) => {
			const expected = deliveryExpectation(c);
			expect(await outcomes({ secrets: [c.secret], now: c.now, toleranceSeconds: 300 }, c.headers, c.payload)).toEqual({
				receiver: expected,
				web: expected,
				trigger: expected,
			});
		},
	);

	it.each(
		official.cases.filter((c) => c.sources.some((s) => s.includes('javascript'))).map((c) => [c.name, c] as const),
	)('%s: the JavaScript library itself agrees with the fixture', (_name, c) => {
		expect(oracleAccepts(c.secret, c.headers, c.payload, c.now)).toEqual({
			standardwebhooks: c.expected === 'valid',
			svix: c.expected === 'valid',
		});
	});

	it.each(official.configuration_errors.map((c) => [c.name, c] as const))(
		'%s is a configuration error everywhere',
		(_name, c) => {
			expect(() => createVerifier({ secrets: [c.secret] })).toThrow(TypeError);
			expect(() => createWebVerifier({ secrets: [c.secret] })).toThrow(TypeError);
			expect(() => triggerVerify({ headers: {}, rawBody: '' }, { secrets: [c.secret] })).toThrow(TypeError);
			expect(() => new StandardWebhook(c.secret)).toThrow();
		},
	);
});

// ---------------------------------------------------------------------------------------------------------------
// The shared delivery vectors
// ---------------------------------------------------------------------------------------------------------------

interface Vector {
	name: string;
	verifier: Settings;
	request: { headers: Record<string, string>; body: string };
	expected: { valid: true } | { valid: false; error: string };
}

const vectorDir = join(__dirname, '../fixtures/deliveries');
const vectors = readdirSync(vectorDir)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => JSON.parse(readFileSync(join(vectorDir, file), 'utf8')) as Vector);

describe('the shared delivery vectors', () => {
	it.each(vectors.map((v) => [v.name, v] as const))(
		"%s: every implementation reaches the vector's outcome",
		async (_name, vector) => {
			const expected = vector.expected.valid ? 'valid' : vector.expected.error;
			expect(await outcomes(vector.verifier, vector.request.headers, vector.request.body)).toEqual({
				receiver: expected,
				web: expected,
				trigger: expected,
			});
		},
	);
});

// ---------------------------------------------------------------------------------------------------------------
// Random deliveries and mutations against standardwebhooks and svix
// ---------------------------------------------------------------------------------------------------------------

const TOLERANCE = 300;

interface RandomCase {
	secret: Uint8Array;
	prefixed: boolean;
	padded: boolean;
	id: string;
	timestamp: number;
	nowOffset: number;
	nowFraction: number;
	body: string;
	bodyChange: 'none' | 'appended-space' | 'other-id' | 're-serialized';
	timestampForm: TimestampForm;
	/**
	 * What the HMAC covers: the timestamp's digits (what the official libraries sign: they `parseInt` the header and
	 * sign the number), or the header's text exactly as sent (which differs when the text is not canonical).
	 */
	signedTimestamp: 'digits' | 'header-text';
	entryForm:
		'v1' | 'trailing-comma' | 'extra-comma-field' | 'upper-case' | 'unpadded' | 'space-after-comma' | 'v1a' | 'absent';
	separator: ' ' | '  ' | '\t' | ', ';
	decoysBefore: number;
	decoysAfter: number;
	idChange: boolean;
}

type TimestampForm =
	'plain' | 'suffix' | 'leading-zero' | 'leading-zeros' | 'leading-space' | 'plus' | 'decimal' | 'next-second';
const NON_CANONICAL_TIMESTAMPS = [
	'suffix',
	'leading-zero',
	'leading-zeros',
	'leading-space',
	'plus',
	'decimal',
] as const;

const randomCase: fc.Arbitrary<RandomCase> = fc.record({
	secret: fc.uint8Array({ minLength: 16, maxLength: 64 }),
	prefixed: fc.boolean(),
	padded: fc.boolean(),
	id: fc.stringMatching(/^[A-Za-z0-9_]{1,24}$/),
	timestamp: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
	nowOffset: fc.oneof(
		fc.integer({ min: -30, max: 30 }),
		fc.integer({ min: -302, max: -298 }),
		fc.integer({ min: 298, max: 302 }),
		fc.integer({ min: -5000, max: 5000 }),
	),
	nowFraction: fc.constantFrom(0, 0.001, 0.5, 0.999),
	body: fc.oneof(fc.constant('event'), fc.json({ maxDepth: 2 }), fc.string({ unit: 'grapheme', maxLength: 40 })),
	bodyChange: fc.oneof(
		{ weight: 6, arbitrary: fc.constant('none' as const) },
		{ weight: 1, arbitrary: fc.constantFrom('appended-space' as const, 'other-id' as const, 're-serialized' as const) },
	),
	timestampForm: fc.oneof(
		{ weight: 8, arbitrary: fc.constant('plain' as const) },
		{ weight: 3, arbitrary: fc.constantFrom<TimestampForm>(...NON_CANONICAL_TIMESTAMPS, 'next-second') },
	),
	signedTimestamp: fc.constantFrom('digits' as const, 'header-text' as const),
	entryForm: fc.oneof(
		{ weight: 8, arbitrary: fc.constant('v1' as const) },
		{
			weight: 1,
			arbitrary: fc.constantFrom(
				'trailing-comma' as const,
				'extra-comma-field' as const,
				'upper-case' as const,
				'unpadded' as const,
				'space-after-comma' as const,
				'v1a' as const,
				'absent' as const,
			),
		},
	),
	separator: fc.constantFrom(' ' as const, ' ' as const, '  ' as const, '\t' as const, ', ' as const),
	decoysBefore: fc.oneof(
		{ weight: 4, arbitrary: fc.nat({ max: 2 }) },
		{ weight: 1, arbitrary: fc.integer({ min: 3, max: 11 }) },
	),
	decoysAfter: fc.nat({ max: 2 }),
	idChange: fc.oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

interface BuiltCase {
	secretText: string;
	headers: Record<string, string>;
	body: string;
	now: number;
}

function build(c: RandomCase): BuiltCase {
	const encoded = Buffer.from(c.secret).toString('base64');
	const secretText = (c.prefixed ? 'whsec_' : '') + (c.padded ? encoded : encoded.replace(/=+$/, ''));
	const signedBody =
		c.body === 'event' ? JSON.stringify(sampleEvent('subscriber.new', { id: c.id, hook: 'hook_1' })) : c.body;
	const timestamp = {
		plain: String(c.timestamp),
		suffix: `${c.timestamp}abc`,
		'leading-zero': `0${c.timestamp}`,
		'leading-zeros': `000${c.timestamp}`,
		'leading-space': ` ${c.timestamp}`,
		plus: `+${c.timestamp}`,
		decimal: `${c.timestamp}.0`,
		'next-second': String(c.timestamp + 1),
	}[c.timestampForm];
	const signedTimestamp = c.signedTimestamp === 'header-text' ? timestamp : String(c.timestamp);
	const mac = createHmac('sha256', c.secret).update(`${c.id}.${signedTimestamp}.${signedBody}`).digest('base64');
	const decoy = () => `v1,${randomBytes(32).toString('base64')}`;
	const entry = {
		v1: `v1,${mac}`,
		'trailing-comma': `v1,${mac},`,
		'extra-comma-field': `v1,${mac},x`,
		'upper-case': `V1,${mac}`,
		unpadded: `v1,${mac.replace(/=+$/, '')}`,
		'space-after-comma': `v1, ${mac}`,
		v1a: `v1a,${mac}`,
		absent: undefined,
	}[c.entryForm];
	const entries = [
		...Array.from({ length: c.decoysBefore }, decoy),
		...(entry === undefined ? [] : [entry]),
		...Array.from({ length: c.decoysAfter }, decoy),
	];
	const body = {
		none: signedBody,
		'appended-space': `${signedBody} `,
		'other-id': signedBody.replace(c.id, `${c.id}x`),
		're-serialized': (() => {
			try {
				return JSON.stringify(JSON.parse(signedBody), null, 1);
			} catch {
				return `${signedBody}\n`;
			}
		})(),
	}[c.bodyChange];
	const headers = {
		'webhook-id': c.idChange ? `${c.id}x` : c.id,
		'webhook-timestamp': timestamp,
		'webhook-signature': entries.join(c.separator),
	};
	return { secretText, headers, body, now: c.timestamp + c.nowOffset + c.nowFraction };
}

/**
 * Where the core is deliberately stricter than the JavaScript library (receiver/docs/signatures.md, "Stricter than the
 * oracles"): a timestamp that is not the canonical decimal text of the number the oracles sign
 * (`String(parseInt(header, 10))`: no leading zero, sign, space or suffix; at most 12 digits), more than 10 entries.
 */
function documentedStricter(built: BuiltCase): boolean {
	const timestamp = built.headers['webhook-timestamp'];
	const entries = built.headers['webhook-signature'].split(' ').filter(Boolean);
	return timestamp.length > 12 || String(Number.parseInt(timestamp, 10)) !== timestamp || entries.length > 10;
}

describe('random deliveries and mutations against standardwebhooks and svix (fast-check)', () => {
	const NUM_RUNS = propertyRuns(400);

	it('every implementation agrees with the others, is never more lenient than the oracles, and is stricter only where documented', async () => {
		const seen = { accepted: 0, refused: 0, stricter: 0 };
		await fc.assert(
			fc.asyncProperty(randomCase, async (c) => {
				const built = build(c);
				const ours = await outcomes(
					{ secrets: [built.secretText], now: built.now, toleranceSeconds: TOLERANCE },
					built.headers,
					built.body,
				);
				if (ours.web !== ours.receiver || ours.trigger !== ours.receiver)
					throw new Error(`implementations disagree: ${JSON.stringify({ ours, built })}`);
				const signatureAccepted = AFTER_SIGNATURE.has(ours.receiver);
				const oracles = oracleAccepts(built.secretText, built.headers, built.body, built.now);
				if (oracles.standardwebhooks !== oracles.svix)
					throw new Error(`the oracles disagree: ${JSON.stringify({ oracles, built })}`);
				if (signatureAccepted && !oracles.standardwebhooks)
					throw new Error(`accepted by ours only: ${JSON.stringify({ ours, built })}`);
				if (!signatureAccepted && oracles.standardwebhooks) {
					if (!documentedStricter(built))
						throw new Error(`refused by ours only, not a documented case: ${JSON.stringify({ ours, built })}`);
					seen.stricter += 1;
				} else if (signatureAccepted) seen.accepted += 1;
				else seen.refused += 1;
			}),
			{ numRuns: NUM_RUNS },
		);
		expect(seen.accepted).toBeGreaterThan(NUM_RUNS / 20); // each run draws new cases: a bound the count stays far above
		expect(seen.refused).toBeGreaterThan(NUM_RUNS / 20); // each run draws new cases: a bound the count stays far above
	});

	it('a non-canonical webhook-timestamp (leading zeros, "+", a leading space, suffixes), signed as sent or as its digits, is never accepted where the oracles refuse it', async () => {
		const seen = { signedAsSent: 0, signedDigits: 0, oraclesAccepted: 0 };
		await fc.assert(
			fc.asyncProperty(
				randomCase,
				fc.constantFrom(...NON_CANONICAL_TIMESTAMPS),
				fc.constantFrom('digits' as const, 'header-text' as const),
				async (c, timestampForm, signedTimestamp) => {
					// Otherwise a good delivery, well within the tolerance: only the timestamp's spelling and what was signed vary.
					const built = build({
						...c,
						timestampForm,
						signedTimestamp,
						bodyChange: 'none',
						entryForm: 'v1',
						separator: ' ',
						idChange: false,
						decoysBefore: 0,
						nowOffset: c.nowOffset % 200,
					});
					const ours = await outcomes(
						{ secrets: [built.secretText], now: built.now, toleranceSeconds: TOLERANCE },
						built.headers,
						built.body,
					);
					if (ours.web !== ours.receiver || ours.trigger !== ours.receiver)
						throw new Error(`implementations disagree: ${JSON.stringify({ ours, built })}`);
					const oracles = oracleAccepts(built.secretText, built.headers, built.body, built.now);
					expect(oracles.svix).toBe(oracles.standardwebhooks);
					// The oracles sign the parsed number: a signature over the header's own non-canonical text never matches.
					if (signedTimestamp === 'header-text') expect(oracles.standardwebhooks).toBe(false);
					if (oracles.standardwebhooks) seen.oraclesAccepted += 1;
					seen[signedTimestamp === 'header-text' ? 'signedAsSent' : 'signedDigits'] += 1;
					// Never more lenient than the oracles.
					if (!oracles.standardwebhooks) expect(AFTER_SIGNATURE.has(ours.receiver)).toBe(false);
					if (timestampForm === 'leading-space') {
						// Whitespace around a header value is not part of it (HTTP): ` 123` reads as `123`, as parseInt reads it.
						expect(AFTER_SIGNATURE.has(ours.receiver)).toBe(oracles.standardwebhooks);
					} else {
						// Any other non-canonical spelling is refused (documented as stricter), before the signature is looked at.
						expect(ours.receiver).toBe('malformed_signature');
					}
				},
			),
			{ numRuns: 150 },
		);
		expect(seen.signedAsSent).toBeGreaterThan(0);
		expect(seen.signedDigits).toBeGreaterThan(0);
		expect(seen.oraclesAccepted).toBeGreaterThan(0);
	});

	it("accepts every unmutated delivery whose clock lies within the tolerance, whatever the secret's spelling", async () => {
		await fc.assert(
			fc.asyncProperty(
				randomCase.map((c) => ({
					...c,
					bodyChange: 'none' as const,
					timestampForm: 'plain' as const,
					signedTimestamp: 'digits' as const,
					entryForm: 'v1' as const,
					separator: ' ' as const,
					idChange: false,
					decoysBefore: 1,
					nowOffset: c.nowOffset % 300,
				})),
				async (c) => {
					const built = build(c);
					const ours = await outcomes(
						{ secrets: [built.secretText], now: built.now, toleranceSeconds: TOLERANCE },
						built.headers,
						built.body,
					);
					expect(AFTER_SIGNATURE.has(ours.receiver)).toBe(true);
					expect(oracleAccepts(built.secretText, built.headers, built.body, built.now)).toEqual({
						standardwebhooks: true,
						svix: true,
					});
				},
			),
			{ numRuns: 100 },
		);
	});
});

// ---------------------------------------------------------------------------------------------------------------
// The disagreements the two former verifiers had, now one answer each
// ---------------------------------------------------------------------------------------------------------------

describe('cases where the former trigger and receiver verifiers disagreed', () => {
	const SECRET_BYTES = randomBytes(32);
	const SECRET = `whsec_${SECRET_BYTES.toString('base64')}`;
	const NOW = 1_800_000_000;
	const event = sampleEvent('subscriber.new', {
		id: 'evt_disagreement',
		hook: 'hook_1',
		created: '2027-01-15T08:00:00.000Z',
	});
	const body = JSON.stringify(event);
	const b64u = (bytes: Buffer) => bytes.toString('base64url');
	const claims = { iss: 'messenger-bot-builder', aud: 'hook_1', iat: NOW - 2, exp: NOW + 298, evt: event.id };

	function hs256(claimsBytes: Buffer): string {
		const input = `${b64u(Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })))}.${b64u(claimsBytes)}`;
		return `${input}.${b64u(createHmac('sha256', SECRET_BYTES).update(input).digest())}`;
	}
	const withBodyHash = () => ({ ...claims, body_sha256: createHash('sha256').update(body).digest('base64url') });
	const standardWebhooks = (timestamp: number, separator = ' ') => ({
		'webhook-id': event.id,
		'webhook-timestamp': String(timestamp),
		'webhook-signature': [
			`v1,${randomBytes(32).toString('base64')}`,
			`v1,${createHmac('sha256', SECRET_BYTES).update(`${event.id}.${timestamp}.${body}`).digest('base64')}`,
		].join(separator),
	});
	const all = (outcome: string) => ({ receiver: outcome, web: outcome, trigger: outcome });

	it('a valid HS256 JWT whose claims hold invalid UTF-8 (0xff in an extra claim): refused by all, as jose does', async () => {
		const json = JSON.stringify({ ...withBodyHash(), note: 'X' });
		const bytes = Buffer.from(json, 'utf8');
		bytes[bytes.indexOf('"X"') + 1] = 0xff;
		expect(await outcomes({ secrets: [SECRET], now: NOW }, { 'x-signature': hs256(bytes) }, body)).toEqual(
			all('malformed_signature'),
		);
	});

	it('a valid HS256 JWT longer than 8,192 characters: malformed_signature by all (the X-Signature cap); one of 8,192: valid', async () => {
		const token = (padding: number) =>
			hs256(Buffer.from(JSON.stringify({ ...withBodyHash(), padding: 'p'.repeat(padding) })));
		const over = token(9000);
		expect(over.length).toBeGreaterThan(8192);
		expect(await outcomes({ secrets: [SECRET], now: NOW }, { 'x-signature': over }, body)).toEqual(
			all('malformed_signature'),
		);
		// Each padding character adds 4/3 of a character to the token: find the padding whose token is exactly at the cap.
		let padding = 9000 - Math.floor(((over.length - 8192) * 3) / 4);
		while (token(padding).length > 8192) padding -= 1;
		while (token(padding + 1).length <= 8192) padding += 1;
		const atCap = token(padding);
		expect(atCap.length).toBeGreaterThan(8188);
		expect(atCap.length).toBeLessThanOrEqual(8192);
		expect(await outcomes({ secrets: [SECRET], now: NOW }, { 'x-signature': atCap }, body)).toEqual(all('valid'));
	});

	it('a correctly signed body with invalid UTF-8 in a string: malformed_json by all (never decoded lossily), JWT and Standard Webhooks', async () => {
		const json = JSON.stringify({
			...event,
			data: { ...event.data, subscriber: { ...event.data.subscriber, name: 'XX' } },
		});
		const bytes = Buffer.from(json, 'utf8');
		const at = bytes.indexOf('"XX"') + 1;
		bytes[at] = 0xc3; // a lead byte followed by "(": not UTF-8; lossy decoding would make it U+FFFD and accept the event
		bytes[at + 1] = 0x28;
		const jwt = hs256(
			Buffer.from(JSON.stringify({ ...claims, body_sha256: createHash('sha256').update(bytes).digest('base64url') })),
		);
		expect(await outcomes({ secrets: [SECRET], now: NOW }, { 'x-signature': jwt }, bytes)).toEqual(
			all('malformed_json'),
		);
		const mac = createHmac('sha256', SECRET_BYTES)
			.update(Buffer.concat([Buffer.from(`${event.id}.${NOW}.`), bytes]))
			.digest('base64');
		const swHeaders = { 'webhook-id': event.id, 'webhook-timestamp': String(NOW), 'webhook-signature': `v1,${mac}` };
		expect(await outcomes({ secrets: [SECRET], now: NOW }, swHeaders, bytes)).toEqual(all('malformed_json'));
		// The same bytes made valid again are accepted by all: the refusal is the UTF-8 check, not the signature.
		bytes[at] = 0x58;
		bytes[at + 1] = 0x58;
		const validMac = createHmac('sha256', SECRET_BYTES)
			.update(Buffer.concat([Buffer.from(`${event.id}.${NOW}.`), bytes]))
			.digest('base64');
		expect(
			await outcomes({ secrets: [SECRET], now: NOW }, { ...swHeaders, 'webhook-signature': `v1,${validMac}` }, bytes),
		).toEqual(all('valid'));
	});

	it('a secret without "whsec_", and one without padding: accepted by all', async () => {
		const bare = SECRET.slice('whsec_'.length);
		expect(await outcomes({ secrets: [bare], now: NOW }, standardWebhooks(NOW), body)).toEqual(all('valid'));
		expect(await outcomes({ secrets: [SECRET.replace(/=+$/, '')], now: NOW }, standardWebhooks(NOW), body)).toEqual(
			all('valid'),
		);
	});

	it('a webhook-timestamp with a leading zero, HMAC over the text as sent: refused by all, as standardwebhooks and svix refuse it', async () => {
		const timestamp = `0${NOW}`;
		const mac = createHmac('sha256', SECRET_BYTES).update(`${event.id}.${timestamp}.${body}`).digest('base64');
		const headers = { 'webhook-id': event.id, 'webhook-timestamp': timestamp, 'webhook-signature': `v1,${mac}` };
		expect(oracleAccepts(SECRET, headers, body, NOW)).toEqual({ standardwebhooks: false, svix: false });
		expect(await outcomes({ secrets: [SECRET], now: NOW }, headers, body)).toEqual(all('malformed_signature'));
		// The oracles sign parseInt's number, so they accept the digits' signature under this header; ours refuses any
		// spelling but the canonical one (receiver/docs/signatures.md, "Stricter than the oracles").
		const digitsMac = createHmac('sha256', SECRET_BYTES).update(`${event.id}.${NOW}.${body}`).digest('base64');
		const digitsSigned = { ...headers, 'webhook-signature': `v1,${digitsMac}` };
		expect(oracleAccepts(SECRET, digitsSigned, body, NOW)).toEqual({ standardwebhooks: true, svix: true });
		expect(await outcomes({ secrets: [SECRET], now: NOW }, digitsSigned, body)).toEqual(all('malformed_signature'));
		expect(await outcomes({ secrets: [SECRET], now: NOW }, standardWebhooks(NOW), body)).toEqual(all('valid'));
	});

	it('a tab-separated signature list: the valid entry is not read, by all (the list is space-delimited)', async () => {
		expect(await outcomes({ secrets: [SECRET], now: NOW }, standardWebhooks(NOW, '\t'), body)).toEqual(
			all('invalid_signature'),
		);
	});

	it('the tolerance edge in whole seconds, with the clock mid-second: 300 s passes, 301 s does not, for all', async () => {
		expect(await outcomes({ secrets: [SECRET], now: NOW + 300.6 }, standardWebhooks(NOW), body)).toEqual(all('valid'));
		expect(await outcomes({ secrets: [SECRET], now: NOW + 301.2 }, standardWebhooks(NOW), body)).toEqual(
			all('timestamp_out_of_tolerance'),
		);
		// Ahead of the clock: floor(now) is what counts, so 299.6 s ahead is 300 whole seconds (passes), 300.2 is 301.
		expect(await outcomes({ secrets: [SECRET], now: NOW - 299.6 }, standardWebhooks(NOW), body)).toEqual(all('valid'));
		expect(await outcomes({ secrets: [SECRET], now: NOW - 300.2 }, standardWebhooks(NOW), body)).toEqual(
			all('timestamp_out_of_tolerance'),
		);
	});
});
