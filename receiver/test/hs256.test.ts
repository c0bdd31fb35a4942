import { createHmac, createSecretKey, randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { errors, jwtVerify, type JWTPayload } from 'jose';
import { DeliveryError, type DeliveryErrorCode } from '../../nodes/shared/delivery/errors';
import { verifyJwt } from '../../nodes/shared/delivery/jwt';
import { nodeCrypto } from '../../nodes/shared/delivery/nodeCrypto';
import { runSteps } from '../../nodes/shared/delivery/platform';
import { resolveVerifyOptions, type ResolvedVerifyOptions } from '../src/options';
import {
	b64u,
	CONTRACT_REQUIRED_CLAIMS,
	joseErrorCode,
	neverMoreLenient,
	nonCanonicalSpelling,
	sameAcceptanceExceptStricter,
} from './joseOracle';

/**
 * Differential test of the core's JWT verifier (`verifyJwt`, here on node:crypto) against `jose`'s `jwtVerify`. Tokens
 * are built here byte by byte (header, claims, HMAC) so that headers and claims can be anything, not only what
 * `SignJWT` would produce.
 *
 * Properties: (1) whatever ours accepts, jose accepts, with the same claims; (2) ours accepts exactly when jose does,
 * except where receiver/docs/signatures.md lists it as stricter (any `crit` header; `b64: false` without `crit`; a header or
 * claims set that is not strict UTF-8 JSON, e.g. starting with a BOM, which jose's TextDecoder strips; `evt` and
 * `body_sha256` of the wrong type; a signature segment in non-canonical base64url, which jose decodes loosely);
 * (3) when both refuse, the DeliveryError codes are the same.
 *
 * The oracle's expectations are written out here from the delivery contract, never imported from the code under
 * test: a claim dropped from the core's list must make these tests fail, not move the oracle along with it.
 */

const ISSUER = 'messenger-bot-builder';
const HOOK = 'hook_a';
const OTHER_HOOK = 'hook_b';

const whsec = (bytes: Buffer) => `whsec_${bytes.toString('base64')}`;
const SIGNING_SECRET = whsec(randomBytes(32));
const OTHER_SECRETS = [whsec(randomBytes(32)), whsec(randomBytes(24))];
const keyBytes = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64');

const hmac = (secret: string, input: string) => createHmac('sha256', keyBytes(secret)).update(input).digest();

// ---------------------------------------------------------------------------------------------------------------
// The two verifiers
// ---------------------------------------------------------------------------------------------------------------

type Outcome = { ok: true; claims: JWTPayload } | { ok: false; code: DeliveryErrorCode; message: string };

interface Settings {
	secrets: string[];
	audience?: string[];
	issuer?: string;
	/** Default 5, as the receiver's. */
	clockSkewSeconds?: number;
	/** Default 300, as the receiver's. */
	toleranceSeconds?: number;
	/** Unix seconds, maybe with milliseconds. */
	now: number;
}

interface Resolved {
	settings: Settings;
	verifier: ResolvedVerifyOptions;
}

const resolve = (settings: Settings): Resolved => ({
	settings,
	verifier: resolveVerifyOptions(
		{
			secrets: settings.secrets,
			audience: settings.audience,
			issuer: settings.issuer,
			clockSkewSeconds: settings.clockSkewSeconds,
			toleranceSeconds: settings.toleranceSeconds,
			now: settings.now,
		},
		nodeCrypto,
	),
});

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Ours: the core's `verifyJwt` (everything but `body_sha256` against a body, which jose does not know), synchronously. */
function ours(token: string, { verifier }: Resolved): Outcome {
	expect(token).toMatch(COMPACT_JWS);
	try {
		const verified = runSteps(
			verifyJwt(token, {
				algorithms: verifier.algorithms,
				secrets: verifier.secrets,
				keyCache: verifier.keyCache,
				audience: verifier.audience,
				issuer: verifier.issuer,
				now: verifier.now(),
				clockSkewSeconds: verifier.clockSkewSeconds,
				toleranceSeconds: verifier.toleranceSeconds,
			}),
		);
		if (verified instanceof Promise) throw new Error('node:crypto verification must not wait');
		return { ok: true, claims: verified.claims as JWTPayload };
	} catch (error) {
		if (error instanceof DeliveryError) return { ok: false, code: error.code, message: error.message };
		throw error;
	}
}

/** The oracle: jose's `jwtVerify` with the same expectations, each secret in turn. */
async function oracle(token: string, { settings }: Resolved): Promise<Outcome> {
	const joseOptions = {
		algorithms: ['HS256'],
		audience: settings.audience,
		issuer: settings.issuer,
		typ: 'JWT',
		currentDate: new Date(settings.now * 1000),
		clockTolerance: settings.clockSkewSeconds ?? 5,
		maxTokenAge: settings.toleranceSeconds ?? 300,
		requiredClaims: CONTRACT_REQUIRED_CLAIMS,
	};
	for (const secret of settings.secrets) {
		try {
			return { ok: true, claims: (await jwtVerify(token, createSecretKey(keyBytes(secret)), joseOptions)).payload };
		} catch (error) {
			// Another secret may match; anything else is jose's answer (its checks before the signature are the same for
			// every key, and after the signature only the matching key gets there).
			if (error instanceof errors.JWSSignatureVerificationFailed) continue;
			return { ok: false, code: joseErrorCode(error), message: (error as Error).message };
		}
	}
	return { ok: false, code: 'invalid_signature', message: 'no secret matches' };
}

// ---------------------------------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------------------------------

/** A JSON value as raw text, so that `1e999` (Infinity once parsed) can be written. */
type Raw = string;
const raw = (value: unknown): Raw => JSON.stringify(value);

function token(headerBytes: Buffer, payloadBytes: Buffer, sign: (signingInput: string) => Buffer): string {
	const signingInput = `${b64u(headerBytes)}.${b64u(payloadBytes)}`;
	return `${signingInput}.${b64u(sign(signingInput))}`;
}

function objectBytes(entries: [string, Raw][]): Buffer {
	return Buffer.from(`{${entries.map(([name, value]) => `${JSON.stringify(name)}:${value}`).join(',')}}`);
}

/** A valid delivery token issued `age` seconds before `now`. */
function deliveryToken(
	now: number,
	options: {
		age?: number;
		aud?: unknown;
		header?: Record<string, unknown>;
		secret?: string;
		omit?: readonly string[];
	} = {},
) {
	const iat = Math.floor(now) - (options.age ?? 1);
	const header = options.header ?? { alg: 'HS256', typ: 'JWT', kid: 'hs_1' };
	const claims: Record<string, unknown> = {
		iss: ISSUER,
		aud: options.aud ?? HOOK,
		iat,
		exp: iat + 300,
		jti: 'att_1',
		evt: 'evt_1',
		body_sha256: 'x'.repeat(43),
	};
	for (const name of options.omit ?? []) delete claims[name];
	return token(Buffer.from(JSON.stringify(header)), Buffer.from(JSON.stringify(claims)), (input) =>
		hmac(options.secret ?? SIGNING_SECRET, input),
	);
}

// ---------------------------------------------------------------------------------------------------------------
// Generated cases
// ---------------------------------------------------------------------------------------------------------------

/** A time claim: its type, and for numbers where it lies relative to the limits of the options. */
type TimeSpec =
	| { kind: 'number'; anchor: TimeAnchor; delta: number }
	| { kind: 'missing' | 'string' | 'null' | 'true' | 'Infinity' | '-Infinity' | 'negative' };
type TimeAnchor = 'typical' | 'ageLimit' | 'futureLimit' | 'pastLimit' | 'iat+300';

const delta = fc.oneof(
	{ weight: 4, arbitrary: fc.integer({ min: -2, max: 2 }) },
	{ weight: 1, arbitrary: fc.constantFrom(-0.5, 0.25, 0.5, -0.001) },
);
const oddTime = fc
	.constantFrom('missing', 'string', 'null', 'true', 'Infinity', '-Infinity', 'negative')
	.map((kind) => ({ kind }) as TimeSpec);
const timeAt = (...anchors: TimeAnchor[]) =>
	fc.record({
		kind: fc.constant('number' as const),
		anchor: fc.constantFrom(...anchors),
		delta,
	}) as fc.Arbitrary<TimeSpec>;

const iatSpec = fc.oneof(
	{
		weight: 8,
		arbitrary: fc.record({
			kind: fc.constant('number' as const),
			anchor: fc.constant('typical' as const),
			delta: fc.integer({ min: 0, max: 60 }),
		}),
	},
	{ weight: 3, arbitrary: timeAt('ageLimit', 'futureLimit') },
	{ weight: 1, arbitrary: oddTime },
);
const expSpec = fc.oneof(
	{ weight: 8, arbitrary: fc.constant<TimeSpec>({ kind: 'number', anchor: 'iat+300', delta: 0 }) },
	{ weight: 2, arbitrary: timeAt('pastLimit', 'iat+300') },
	{ weight: 1, arbitrary: oddTime },
);
const nbfSpec = fc.oneof(
	{ weight: 8, arbitrary: fc.constant<TimeSpec>({ kind: 'missing' }) },
	{ weight: 2, arbitrary: timeAt('futureLimit', 'typical') },
	{ weight: 1, arbitrary: oddTime },
);

type ClaimChoice = 'ok' | 'missing' | 'other' | 'number' | 'array-with' | 'array-without' | 'empty-array' | 'null';

interface ClaimsSpec {
	iat: TimeSpec;
	exp: TimeSpec;
	nbf: TimeSpec;
	aud: ClaimChoice;
	iss: ClaimChoice;
	evt: 'ok' | 'missing' | 'null';
	bodySha256: 'ok' | 'missing' | 'number';
	jti: boolean;
	/** Written before the registered claims, so a duplicate name is overridden by them (last one wins). */
	extra: Record<string, unknown>;
}

const claimsSpec: fc.Arbitrary<ClaimsSpec> = fc.record({
	iat: iatSpec,
	exp: expSpec,
	nbf: nbfSpec,
	aud: fc.oneof(
		{ weight: 12, arbitrary: fc.constant<ClaimChoice>('ok') },
		{
			weight: 3,
			arbitrary: fc.constantFrom<ClaimChoice>(
				'missing',
				'other',
				'number',
				'array-with',
				'array-without',
				'empty-array',
				'null',
			),
		},
	),
	iss: fc.oneof(
		{ weight: 12, arbitrary: fc.constant<ClaimChoice>('ok') },
		{ weight: 2, arbitrary: fc.constantFrom<ClaimChoice>('missing', 'other', 'number', 'array-with', 'null') },
	),
	evt: fc.oneof(
		{ weight: 20, arbitrary: fc.constant('ok' as const) },
		{ weight: 1, arbitrary: fc.constantFrom('missing' as const, 'null' as const) },
	),
	bodySha256: fc.oneof(
		{ weight: 20, arbitrary: fc.constant('ok' as const) },
		{ weight: 1, arbitrary: fc.constantFrom('missing' as const, 'number' as const) },
	),
	jti: fc.boolean(),
	extra: fc.oneof(
		{ weight: 3, arbitrary: fc.constant({}) },
		{
			weight: 1,
			arbitrary: fc.dictionary(
				fc.oneof(fc.string({ maxLength: 5 }), fc.constantFrom('iat', 'exp', 'aud', '__proto__', 'constructor', 'crit')),
				fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string({ unit: 'binary', maxLength: 6 })),
				{ maxKeys: 3 },
			),
		},
	),
});

type PayloadShape =
	| 'object'
	| 'array'
	| 'null'
	| 'number'
	| 'string'
	| 'true'
	| 'truncated'
	| 'garbage'
	| 'invalid-utf8'
	| 'bom'
	| 'double-bom'
	| 'whitespace';

const payloadShape = fc.oneof(
	{ weight: 30, arbitrary: fc.constant<PayloadShape>('object') },
	{
		weight: 5,
		arbitrary: fc.constantFrom<PayloadShape>(
			'array',
			'null',
			'number',
			'string',
			'true',
			'truncated',
			'garbage',
			'invalid-utf8',
			'bom',
			'double-bom',
			'whitespace',
		),
	},
);

/** Byte sequences that are not UTF-8: a stray byte, an overlong NUL, a surrogate, past U+10FFFF, a cut sequence. */
const INVALID_UTF8 = [[0xff], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82]];

type Typ =
	| 'absent'
	| 'JWT'
	| 'jwt'
	| 'application/jwt'
	| 'application/JWT'
	| 'at+jwt'
	| 'application/at+jwt'
	| 'JOSE'
	| 'number'
	| 'null'
	| 'array';
type Crit = 'none' | 'b64-true' | 'b64-false' | 'x' | 'empty' | 'string' | 'null';

interface HeaderSpec {
	typ: Typ;
	crit: Crit;
	/** `b64: false` without `crit`: an unprotected extension nobody must act upon. */
	strayB64: boolean;
	kid: 'absent' | 'string' | 'number';
	extra: Record<string, unknown>;
	encoding: 'json' | 'bom' | 'not-json' | 'array' | 'invalid-utf8';
}

const headerSpec: fc.Arbitrary<HeaderSpec> = fc.record({
	typ: fc.oneof(
		{ weight: 20, arbitrary: fc.constant<Typ>('JWT') },
		{
			weight: 4,
			arbitrary: fc.constantFrom<Typ>(
				'absent',
				'jwt',
				'application/jwt',
				'application/JWT',
				'at+jwt',
				'application/at+jwt',
				'JOSE',
				'number',
				'null',
				'array',
			),
		},
	),
	crit: fc.oneof(
		{ weight: 25, arbitrary: fc.constant<Crit>('none') },
		{ weight: 3, arbitrary: fc.constantFrom<Crit>('b64-true', 'b64-false', 'x', 'empty', 'string', 'null') },
	),
	strayB64: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
	kid: fc.constantFrom('absent', 'string', 'string', 'number'),
	extra: fc.oneof(
		{ weight: 3, arbitrary: fc.constant({}) },
		{ weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }) },
	),
	encoding: fc.oneof(
		{ weight: 20, arbitrary: fc.constant('json' as const) },
		{
			weight: 1,
			arbitrary: fc.constantFrom('bom' as const, 'not-json' as const, 'array' as const, 'invalid-utf8' as const),
		},
	),
});

/** `non-canonical`: the valid MAC, its last base64url character spelled with other unused bits (the same bytes). */
type Signature = 'valid' | 'other-secret' | 'truncated' | 'extended' | 'empty' | 'bit-flipped' | 'non-canonical';
/** Which secrets the receiver is configured with; the token is signed with SIGNING_SECRET unless `signature` says otherwise. */
type Keys = 'signing' | 'other' | 'other-then-signing' | 'two-others';

interface Case {
	header: HeaderSpec;
	claims: ClaimsSpec;
	payload: PayloadShape;
	invalidUtf8: number;
	signature: Signature;
	keys: Keys;
	audience: 'unset' | 'one' | 'two';
	issuer: boolean;
	clockSkewSeconds: number;
	toleranceSeconds: number;
	nowMs: number;
}

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
	header: headerSpec,
	claims: claimsSpec,
	payload: payloadShape,
	invalidUtf8: fc.nat({ max: INVALID_UTF8.length - 1 }),
	signature: fc.oneof(
		{ weight: 25, arbitrary: fc.constant<Signature>('valid') },
		{
			weight: 3,
			arbitrary: fc.constantFrom<Signature>(
				'other-secret',
				'truncated',
				'extended',
				'empty',
				'bit-flipped',
				'non-canonical',
			),
		},
	),
	keys: fc.oneof(
		{ weight: 8, arbitrary: fc.constant<Keys>('signing') },
		{ weight: 4, arbitrary: fc.constant<Keys>('other-then-signing') },
		{ weight: 1, arbitrary: fc.constantFrom<Keys>('other', 'two-others') },
	),
	audience: fc.constantFrom('unset', 'one', 'one', 'two'),
	issuer: fc.boolean(),
	clockSkewSeconds: fc.oneof(
		{ weight: 5, arbitrary: fc.integer({ min: 0, max: 10 }) },
		{ weight: 1, arbitrary: fc.constantFrom(0.5, 2.75) },
	),
	toleranceSeconds: fc.oneof(
		{ weight: 3, arbitrary: fc.integer({ min: 1, max: 600 }) },
		{ weight: 2, arbitrary: fc.constantFrom(1, 60, 300, 301, 600) },
	),
	// Whole seconds or not: jose counts whole seconds (Math.floor of its currentDate).
	nowMs: fc.oneof(
		fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }).map((seconds) => seconds * 1000),
		fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
	),
});

function settingsOf(c: Case): Settings {
	const others = c.keys === 'two-others' ? OTHER_SECRETS : [OTHER_SECRETS[0]];
	return {
		secrets:
			c.keys === 'signing'
				? [SIGNING_SECRET]
				: c.keys === 'other-then-signing'
					? [OTHER_SECRETS[0], SIGNING_SECRET]
					: others,
		audience: c.audience === 'unset' ? undefined : c.audience === 'one' ? [HOOK] : [OTHER_HOOK, HOOK],
		issuer: c.issuer ? ISSUER : undefined,
		clockSkewSeconds: c.clockSkewSeconds,
		toleranceSeconds: c.toleranceSeconds,
		now: c.nowMs / 1000,
	};
}

function headerBytes(spec: HeaderSpec): Buffer {
	const header: Record<string, unknown> = { ...spec.extra, alg: 'HS256' };
	const odd: Partial<Record<Typ, unknown>> = { number: 1, null: null, array: ['JWT'] };
	if (spec.typ === 'absent') delete header.typ;
	else header.typ = spec.typ in odd ? odd[spec.typ] : spec.typ;
	if (spec.kid !== 'absent') header.kid = spec.kid === 'string' ? 'hs_1' : 7;
	if (spec.strayB64) header.b64 = false;
	const crit = { 'b64-true': ['b64'], 'b64-false': ['b64'], x: ['x'], empty: [], string: 'b64', null: null }[
		spec.crit as string
	];
	if (spec.crit === 'none') delete header.crit;
	else header.crit = crit;
	if (spec.crit === 'b64-true') header.b64 = true;
	if (spec.crit === 'b64-false') header.b64 = false;
	if (spec.crit === 'x') header.x = 1;
	const json = JSON.stringify(header);
	switch (spec.encoding) {
		case 'json':
			return Buffer.from(json);
		case 'bom':
			return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)]);
		case 'not-json':
			return Buffer.from(json.slice(0, -1));
		case 'array':
			return Buffer.from(`[${json}]`);
		case 'invalid-utf8':
			return Buffer.concat([Buffer.from('{"kid":"'), Buffer.from([0xff]), Buffer.from(`",${json.slice(1)}`)]);
	}
}

function timeValue(spec: TimeSpec, c: Case, iat: number | undefined): Raw | undefined {
	const now = Math.floor(c.nowMs / 1000);
	switch (spec.kind) {
		case 'missing':
			return undefined;
		case 'string':
			return raw(String(now));
		case 'null':
			return 'null';
		case 'true':
			return 'true';
		case 'Infinity':
			return '1e999';
		case '-Infinity':
			return '-1e999';
		case 'negative':
			return '-5';
		case 'number': {
			const base = {
				typical: now - spec.delta, // delta: the token's age
				ageLimit: now - (c.toleranceSeconds + c.clockSkewSeconds) + spec.delta,
				futureLimit: now + c.clockSkewSeconds + spec.delta,
				pastLimit: now - c.clockSkewSeconds + spec.delta,
				'iat+300': (iat ?? now) + 300 + spec.delta,
			}[spec.anchor];
			return String(base);
		}
	}
}

function claimChoice(choice: ClaimChoice, expected: string, other: string): Raw | undefined {
	switch (choice) {
		case 'ok':
			return raw(expected);
		case 'missing':
			return undefined;
		case 'other':
			return raw(other);
		case 'number':
			return '1';
		case 'array-with':
			return raw([other, expected]);
		case 'array-without':
			return raw([other]);
		case 'empty-array':
			return '[]';
		case 'null':
			return 'null';
	}
}

function claimsEntries(c: Case): [string, Raw][] {
	const spec = c.claims;
	const entries: [string, Raw][] = Object.entries(spec.extra).map(([name, value]) => [
		name,
		JSON.stringify(value) ?? 'null',
	]);
	const add = (name: string, value: Raw | undefined) => value !== undefined && entries.push([name, value]);
	add('iss', claimChoice(spec.iss, ISSUER, 'someone-else'));
	add('aud', claimChoice(spec.aud, HOOK, 'hook_z'));
	const iat = timeValue(spec.iat, c, undefined);
	add('iat', iat);
	const iatNumber = iat !== undefined && /^-?[0-9.]+$/.test(iat) ? Number(iat) : undefined;
	add('nbf', timeValue(spec.nbf, c, iatNumber));
	add('exp', timeValue(spec.exp, c, iatNumber));
	if (spec.jti) add('jti', raw('att_1'));
	add('evt', { ok: raw('evt_1'), missing: undefined, null: 'null' }[spec.evt]);
	add('body_sha256', { ok: raw('x'.repeat(43)), missing: undefined, number: '0' }[spec.bodySha256]);
	return entries;
}

function payloadBytes(c: Case): Buffer {
	const object = objectBytes(claimsEntries(c));
	const bom = Buffer.from([0xef, 0xbb, 0xbf]);
	switch (c.payload) {
		case 'object':
			return object;
		case 'array':
			return Buffer.concat([Buffer.from('['), object, Buffer.from(']')]);
		case 'null':
			return Buffer.from('null');
		case 'number':
			return Buffer.from('1795000000');
		case 'string':
			return Buffer.from(raw(object.toString()));
		case 'true':
			return Buffer.from('true');
		case 'truncated':
			return object.subarray(0, object.length - 1);
		case 'garbage':
			return Buffer.from([0x00, 0x7b, 0x80, 0x22]);
		case 'invalid-utf8':
			// Only the bytes of one string value are wrong: the rest is a valid claims set.
			return Buffer.concat([
				Buffer.from('{"note":"'),
				Buffer.from(INVALID_UTF8[c.invalidUtf8]),
				Buffer.from('",'),
				object.subarray(1),
			]);
		case 'bom':
			return Buffer.concat([bom, object]);
		case 'double-bom':
			return Buffer.concat([bom, bom, object]);
		case 'whitespace':
			return Buffer.concat([Buffer.from(' \n\t'), object, Buffer.from('\r\n ')]);
	}
}

/** The same 43-character MAC (32 bytes) in a non-canonical spelling. */
function nonCanonicalMac(signature: string): string {
	expect(signature).toHaveLength(43);
	return nonCanonicalSpelling(signature);
}

function buildToken(c: Case): string {
	const built = token(headerBytes(c.header), payloadBytes(c), (input) => {
		switch (c.signature) {
			case 'valid':
			case 'non-canonical':
				return hmac(SIGNING_SECRET, input);
			case 'other-secret':
				return hmac(OTHER_SECRETS[1], input);
			case 'truncated':
				return hmac(SIGNING_SECRET, input).subarray(0, 31);
			case 'extended':
				return Buffer.concat([hmac(SIGNING_SECRET, input), Buffer.from([0])]);
			case 'empty':
				return Buffer.alloc(0);
			case 'bit-flipped': {
				const mac = hmac(SIGNING_SECRET, input);
				mac[mac.length - 1] ^= 1;
				return mac;
			}
		}
	});
	const cut = built.lastIndexOf('.') + 1;
	const signature = built.slice(cut);
	// Every other variant is spelled canonically by construction: only this one tests the spelling.
	if (c.signature === 'non-canonical') return built.slice(0, cut) + nonCanonicalMac(signature);
	expect(b64u(Buffer.from(signature, 'base64url'))).toBe(signature);
	return built;
}

/** A header that jose reads and the core refuses before the signature: not strict UTF-8 JSON, an extension, `b64: false`. */
const headerStricter = (c: Case) =>
	c.header.crit !== 'none' ||
	c.header.encoding === 'bom' ||
	c.header.encoding === 'invalid-utf8' ||
	c.header.strayB64 ||
	c.header.extra.b64 === false;
/** A claims set that jose reads and the core refuses: starting with a BOM (jose's TextDecoder strips it). */
const payloadStricter = (c: Case) => c.payload === 'bom' && c.header.encoding === 'json';
/** Delivery claims of the wrong type: jose only knows they are required. */
const deliveryClaimsStricter = (c: Case) => c.claims.evt === 'null' || c.claims.bodySha256 === 'number';
/** A signature segment in non-canonical base64url: jose decodes it loosely (the same bytes), the core refuses it. */
const signatureStricter = (c: Case) => c.signature === 'non-canonical';
/** Where receiver/docs/signatures.md documents that the core refuses what jose would accept. */
const stricter = (c: Case) =>
	headerStricter(c) || payloadStricter(c) || deliveryClaimsStricter(c) || signatureStricter(c);

async function both(c: Case) {
	const built = buildToken(c);
	const options = resolve(settingsOf(c));
	return { token: built, ours: ours(built, options), jose: await oracle(built, options) };
}

/**
 * What ours must answer, given jose's answer: jose's, except in the stricter cases. A `crit` header is refused
 * before the signature is checked; a claims set with a BOM once the signature matches.
 */
function expectedOurs(c: Case, jose: Outcome): DeliveryErrorCode | 'accepted' {
	// The `alg` is always HS256 here, so the spelling is checked before anything jose could refuse for.
	if (signatureStricter(c)) return 'malformed_signature';
	if (headerStricter(c) && !['not-json', 'array'].includes(c.header.encoding)) return 'malformed_signature';
	if (payloadStricter(c))
		return !jose.ok && jose.code === 'invalid_signature' ? 'invalid_signature' : 'malformed_signature';
	if (deliveryClaimsStricter(c) && jose.ok) return 'invalid_claims';
	return jose.ok ? 'accepted' : jose.code;
}

const outcomeOf = (outcome: Outcome) => (outcome.ok ? 'accepted' : outcome.code);

const describeCase = (c: Case, result: { token: string; ours: Outcome; jose: Outcome }) =>
	JSON.stringify({ case: c, token: result.token, ours: result.ours, jose: result.jose }, null, 1);

// ---------------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------------

describe('core verifyJwt (HS256): examples', () => {
	const NOW = 1_795_000_000;
	const options = resolve({
		secrets: [SIGNING_SECRET],
		audience: [HOOK],
		issuer: ISSUER,
		clockSkewSeconds: 5,
		toleranceSeconds: 300,
		now: NOW,
	});

	async function expectBoth(tokenText: string, expected: DeliveryErrorCode | 'accepted') {
		const mine = ours(tokenText, options);
		const theirs = await oracle(tokenText, options);
		expect(mine.ok ? 'accepted' : mine.code).toBe(expected);
		expect(theirs.ok ? 'accepted' : theirs.code).toBe(expected);
		return mine;
	}

	it('accepts a valid delivery token and returns its claims', async () => {
		const result = await expectBoth(deliveryToken(NOW), 'accepted');
		expect(result).toEqual({
			ok: true,
			claims: expect.objectContaining({ iss: ISSUER, aud: HOOK, evt: 'evt_1', iat: NOW - 1, exp: NOW + 299 }),
		});
	});

	it('accepts a token signed with the second of several secrets', async () => {
		const rotating = resolve({ secrets: [OTHER_SECRETS[0], SIGNING_SECRET], audience: [HOOK], now: NOW });
		expect(ours(deliveryToken(NOW), rotating).ok).toBe(true);
		expect((await oracle(deliveryToken(NOW), rotating)).ok).toBe(true);
	});

	it('refuses a token signed with another secret: invalid_signature', async () => {
		await expectBoth(deliveryToken(NOW, { secret: OTHER_SECRETS[0] }), 'invalid_signature');
	});

	it('refuses an expired token (exp passed): expired', async () => {
		await expectBoth(deliveryToken(NOW, { age: 306 }), 'expired');
	});

	it('refuses a token older than the tolerance, even before its exp: expired', async () => {
		const strict = resolve({ secrets: [SIGNING_SECRET], clockSkewSeconds: 0, toleranceSeconds: 60, now: NOW });
		expect(ours(deliveryToken(NOW, { age: 61 }), strict)).toMatchObject({ ok: false, code: 'expired' });
		expect(await oracle(deliveryToken(NOW, { age: 61 }), strict)).toMatchObject({ ok: false, code: 'expired' });
		expect(ours(deliveryToken(NOW, { age: 60 }), strict).ok).toBe(true);
	});

	it('refuses a token issued in the future (beyond the clock skew): not_yet_valid', async () => {
		await expectBoth(deliveryToken(NOW, { age: -6 }), 'not_yet_valid');
		await expectBoth(deliveryToken(NOW, { age: -5 }), 'accepted');
	});

	it('refuses a token for another hook: audience_mismatch', async () => {
		await expectBoth(deliveryToken(NOW, { aud: OTHER_HOOK }), 'audience_mismatch');
	});

	it.each([
		['exp', 'invalid_claims'],
		['iat', 'invalid_claims'],
		['evt', 'invalid_claims'],
		['body_sha256', 'invalid_claims'],
		['aud', 'invalid_claims'],
	] as const)('refuses a correctly signed token without "%s" (audience configured): %s', async (claim, code) => {
		const result = await expectBoth(deliveryToken(NOW, { omit: [claim] }), code);
		expect(result).toMatchObject({ ok: false, message: `JWT claim "${claim}" is missing` });
	});

	it('accepts a token without "aud" when no audience is configured, as jose does', async () => {
		const noAudience = resolve({ secrets: [SIGNING_SECRET], now: NOW });
		const withoutAud = deliveryToken(NOW, { omit: ['aud'] });
		expect(ours(withoutAud, noAudience).ok).toBe(true);
		expect((await oracle(withoutAud, noAudience)).ok).toBe(true);
	});

	it('refuses a token signed with a non-canonical base64url signature, which jose accepts: malformed_signature', async () => {
		const canonical = deliveryToken(NOW);
		const cut = canonical.lastIndexOf('.') + 1;
		const twin = canonical.slice(0, cut) + nonCanonicalMac(canonical.slice(cut));
		expect(ours(canonical, options).ok).toBe(true);
		expect(ours(twin, options)).toMatchObject({ ok: false, code: 'malformed_signature' });
		expect((await oracle(twin, options)).ok).toBe(true);
	});

	it('refuses a token without a "typ" header: invalid_claims', async () => {
		await expectBoth(deliveryToken(NOW, { header: { alg: 'HS256', kid: 'hs_1' } }), 'invalid_claims');
	});

	it('refuses any "crit" header, even one jose would accept: malformed_signature', async () => {
		const b64True = deliveryToken(NOW, { header: { alg: 'HS256', typ: 'JWT', crit: ['b64'], b64: true } });
		expect(ours(b64True, options)).toMatchObject({ ok: false, code: 'malformed_signature' });
		expect((await oracle(b64True, options)).ok).toBe(true);
		await expectBoth(
			deliveryToken(NOW, { header: { alg: 'HS256', typ: 'JWT', crit: ['x'], x: 1 } }),
			'malformed_signature',
		);
	});

	it('refuses "b64": false without "crit" (RFC 7797), which jose reads as an ordinary token: malformed_signature', async () => {
		const stray = deliveryToken(NOW, { header: { alg: 'HS256', typ: 'JWT', b64: false } });
		expect(ours(stray, options)).toMatchObject({ ok: false, code: 'malformed_signature' });
		expect((await oracle(stray, options)).ok).toBe(true);
	});

	it('refuses a claims set with invalid UTF-8 in an extra claim, as jose does', async () => {
		const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
		const claims = JSON.parse(Buffer.from(deliveryToken(NOW).split('.')[1], 'base64url').toString('utf8'));
		const bytes = Buffer.concat([
			Buffer.from(JSON.stringify({ ...claims, note: 'X' }).replace('"X"', '"'), 'utf8'),
			Buffer.from([0xff]),
			Buffer.from('"}'),
		]);
		const json = Buffer.concat([
			Buffer.from(JSON.stringify({ ...claims }).slice(0, -1) + ',"note":"'),
			Buffer.from([0xff]),
			Buffer.from('"}'),
		]);
		expect(bytes.length).toBeGreaterThan(0);
		const tokenText = token(header, json, (input) => hmac(SIGNING_SECRET, input));
		await expectBoth(tokenText, 'malformed_signature');
	});

	it('refuses a claims set starting with a UTF-8 BOM (jose strips it): malformed_signature', async () => {
		const claims = Buffer.concat([
			Buffer.from([0xef, 0xbb, 0xbf]),
			Buffer.from(JSON.stringify({ iss: ISSUER, aud: HOOK, iat: NOW, exp: NOW + 300, evt: 'e', body_sha256: 'h' })),
		]);
		const withBom = token(Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })), claims, (input) =>
			hmac(SIGNING_SECRET, input),
		);
		expect(ours(withBom, options)).toMatchObject({ ok: false, code: 'malformed_signature' });
		expect((await oracle(withBom, options)).ok).toBe(true);
	});
});

describe('core verifyJwt (HS256) agrees with jose jwtVerify (fast-check)', () => {
	const NUM_RUNS = 300;

	const differential = { cases: caseArbitrary, both, describe: describeCase, numRuns: NUM_RUNS };

	it('is never more lenient: what it accepts, jose accepts, with the same claims', async () => {
		const accepted = await neverMoreLenient(differential, (result) => {
			if (result.ours.ok && result.jose.ok) expect(result.ours.claims).toEqual(result.jose.claims);
		});
		// The generator must produce acceptable tokens often, or this property says nothing.
		expect(accepted).toBeGreaterThan(NUM_RUNS / 20); // each run draws new cases: a bound the count stays far above
	});

	it('accepts exactly what jose accepts, except the documented stricter cases (crit, BOM, non-canonical signature), which it refuses', async () => {
		const seen = await sameAcceptanceExceptStricter(differential, stricter);
		expect(seen.bothAccept).toBeGreaterThan(NUM_RUNS / 20); // each run draws new cases: a bound the count stays far above
		expect(seen.bothReject).toBeGreaterThan(NUM_RUNS / 20); // each run draws new cases: a bound the count stays far above
		expect(seen.stricter).toBeGreaterThan(0);
	});

	it('refuses with the code jose’s error maps to', async () => {
		const aimedAt = [
			'audience_mismatch',
			'expired',
			'invalid_claims',
			'invalid_signature',
			'issuer_mismatch',
			'malformed_signature',
			'not_yet_valid',
		];
		const codes = new Set<string>();
		const sameCode = fc.asyncProperty(caseArbitrary, async (c) => {
			const result = await both(c);
			if (result.ours.ok || result.jose.ok) return;
			const expected = expectedOurs(c, result.jose);
			if (result.ours.code !== expected)
				throw new Error(`codes differ (expected ${expected}):\n${describeCase(c, result)}`);
			codes.add(expected);
		});
		// Every refusal the generator aims at must happen at least once; the rarer ones (a wrong "iss" on a token that
		// passes every check before it) can be missing from one draw of NUM_RUNS cases, so more cases are drawn until all
		// have been seen (at most ten more draws), each held to the same property.
		await fc.assert(sameCode, { numRuns: NUM_RUNS });
		for (let draw = 0; draw < 10 && !aimedAt.every((code) => codes.has(code)); draw += 1)
			await fc.assert(sameCode, { numRuns: NUM_RUNS });
		expect([...codes].sort()).toEqual(expect.arrayContaining(aimedAt));
	});

	it('agrees at the exact time limits', async () => {
		// Boundaries only: iat at the age limit or the future limit ±1, exp at now - skew ±1, nbf at now + skew ±1.
		const boundary = caseArbitrary.chain((c) =>
			fc
				.record({
					iat: timeAt('ageLimit', 'futureLimit'),
					exp: fc.oneof(fc.constant<TimeSpec>({ kind: 'number', anchor: 'iat+300', delta: 0 }), timeAt('pastLimit')),
					nbf: fc.oneof(fc.constant<TimeSpec>({ kind: 'missing' }), timeAt('futureLimit')),
				})
				.map((times) => ({
					...c,
					header: {
						...c.header,
						crit: 'none' as const,
						strayB64: false,
						extra: {},
						encoding: 'json' as const,
						typ: 'JWT' as const,
					},
					payload: 'object' as const,
					signature: 'valid' as const,
					keys: 'signing' as const,
					claims: {
						...c.claims,
						...times,
						iss: 'ok' as const,
						aud: 'ok' as const,
						evt: 'ok' as const,
						bodySha256: 'ok' as const,
					},
				})),
		);
		const outcomes = new Set<string>();
		await fc.assert(
			fc.asyncProperty(boundary, async (c) => {
				const result = await both(c);
				const mine = result.ours.ok ? 'accepted' : result.ours.code;
				const theirs = result.jose.ok ? 'accepted' : result.jose.code;
				if (mine !== theirs) throw new Error(`differ at a time limit:\n${describeCase(c, result)}`);
				outcomes.add(mine);
			}),
			{ numRuns: NUM_RUNS },
		);
		expect([...outcomes].sort()).toEqual(['accepted', 'expired', 'not_yet_valid']);
	});

	/** Cases where one part varies over all its variants and the rest is mostly valid; the answer must be the same. */
	async function agreesWhile(vary: (c: Case) => fc.Arbitrary<Case>, key: (c: Case) => string) {
		const seen = new Map<string, Set<string>>();
		await fc.assert(
			fc.asyncProperty(caseArbitrary.chain(vary), async (c) => {
				const result = await both(c);
				const expected = expectedOurs(c, result.jose);
				if (outcomeOf(result.ours) !== expected) throw new Error(`expected ${expected}:\n${describeCase(c, result)}`);
				seen.set(key(c), (seen.get(key(c)) ?? new Set()).add(expected));
			}),
			{ numRuns: NUM_RUNS },
		);
		return seen;
	}

	const validSignature = (c: Case): Case => ({
		...c,
		signature: 'valid',
		keys: c.keys === 'other-then-signing' ? c.keys : 'signing',
	});

	it('agrees on every shape of claims set (not JSON, not an object, not UTF-8, BOM, whitespace)', async () => {
		const shapes: PayloadShape[] = [
			'object',
			'array',
			'null',
			'number',
			'string',
			'true',
			'truncated',
			'garbage',
			'invalid-utf8',
			'bom',
			'double-bom',
			'whitespace',
		];
		const seen = await agreesWhile(
			(c) =>
				fc
					.record({ payload: fc.constantFrom(...shapes), invalidUtf8: fc.nat({ max: INVALID_UTF8.length - 1 }) })
					.map((varied) => ({
						...validSignature(c),
						...varied,
						header: { ...c.header, crit: 'none', strayB64: false, extra: {}, encoding: 'json' },
					})),
			(c) => c.payload,
		);
		// Each shape was tried; the valid ones were accepted at least once.
		expect([...seen.keys()].sort()).toEqual([...shapes].sort());
		for (const shape of ['object', 'whitespace'] as const) expect(seen.get(shape)).toContain('accepted');
		for (const shape of [
			'array',
			'null',
			'number',
			'string',
			'true',
			'truncated',
			'garbage',
			'invalid-utf8',
			'bom',
			'double-bom',
		] as const) {
			expect(seen.get(shape)).toContain('malformed_signature');
		}
	});

	it('agrees on every signature variant, and refuses a non-canonical spelling that jose accepts', async () => {
		const variants: Signature[] = [
			'valid',
			'other-secret',
			'truncated',
			'extended',
			'empty',
			'bit-flipped',
			'non-canonical',
		];
		const joseAcceptedNonCanonical = { count: 0 };
		const seen = await agreesWhile(
			(c) =>
				fc.constantFrom(...variants).map((signature) => {
					const varied: Case = {
						...validSignature(c),
						signature,
						payload: 'object',
						header: { ...c.header, crit: 'none', strayB64: false, extra: {}, encoding: 'json', typ: 'JWT' },
					};
					return varied;
				}),
			(c) => c.signature,
		);
		expect([...seen.keys()].sort()).toEqual([...variants].sort());
		expect([...seen.get('non-canonical')!]).toEqual(['malformed_signature']);
		expect(seen.get('valid')).toContain('accepted');
		// jose reads the non-canonical spelling as the same bytes: where the rest of the token is good, it accepts it.
		await fc.assert(
			fc.asyncProperty(caseArbitrary, async (c) => {
				const result = await both({
					...validSignature(c),
					signature: 'non-canonical',
					payload: 'object',
					header: { ...c.header, crit: 'none', strayB64: false, extra: {}, encoding: 'json' },
				});
				expect(result.ours).toMatchObject({ ok: false, code: 'malformed_signature' });
				if (result.jose.ok) joseAcceptedNonCanonical.count += 1;
			}),
			{ numRuns: 50 },
		);
		expect(joseAcceptedNonCanonical.count).toBeGreaterThan(0);
	});

	it('agrees on every header (typ, crit, b64, extra fields, encodings)', async () => {
		const seen = await agreesWhile(
			(c) =>
				fc
					.oneof(
						{
							weight: 3,
							arbitrary: fc.record({
								typ: fc.constantFrom<Typ>(
									'absent',
									'JWT',
									'jwt',
									'application/jwt',
									'application/JWT',
									'at+jwt',
									'application/at+jwt',
									'JOSE',
									'number',
									'null',
									'array',
								),
								crit: fc.constantFrom<Crit>(
									'none',
									'none',
									'none',
									'b64-true',
									'b64-false',
									'x',
									'empty',
									'string',
									'null',
								),
								strayB64: fc.constantFrom(false, false, false, true),
								encoding: fc.constantFrom(
									'json' as const,
									'json' as const,
									'bom' as const,
									'not-json' as const,
									'array' as const,
									'invalid-utf8' as const,
								),
							}),
						},
						// A good header a quarter of the time: drawn only at random, all 300 runs were refused about once in 20.
						{
							weight: 1,
							arbitrary: fc.constant({
								typ: 'JWT' as Typ,
								crit: 'none' as Crit,
								strayB64: false,
								encoding: 'json' as const,
							}),
						},
					)
					.map((header) => ({ ...validSignature(c), payload: 'object' as const, header: { ...c.header, ...header } })),
			(c) => `${c.header.typ} ${c.header.crit}`,
		);
		// Every typ and crit variant was tried, and tokens with a good header were accepted.
		const tried = [...seen.keys()].map((key) => key.split(' '));
		expect(new Set(tried.map(([typ]) => typ)).size).toBe(11);
		expect(new Set(tried.map(([, crit]) => crit)).size).toBe(7);
		expect([...seen.values()].filter((outcomes) => outcomes.has('accepted')).length).toBeGreaterThan(0);
	});
});
