import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import { createLocalJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { createVerifier, DeliveryError, sampleEvent, type DeliveryErrorCode, type VerifyOptions } from '../src';
import {
	b64u,
	CONTRACT_REQUIRED_CLAIMS,
	joseErrorCode,
	neverMoreLenient,
	nonCanonicalSpelling,
	sameAcceptanceExceptStricter,
} from './joseOracle';
import { propertyRuns } from './propertyRuns';

/**
 * Differential test of ES256 and EdDSA delivery JWTs, verified through the receiver's public API (`createVerifier`
 * with an inline key set, `jwks`, as a user configures public keys) against `jose`'s `jwtVerify` with
 * `createLocalJWKSet` over the same key set. The companion of hs256.test.ts: that file holds the core's header, claims
 * set and encoding rules against jose in depth (they do not depend on the algorithm); this one holds what the
 * algorithm changes: which key of the set is chosen (kid, kty/crv, the keys' alg/use/key_ops), which algorithm is
 * pinned, what an ECDSA or Ed25519 signature may look like (ieee-p1363 or DER, high S, the spelling), and the claims
 * and time limits once more on this path.
 *
 * Properties: (1) whatever ours accepts, jose accepts, for the same event, attempt and key id; (2) ours accepts
 * exactly when jose does, except where receiver/docs/signatures.md lists it as stricter (here: a signature segment in
 * non-canonical base64url); (3) when both refuse, the codes are jose's error mapped as hs256.test.ts maps it, plus
 * jose's key set errors as `key_not_found`.
 *
 * The clock is pinned: `Date.now` returns the case's time (the verifier is configured without `now`, so it reads the
 * system clock as a user's would), and jose gets the same instant as `currentDate`.
 *
 * Malformed key sets and header kids, which the core refuses as jose does, are pinned by the examples at the end
 * ("Malformed keys and kids").
 */

const DEFAULT_ALGORITHMS = ['ES256', 'EdDSA'] as const;

const ISSUER = 'messenger-bot-builder';
const HOOK = 'hook_a';
const OTHER_HOOK = 'hook_b';
const EVENT_ID = 'evt_asymmetric_1';

/** The delivery every token is about: its id is the JWT's `evt`, its SHA-256 the `body_sha256`. */
const BODY = JSON.stringify(
	sampleEvent('subscriber.stage', { id: EVENT_ID, hook: HOOK, created: '2026-01-02T03:04:05.000Z' }),
);
const BODY_SHA256 = createHash('sha256').update(BODY).digest('base64url');

// ---------------------------------------------------------------------------------------------------------------
// Keys
// ---------------------------------------------------------------------------------------------------------------

/** Keys a set may hold: two of each delivery algorithm, and two of the right kty with the wrong curve. */
type PoolKey = 'ecA' | 'ecB' | 'edA' | 'edB' | 'p384' | 'x25519';
/** Keys that sign but are never in the set. */
type OutsideKey = 'ecOut' | 'edOut';
type KeyName = PoolKey | OutsideKey;

const pairs: Record<KeyName, { publicKey: KeyObject; privateKey: KeyObject }> = {
	ecA: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
	ecB: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
	edA: generateKeyPairSync('ed25519'),
	edB: generateKeyPairSync('ed25519'),
	p384: generateKeyPairSync('ec', { namedCurve: 'P-384' }),
	x25519: generateKeyPairSync('x25519'),
	ecOut: generateKeyPairSync('ec', { namedCurve: 'P-256' }),
	edOut: generateKeyPairSync('ed25519'),
};
const publicJwk = (name: KeyName) => pairs[name].publicKey.export({ format: 'jwk' }) as Record<string, unknown>;

/** The JWT algorithm a key is made for (`ECDH-ES` for X25519: it never signs). */
const OWN_ALG: Record<KeyName, string> = {
	ecA: 'ES256',
	ecB: 'ES256',
	ecOut: 'ES256',
	edA: 'EdDSA',
	edB: 'EdDSA',
	edOut: 'EdDSA',
	p384: 'ES384',
	x25519: 'ECDH-ES',
};
const isEc = (name: KeyName) => name === 'ecA' || name === 'ecB' || name === 'ecOut' || name === 'p384';

/** A signature by the key, as its own algorithm makes it: ECDSA (SHA-256, or SHA-384 on P-384) in ieee-p1363 or DER, or Ed25519. */
function signWith(name: KeyName, input: string, dsaEncoding: 'ieee-p1363' | 'der' = 'ieee-p1363'): Buffer {
	// X25519 cannot sign: a token "by" it is signed by a key outside the set.
	if (name === 'x25519') return signWith('edOut', input);
	const { privateKey } = pairs[name];
	if (!isEc(name)) return sign(null, Buffer.from(input), privateKey);
	return sign(name === 'p384' ? 'sha384' : 'sha256', Buffer.from(input), { key: privateKey, dsaEncoding });
}

/** The order of P-256: (r, n - s) is the other valid ECDSA signature of the same input ("high S"). */
const P256_ORDER = BigInt('0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551');

function otherS(p1363: Buffer): Buffer {
	expect(p1363).toHaveLength(64);
	const s = BigInt(`0x${p1363.subarray(32).toString('hex')}`);
	return Buffer.concat([p1363.subarray(0, 32), Buffer.from((P256_ORDER - s).toString(16).padStart(64, '0'), 'hex')]);
}

// ---------------------------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------------------------

type Kid = 'k1' | 'k2' | 'k3';
/** One member of the key set: which key, and its (well-typed) metadata. */
interface SetEntry {
	key: PoolKey;
	kid: Kid | 'absent';
	/** `own`: the key's algorithm; `other`: the other delivery algorithm; else that name. */
	alg: 'absent' | 'own' | 'other' | 'Ed25519' | 'ES384';
	use: 'absent' | 'sig' | 'enc';
	keyOps: 'absent' | 'verify' | 'sign' | 'empty';
}

const setEntry: fc.Arbitrary<SetEntry> = fc.record({
	key: fc.oneof(
		{ weight: 8, arbitrary: fc.constantFrom<PoolKey>('ecA', 'ecB', 'edA', 'edB') },
		{ weight: 1, arbitrary: fc.constantFrom<PoolKey>('p384', 'x25519') },
	),
	kid: fc.constantFrom<SetEntry['kid']>('k1', 'k2', 'k3', 'absent'),
	alg: fc.oneof(
		{ weight: 8, arbitrary: fc.constantFrom<SetEntry['alg']>('absent', 'own') },
		{ weight: 1, arbitrary: fc.constantFrom<SetEntry['alg']>('other', 'Ed25519', 'ES384') },
	),
	use: fc.oneof(
		{ weight: 8, arbitrary: fc.constantFrom<SetEntry['use']>('absent', 'sig') },
		{ weight: 1, arbitrary: fc.constant<SetEntry['use']>('enc') },
	),
	keyOps: fc.oneof(
		{ weight: 8, arbitrary: fc.constantFrom<SetEntry['keyOps']>('absent', 'verify') },
		{ weight: 1, arbitrary: fc.constantFrom<SetEntry['keyOps']>('sign', 'empty') },
	),
});

/**
 * A set as an account publishes it: keys of both algorithms under distinct kids (one without a kid), metadata that
 * allows them, in any order; most tokens signed by one of them verify.
 */
const typicalSet: fc.Arbitrary<SetEntry[]> = fc
	.shuffledSubarray(
		[
			['ecA', 'k1'],
			['edA', 'k2'],
			['ecB', 'k3'],
			['edB', 'absent'],
		] as [PoolKey, SetEntry['kid']][],
		{ minLength: 1 },
	)
	.chain((members) =>
		fc.tuple(
			...members.map(([key, kid]) =>
				fc.record({
					key: fc.constant(key),
					kid: fc.constant(kid),
					alg: fc.constantFrom<SetEntry['alg']>('absent', 'own'),
					use: fc.constantFrom<SetEntry['use']>('absent', 'sig'),
					keyOps: fc.constantFrom<SetEntry['keyOps']>('absent', 'verify'),
				}),
			),
		),
	);

function jwkOf(entry: SetEntry): Record<string, unknown> {
	const jwk = publicJwk(entry.key);
	if (entry.kid !== 'absent') jwk.kid = entry.kid;
	if (entry.alg === 'own') jwk.alg = OWN_ALG[entry.key];
	else if (entry.alg === 'other') jwk.alg = isEc(entry.key) ? 'EdDSA' : 'ES256';
	else if (entry.alg !== 'absent') jwk.alg = entry.alg;
	if (entry.use !== 'absent') jwk.use = entry.use;
	if (entry.keyOps !== 'absent') jwk.key_ops = { verify: ['verify'], sign: ['sign'], empty: [] }[entry.keyOps];
	return jwk;
}

/** A time claim: where it lies relative to the limits of the options. */
type TimeSpec = { kind: 'number'; anchor: TimeAnchor; delta: number } | { kind: 'missing' | 'string' };
type TimeAnchor = 'typical' | 'ageLimit' | 'futureLimit' | 'pastLimit' | 'iat+300';

const delta = fc.oneof(
	{ weight: 4, arbitrary: fc.integer({ min: -2, max: 2 }) },
	{ weight: 1, arbitrary: fc.constantFrom(-0.5, 0.25, 0.5) },
);
const timeAt = (...anchors: TimeAnchor[]) =>
	fc.record({
		kind: fc.constant('number' as const),
		anchor: fc.constantFrom(...anchors),
		delta,
	}) as fc.Arbitrary<TimeSpec>;
const oddTime = fc.constantFrom<TimeSpec>({ kind: 'missing' }, { kind: 'string' });

interface ClaimsSpec {
	iat: TimeSpec;
	exp: TimeSpec;
	nbf: TimeSpec;
	aud: 'ok' | 'missing' | 'other' | 'array-with' | 'array-without';
	iss: 'ok' | 'missing' | 'other';
	evt: boolean;
	bodySha256: boolean;
	jti: boolean;
}

const claimsSpec: fc.Arbitrary<ClaimsSpec> = fc.record({
	iat: fc.oneof(
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
	),
	exp: fc.oneof(
		{ weight: 8, arbitrary: fc.constant<TimeSpec>({ kind: 'number', anchor: 'iat+300', delta: 0 }) },
		{ weight: 2, arbitrary: timeAt('pastLimit', 'iat+300') },
		{ weight: 1, arbitrary: oddTime },
	),
	nbf: fc.oneof(
		{ weight: 8, arbitrary: fc.constant<TimeSpec>({ kind: 'missing' }) },
		{ weight: 2, arbitrary: timeAt('futureLimit', 'typical') },
	),
	aud: fc.oneof(
		{ weight: 12, arbitrary: fc.constant('ok' as const) },
		{
			weight: 3,
			arbitrary: fc.constantFrom('missing' as const, 'other' as const, 'array-with' as const, 'array-without' as const),
		},
	),
	iss: fc.oneof(
		{ weight: 12, arbitrary: fc.constant('ok' as const) },
		{ weight: 2, arbitrary: fc.constantFrom('missing' as const, 'other' as const) },
	),
	evt: fc.oneof({ weight: 20, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
	bodySha256: fc.oneof({ weight: 20, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
	jti: fc.boolean(),
});

/**
 * The signature segment. `der`: ECDSA in DER instead of the JWS ieee-p1363 form; `high-s`: the other valid ECDSA
 * signature (r, n - s); `non-canonical`: the valid signature, its last base64url character spelled with other unused
 * bits (the same bytes). `der` and `high-s` only apply to ECDSA signers: for Ed25519 they are `valid`.
 */
type Signature = 'valid' | 'der' | 'high-s' | 'non-canonical' | 'bit-flipped' | 'truncated' | 'extended' | 'empty';
/** Changes made after signing: a claim or a header field that the signature no longer covers. */
type Tamper = 'none' | 'payload' | 'header';
/** The header `alg`: the signer's own, the other delivery algorithm, one outside the pinned list, or none. */
type HeaderAlg = 'own' | 'other' | 'HS256' | 'none' | 'ES384' | 'Ed25519' | 'absent';
/** The header `kid` (always a string or absent here: a non-string kid is a known difference, see below). */
type HeaderKid = 'signer' | 'absent' | Kid | 'unknown';

interface Case {
	set: SetEntry[];
	/** Which key signs: a member of the set (by index), or a key outside it. */
	signer: { from: 'set'; index: number } | { from: OutsideKey };
	alg: HeaderAlg;
	kid: HeaderKid;
	typ: 'JWT' | 'absent' | 'application/jwt' | 'at+jwt';
	claims: ClaimsSpec;
	signature: Signature;
	tamper: Tamper;
	algorithms: 'unset' | 'ES256' | 'EdDSA';
	audience: 'unset' | 'one' | 'two';
	issuer: boolean;
	clockSkewSeconds: number;
	toleranceSeconds: number;
	nowMs: number;
}

const caseArbitrary: fc.Arbitrary<Case> = fc
	.record({
		set: fc.oneof(
			{ weight: 3, arbitrary: typicalSet },
			{ weight: 1, arbitrary: fc.array(setEntry, { minLength: 1, maxLength: 4 }) },
		),
		signer: fc.oneof(
			{ weight: 8, arbitrary: fc.record({ from: fc.constant('set' as const), index: fc.nat({ max: 3 }) }) },
			{ weight: 1, arbitrary: fc.record({ from: fc.constantFrom<OutsideKey>('ecOut', 'edOut') }) },
		),
		alg: fc.oneof(
			{ weight: 12, arbitrary: fc.constant<HeaderAlg>('own') },
			{ weight: 3, arbitrary: fc.constantFrom<HeaderAlg>('other', 'HS256', 'none', 'ES384', 'Ed25519', 'absent') },
		),
		kid: fc.oneof(
			{ weight: 14, arbitrary: fc.constant<HeaderKid>('signer') },
			{ weight: 4, arbitrary: fc.constantFrom<HeaderKid>('absent', 'k1', 'k2', 'k3', 'unknown') },
		),
		typ: fc.oneof(
			{ weight: 12, arbitrary: fc.constant('JWT' as const) },
			{ weight: 1, arbitrary: fc.constantFrom('absent' as const, 'application/jwt' as const, 'at+jwt' as const) },
		),
		claims: claimsSpec,
		signature: fc.oneof(
			{ weight: 24, arbitrary: fc.constant<Signature>('valid') },
			{
				weight: 6,
				arbitrary: fc.constantFrom<Signature>(
					'der',
					'high-s',
					'non-canonical',
					'bit-flipped',
					'truncated',
					'extended',
					'empty',
				),
			},
		),
		tamper: fc.oneof(
			{ weight: 12, arbitrary: fc.constant<Tamper>('none') },
			{ weight: 1, arbitrary: fc.constantFrom<Tamper>('payload', 'header') },
		),
		algorithms: fc.oneof(
			{ weight: 4, arbitrary: fc.constant('unset' as const) },
			{ weight: 1, arbitrary: fc.constantFrom('ES256' as const, 'EdDSA' as const) },
		),
		audience: fc.constantFrom('unset' as const, 'one' as const, 'one' as const, 'two' as const),
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
	})
	.map((c) => {
		// Only ECDSA signatures have a DER form and a high-S twin.
		return { ...c, signature: applicable(c, c.signature) };
	});

/**
 * The variant, or `valid` where it does not apply: only ECDSA signatures have a DER form and a high-S twin (P-256
 * here), and a P-384 signature (96 bytes) has no unused bits to spell differently.
 */
function applicable(c: Case, signature: Signature): Signature {
	const key = signerKey(c);
	if ((signature === 'der' || signature === 'high-s') && !isEc(key)) return 'valid';
	if ((signature === 'high-s' || signature === 'non-canonical') && key === 'p384') return 'valid';
	return signature;
}

function signerEntry(c: Case): SetEntry | undefined {
	return c.signer.from === 'set' ? c.set[c.signer.index % c.set.length] : undefined;
}

function signerKey(c: Case): KeyName {
	return c.signer.from === 'set' ? signerEntry(c)!.key : c.signer.from;
}

// ---------------------------------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------------------------------

function headerOf(c: Case): Record<string, unknown> {
	const own = OWN_ALG[signerKey(c)];
	const header: Record<string, unknown> = {};
	if (c.alg === 'own') header.alg = own === 'ECDH-ES' ? 'EdDSA' : own;
	else if (c.alg === 'other') header.alg = isEc(signerKey(c)) ? 'EdDSA' : 'ES256';
	else if (c.alg !== 'absent') header.alg = c.alg;
	if (c.typ !== 'absent') header.typ = c.typ;
	const signerKid = signerEntry(c)?.kid;
	if (c.kid === 'signer') {
		if (signerKid !== undefined && signerKid !== 'absent') header.kid = signerKid;
		else if (signerKid === undefined) header.kid = 'k1'; // a key outside the set, under a kid the set may use
	} else if (c.kid === 'unknown') header.kid = 'k9';
	else if (c.kid !== 'absent') header.kid = c.kid;
	return header;
}

function timeValue(spec: TimeSpec, c: Case, iat: number | undefined): unknown {
	const now = Math.floor(c.nowMs / 1000);
	if (spec.kind !== 'number') return spec.kind === 'string' ? String(now) : undefined;
	return {
		typical: now - spec.delta, // delta: the token's age
		ageLimit: now - (c.toleranceSeconds + c.clockSkewSeconds) + spec.delta,
		futureLimit: now + c.clockSkewSeconds + spec.delta,
		pastLimit: now - c.clockSkewSeconds + spec.delta,
		'iat+300': (iat ?? now) + 300 + spec.delta,
	}[spec.anchor];
}

function claimsOf(c: Case): Record<string, unknown> {
	const spec = c.claims;
	const claims: Record<string, unknown> = {};
	if (spec.iss !== 'missing') claims.iss = spec.iss === 'ok' ? ISSUER : 'someone-else';
	if (spec.aud !== 'missing')
		claims.aud = { ok: HOOK, other: 'hook_z', 'array-with': ['hook_z', HOOK], 'array-without': ['hook_z'] }[spec.aud];
	const iat = timeValue(spec.iat, c, undefined);
	claims.iat = iat;
	claims.nbf = timeValue(spec.nbf, c, typeof iat === 'number' ? iat : undefined);
	claims.exp = timeValue(spec.exp, c, typeof iat === 'number' ? iat : undefined);
	if (spec.jti) claims.jti = 'att_1';
	if (spec.evt) claims.evt = EVENT_ID;
	if (spec.bodySha256) claims.body_sha256 = BODY_SHA256;
	return claims; // JSON.stringify drops the undefined ones
}

function signatureBytes(c: Case, input: string): Buffer {
	const key = signerKey(c);
	switch (c.signature) {
		case 'valid':
		case 'non-canonical':
			return signWith(key, input);
		case 'der':
			return signWith(key, input, 'der');
		case 'high-s':
			return otherS(signWith(key, input));
		case 'bit-flipped': {
			const signature = signWith(key, input);
			signature[signature.length - 1] ^= 1;
			return signature;
		}
		case 'truncated':
			return signWith(key, input).subarray(0, -1);
		case 'extended':
			return Buffer.concat([signWith(key, input), Buffer.from([0])]);
		case 'empty':
			return Buffer.alloc(0);
	}
}

function buildToken(c: Case): string {
	const header = headerOf(c);
	const claims = claimsOf(c);
	const signingInput = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(claims))}`;
	let signature = b64u(signatureBytes(c, signingInput));
	if (c.signature === 'non-canonical') signature = nonCanonicalSpelling(signature);
	else expect(b64u(Buffer.from(signature, 'base64url'))).toBe(signature);
	// After signing: another attempt id in the claims, or one more header field; the rest unchanged.
	const [headerSegment, claimsSegment] =
		c.tamper === 'payload'
			? [b64u(JSON.stringify(header)), b64u(JSON.stringify({ ...claims, jti: 'att_forged' }))]
			: c.tamper === 'header'
				? [b64u(JSON.stringify({ ...header, x5u: 'https://attacker.example/keys' })), b64u(JSON.stringify(claims))]
				: signingInput.split('.');
	return `${headerSegment}.${claimsSegment}.${signature}`;
}

// ---------------------------------------------------------------------------------------------------------------
// The two verifiers
// ---------------------------------------------------------------------------------------------------------------

type Accepted = { ok: true; eventId: string; attemptId?: string; keyId?: string };
type Outcome = Accepted | { ok: false; code: DeliveryErrorCode; message: string };

interface Settings {
	jwks: { keys: Record<string, unknown>[] };
	algorithms?: ('ES256' | 'EdDSA')[];
	audience?: string[];
	issuer?: string;
	clockSkewSeconds: number;
	toleranceSeconds: number;
	nowMs: number;
}

function settingsOf(c: Case): Settings {
	return {
		jwks: { keys: c.set.map(jwkOf) },
		algorithms: c.algorithms === 'unset' ? undefined : [c.algorithms],
		audience: c.audience === 'unset' ? undefined : c.audience === 'one' ? [HOOK] : [OTHER_HOOK, HOOK],
		issuer: c.issuer ? ISSUER : undefined,
		clockSkewSeconds: c.clockSkewSeconds,
		toleranceSeconds: c.toleranceSeconds,
		nowMs: c.nowMs,
	};
}

/** Runs `run` with `Date.now` pinned to `nowMs`. */
async function at<T>(nowMs: number, run: () => Promise<T>): Promise<T> {
	const spy = jest.spyOn(Date, 'now').mockReturnValue(nowMs);
	try {
		return await run();
	} finally {
		spy.mockRestore();
	}
}

/** Ours: the receiver's public verifier with the key set inline, on the system clock (pinned), the whole delivery. */
async function ours(token: string, settings: Settings): Promise<Outcome> {
	const options: VerifyOptions = {
		jwks: settings.jwks,
		algorithms: settings.algorithms,
		audience: settings.audience,
		issuer: settings.issuer,
		clockSkewSeconds: settings.clockSkewSeconds,
		toleranceSeconds: settings.toleranceSeconds,
	};
	try {
		const verified = await at(settings.nowMs, () =>
			createVerifier(options).verify(BODY, { 'content-type': 'application/json', 'x-signature': token }),
		);
		expect(verified.scheme).toBe('jwt');
		return { ok: true, eventId: verified.event.id, attemptId: verified.attemptId, keyId: verified.keyId };
	} catch (error) {
		if (error instanceof DeliveryError) return { ok: false, code: error.code, message: error.message };
		throw error;
	}
}

/** The oracle: jose's `jwtVerify` over `createLocalJWKSet` of the same key set, with the same expectations. */
async function oracle(token: string, settings: Settings): Promise<Outcome> {
	try {
		const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(settings.jwks as never), {
			algorithms: settings.algorithms ?? [...DEFAULT_ALGORITHMS],
			audience: settings.audience,
			issuer: settings.issuer,
			typ: 'JWT',
			currentDate: new Date(settings.nowMs),
			clockTolerance: settings.clockSkewSeconds,
			maxTokenAge: settings.toleranceSeconds,
			requiredClaims: CONTRACT_REQUIRED_CLAIMS,
		});
		return acceptedBy(payload, protectedHeader.kid);
	} catch (error) {
		return { ok: false, code: joseErrorCode(error), message: (error as Error).message };
	}
}

const acceptedBy = (payload: JWTPayload, kid: unknown): Accepted => ({
	ok: true,
	eventId: payload.evt as string,
	attemptId: typeof payload.jti === 'string' ? payload.jti : undefined,
	keyId: typeof kid === 'string' ? kid : undefined,
});

async function both(c: Case) {
	const token = buildToken(c);
	const settings = settingsOf(c);
	return { token, settings, ours: await ours(token, settings), jose: await oracle(token, settings) };
}

/** A signature segment in non-canonical base64url: jose decodes it loosely (the same bytes), the core refuses it (README). */
const signatureStricter = (c: Case) => c.signature === 'non-canonical';
/** Where receiver/docs/signatures.md documents that the core refuses what jose would accept. */
const stricter = (c: Case) => signatureStricter(c);

/**
 * What ours must answer, given jose's answer: jose's, except
 * - a non-canonical signature is refused as soon as the pinned `alg` passes, before the key is looked up (jose
 *   decodes the signature after choosing the key, so it may say `key_not_found` first);
 * - a header without `alg`: jose says the token is malformed, the core that the (absent) algorithm is not allowed.
 *   Both refuse before any key is used; only the code differs.
 */
function expectedOurs(c: Case, jose: Outcome): DeliveryErrorCode | 'accepted' {
	if (c.alg === 'absent') return 'algorithm_not_allowed';
	if (signatureStricter(c) && !(!jose.ok && jose.code === 'algorithm_not_allowed')) return 'malformed_signature';
	return jose.ok ? 'accepted' : jose.code;
}

const outcomeOf = (outcome: Outcome) => (outcome.ok ? 'accepted' : outcome.code);

const describeCase = (c: Case, result: { token: string; settings: Settings; ours: Outcome; jose: Outcome }) =>
	JSON.stringify(
		{
			case: c,
			token: result.token,
			header: headerOf(c),
			jwks: result.settings.jwks,
			ours: result.ours,
			jose: result.jose,
		},
		null,
		1,
	);

// ---------------------------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------------------------

/** A case with everything valid, for examples: the set holds ecA (k1) and edA (k2), the token is signed by `signer`. */
function example(overrides: Partial<Case> & { signer?: Case['signer'] } = {}): Case {
	return {
		set: [
			{ key: 'ecA', kid: 'k1', alg: 'own', use: 'sig', keyOps: 'absent' },
			{ key: 'edA', kid: 'k2', alg: 'own', use: 'sig', keyOps: 'verify' },
		],
		signer: { from: 'set', index: 0 },
		alg: 'own',
		kid: 'signer',
		typ: 'JWT',
		claims: {
			iat: { kind: 'number', anchor: 'typical', delta: 1 },
			exp: { kind: 'number', anchor: 'iat+300', delta: 0 },
			nbf: { kind: 'missing' },
			aud: 'ok',
			iss: 'ok',
			evt: true,
			bodySha256: true,
			jti: true,
		},
		signature: 'valid',
		tamper: 'none',
		algorithms: 'unset',
		audience: 'one',
		issuer: true,
		clockSkewSeconds: 5,
		toleranceSeconds: 300,
		nowMs: 1_795_000_000_500,
		...overrides,
	};
}

const ecSigned = { signer: { from: 'set', index: 0 } } as const;
const edSigned = { signer: { from: 'set', index: 1 } } as const;

describe('ES256/EdDSA through a local key set: examples', () => {
	async function expectBoth(c: Case, expected: DeliveryErrorCode | 'accepted', joseExpected = expected) {
		const result = await both(c);
		expect(outcomeOf(result.ours)).toBe(expected);
		expect(outcomeOf(result.jose)).toBe(joseExpected);
		return result;
	}

	it.each([
		['ES256', ecSigned, 'k1'],
		['EdDSA', edSigned, 'k2'],
	] as const)(
		'accepts a valid %s delivery and reports the same event, attempt and key as jose',
		async (_alg, signer, kid) => {
			const result = await expectBoth(example(signer), 'accepted');
			expect(result.ours).toEqual({ ok: true, eventId: EVENT_ID, attemptId: 'att_1', keyId: kid });
			expect(result.ours).toEqual(result.jose);
		},
	);

	it('picks the key by kid among keys of the same type, and refuses an unknown kid: key_not_found', async () => {
		const set: SetEntry[] = [
			{ key: 'ecA', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent' },
			{ key: 'ecB', kid: 'k2', alg: 'absent', use: 'absent', keyOps: 'absent' },
		];
		await expectBoth(example({ set, signer: { from: 'set', index: 1 } }), 'accepted');
		await expectBoth(example({ set, signer: { from: 'set', index: 1 }, kid: 'k1' }), 'invalid_signature');
		await expectBoth(example({ set, kid: 'unknown' }), 'key_not_found');
		// Without a kid, two keys of the type may have signed: neither guesses.
		await expectBoth(example({ set, kid: 'absent' }), 'key_not_found');
	});

	it('tells keys with the same kid apart by type and curve, and refuses two that both fit', async () => {
		const sameKid: SetEntry[] = [
			{ key: 'x25519', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent' },
			{ key: 'p384', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent' },
			{ key: 'ecA', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent' },
			{ key: 'edA', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent' },
		];
		await expectBoth(example({ set: sameKid, signer: { from: 'set', index: 2 } }), 'accepted');
		await expectBoth(example({ set: sameKid, signer: { from: 'set', index: 3 } }), 'accepted');
		const twice: SetEntry[] = [sameKid[2], { ...sameKid[2], key: 'ecB' }];
		await expectBoth(example({ set: twice }), 'key_not_found');
	});

	it.each([
		['its alg is the other algorithm', { alg: 'other' }],
		['its use is "enc"', { use: 'enc' }],
		['its key_ops lack "verify"', { keyOps: 'sign' }],
		['its key_ops are empty', { keyOps: 'empty' }],
	] as const)('does not use a key when %s: key_not_found', async (_what, metadata) => {
		const set: SetEntry[] = [{ key: 'ecA', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent', ...metadata }];
		await expectBoth(example({ set }), 'key_not_found');
	});

	it('refuses a token signed by a key outside the set under a kid of the set: invalid_signature', async () => {
		await expectBoth(example({ signer: { from: 'ecOut' }, kid: 'k1' }), 'invalid_signature');
	});

	it('refuses an alg that does not fit the key: key_not_found, or invalid_signature when a key of that alg has the kid', async () => {
		// An Ed25519 signature announced as ES256 under the Ed25519 key's kid: no ES256 key has that kid.
		await expectBoth(example({ ...edSigned, alg: 'other' }), 'key_not_found');
		const sameKid: SetEntry[] = [
			{ key: 'ecA', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent' },
			{ key: 'edA', kid: 'k1', alg: 'absent', use: 'absent', keyOps: 'absent' },
		];
		await expectBoth(example({ set: sameKid, signer: { from: 'set', index: 1 }, alg: 'other' }), 'invalid_signature');
	});

	it('refuses an alg outside the pinned ones, HS256 and none included: algorithm_not_allowed', async () => {
		for (const alg of ['HS256', 'none', 'ES384', 'Ed25519'] as const)
			await expectBoth(example({ alg }), 'algorithm_not_allowed');
		await expectBoth(example({ ...edSigned, algorithms: 'ES256' }), 'algorithm_not_allowed');
	});

	it('refuses a header without alg (jose: malformed, ours: algorithm_not_allowed; both before any key)', async () => {
		await expectBoth(example({ alg: 'absent' }), 'algorithm_not_allowed', 'malformed_signature');
	});

	it('refuses a DER-encoded ES256 signature (JWS wants ieee-p1363), and accepts the high-S twin as jose does', async () => {
		await expectBoth(example({ signature: 'der' }), 'invalid_signature');
		await expectBoth(example({ signature: 'high-s' }), 'accepted');
	});

	it.each([
		['ES256', ecSigned],
		['EdDSA', edSigned],
	] as const)(
		'refuses an %s signature in non-canonical base64url, which jose accepts: malformed_signature',
		async (_alg, signer) => {
			await expectBoth(example({ ...signer, signature: 'non-canonical' }), 'malformed_signature', 'accepted');
		},
	);

	it.each(['bit-flipped', 'truncated', 'extended', 'empty'] as const)(
		'refuses a signature that is %s: invalid_signature',
		async (signature) => {
			await expectBoth(example({ ...edSigned, signature }), 'invalid_signature');
			await expectBoth(example({ ...ecSigned, signature }), 'invalid_signature');
		},
	);

	it('refuses claims or a header changed after signing: invalid_signature', async () => {
		await expectBoth(example({ tamper: 'payload' }), 'invalid_signature');
		await expectBoth(example({ ...edSigned, tamper: 'header' }), 'invalid_signature');
	});

	it('checks the claims after the signature, as with HS256', async () => {
		const claims = example().claims;
		await expectBoth(
			example({ claims: { ...claims, iat: { kind: 'number', anchor: 'ageLimit', delta: -1 } } }),
			'expired',
		);
		await expectBoth(
			example({ claims: { ...claims, iat: { kind: 'number', anchor: 'futureLimit', delta: 1 } } }),
			'not_yet_valid',
		);
		await expectBoth(example({ claims: { ...claims, aud: 'other' } }), 'audience_mismatch');
		await expectBoth(example({ claims: { ...claims, evt: false } }), 'invalid_claims');
		await expectBoth(example({ claims: { ...claims, aud: 'other' }, signature: 'bit-flipped' }), 'invalid_signature');
	});
});

describe('ES256/EdDSA through a local key set agree with jose jwtVerify + createLocalJWKSet (fast-check)', () => {
	const NUM_RUNS = propertyRuns(1000);

	const differential = { cases: caseArbitrary, both, describe: describeCase, numRuns: NUM_RUNS };

	it('is never more lenient: what it accepts, jose accepts, for the same event, attempt and key', async () => {
		const accepted = await neverMoreLenient(differential, (result) => expect(result.ours).toEqual(result.jose));
		// The generator must produce acceptable tokens often, or this property says nothing.
		expect(accepted).toBeGreaterThan(NUM_RUNS / 20);
	});

	it('accepts exactly what jose accepts, except the documented stricter case (non-canonical signature), which it refuses', async () => {
		const seen = await sameAcceptanceExceptStricter(differential, stricter);
		expect(seen.bothAccept).toBeGreaterThan(NUM_RUNS / 20);
		expect(seen.bothReject).toBeGreaterThan(NUM_RUNS / 20); // each run draws new cases: a bound the count stays far above
		expect(seen.stricter).toBeGreaterThan(0);
	});

	it('refuses with the code jose’s error maps to', async () => {
		const codes = new Set<string>();
		await fc.assert(
			fc.asyncProperty(caseArbitrary, async (c) => {
				const result = await both(c);
				const expected = expectedOurs(c, result.jose);
				if (outcomeOf(result.ours) !== expected) throw new Error(`expected ${expected}:\n${describeCase(c, result)}`);
				codes.add(expected);
			}),
			{ numRuns: NUM_RUNS },
		);
		// Every refusal the generator aims at happened at least once.
		expect([...codes].sort()).toEqual(
			expect.arrayContaining([
				'accepted',
				'algorithm_not_allowed',
				'audience_mismatch',
				'expired',
				'invalid_claims',
				'invalid_signature',
				'key_not_found',
				'malformed_signature',
				'not_yet_valid',
			]),
		);
	});

	/** Cases where one part varies over all its variants and the rest is mostly valid; the answer must be jose's, mapped. */
	async function agreesWhile(vary: (c: Case) => fc.Arbitrary<Case>, key: (c: Case) => string, numRuns = NUM_RUNS) {
		const seen = new Map<string, Set<string>>();
		await fc.assert(
			fc.asyncProperty(caseArbitrary.chain(vary), async (c) => {
				const result = await both(c);
				const expected = expectedOurs(c, result.jose);
				if (outcomeOf(result.ours) !== expected) throw new Error(`expected ${expected}:\n${describeCase(c, result)}`);
				seen.set(key(c), (seen.get(key(c)) ?? new Set()).add(expected));
			}),
			{ numRuns },
		);
		return seen;
	}

	/** Signed by a key of the set, with its own alg and kid, claims that pass: only what `vary` changes may fail. */
	const signedBySet = (c: Case): Case => ({
		...c,
		signer: c.signer.from === 'set' ? c.signer : { from: 'set', index: 0 },
		alg: 'own',
		kid: 'signer',
		typ: 'JWT',
		signature: 'valid',
		tamper: 'none',
		algorithms: 'unset',
		claims: {
			...c.claims,
			iat: { kind: 'number', anchor: 'typical', delta: 1 },
			exp: { kind: 'number', anchor: 'iat+300', delta: 0 },
			nbf: { kind: 'missing' },
			aud: 'ok',
			iss: 'ok',
			evt: true,
			bodySha256: true,
		},
	});

	it('agrees on which key of the set is used (kid, type, curve, alg/use/key_ops of the keys, keys outside the set)', async () => {
		const seen = await agreesWhile(
			(c) =>
				fc
					.record({
						kid: fc.constantFrom<HeaderKid>('signer', 'absent', 'k1', 'k2', 'k3', 'unknown'),
						alg: fc.constantFrom<HeaderAlg>('own', 'own', 'other'),
						signer: fc.oneof(
							{ weight: 6, arbitrary: fc.record({ from: fc.constant('set' as const), index: fc.nat({ max: 3 }) }) },
							{ weight: 1, arbitrary: fc.record({ from: fc.constantFrom<OutsideKey>('ecOut', 'edOut') }) },
						),
					})
					.map((varied) => ({ ...signedBySet(c), ...varied })),
			(c) => `${c.set.length}`,
		);
		const outcomes = new Set([...seen.values()].flatMap((set) => [...set]));
		expect([...outcomes].sort()).toEqual(expect.arrayContaining(['accepted', 'invalid_signature', 'key_not_found']));
	});

	it('agrees on every signature variant (ieee-p1363, DER, high S, non-canonical spelling, damaged)', async () => {
		const variants: Signature[] = [
			'valid',
			'der',
			'high-s',
			'non-canonical',
			'bit-flipped',
			'truncated',
			'extended',
			'empty',
		];
		const seen = await agreesWhile(
			(c) =>
				fc.constantFrom(...variants).map((signature) => {
					const valid = signedBySet(c);
					return { ...valid, signature: applicable(valid, signature) };
				}),
			(c) => `${isEc(signerKey(c)) ? 'ec' : 'ed'} ${c.signature}`,
		);
		for (const kind of ['ec', 'ed'])
			expect(seen.get(`${kind} non-canonical`)).toEqual(new Set(['malformed_signature']));
		expect(seen.get('ec der')).toContain('invalid_signature');
		expect(seen.get('ec high-s')).toContain('accepted');
	});

	it('agrees at the exact time limits', async () => {
		const outcomes = new Set<string>();
		const seen = await agreesWhile(
			(c) =>
				fc
					.record({
						iat: timeAt('ageLimit', 'futureLimit'),
						exp: fc.oneof(fc.constant<TimeSpec>({ kind: 'number', anchor: 'iat+300', delta: 0 }), timeAt('pastLimit')),
						nbf: fc.oneof(fc.constant<TimeSpec>({ kind: 'missing' }), timeAt('futureLimit')),
					})
					.map((times) => {
						// A set and a signer that verify: only the times decide.
						const valid = signedBySet({
							...c,
							set: example().set,
							signer: { from: 'set', index: c.signer.from === 'set' ? c.signer.index % 2 : 0 },
						});
						return { ...valid, claims: { ...valid.claims, ...times } };
					}),
			() => 'times',
		);
		for (const outcome of seen.get('times')!) outcomes.add(outcome);
		expect([...outcomes].sort()).toEqual(['accepted', 'expired', 'not_yet_valid']);
	});
});

/**
 * Malformed keys and kids: a key whose optional members are not well-formed, a private key, a kid that is not a
 * string. The core's key selection (core/keys.ts `candidateKeys`) once used such keys where jose refuses them; both
 * now refuse.
 */
describe('Malformed keys and kids: jose and ours both refuse', () => {
	const edJwk = () => ({ ...publicJwk('edA'), kid: 'k1' });
	const header = { alg: 'EdDSA', typ: 'JWT', kid: 'k1' };
	/** Each input: one key in the set, a token signed by it (edA) with this header. */
	const inputs: [string, Record<string, unknown>, Record<string, unknown>][] = [
		['a header kid that is a number (the set holds one Ed25519 key)', edJwk(), { ...header, kid: 7 }],
		['a header kid that is null (the set holds one Ed25519 key)', edJwk(), { ...header, kid: null }],
		['a key with "use": null', { ...edJwk(), use: null }, header],
		['a key with "alg": null', { ...edJwk(), alg: null }, header],
		['a key with "key_ops": "verify" (not an array)', { ...edJwk(), key_ops: 'verify' }, header],
		['a key with "key_ops": ["verify", "verify"] (not unique)', { ...edJwk(), key_ops: ['verify', 'verify'] }, header],
		['a key with "ext": "yes" (not a boolean)', { ...edJwk(), ext: 'yes' }, header],
		[
			'a key with "key_ops": ["verify", "sign"] (Web Crypto refuses it for a public key)',
			{ ...edJwk(), key_ops: ['verify', 'sign'] },
			header,
		],
		[
			'a private key in the set ("d" present)',
			{ ...(pairs.edA.privateKey.export({ format: 'jwk' }) as Record<string, unknown>), kid: 'k1' },
			header,
		],
	];

	function tokenFor(jwk: Record<string, unknown>, tokenHeader: Record<string, unknown>) {
		const c = example();
		const settings = { ...settingsOf(c), jwks: { keys: [jwk] } };
		const input = `${b64u(JSON.stringify(tokenHeader))}.${b64u(JSON.stringify(claimsOf(c)))}`;
		return { settings, token: `${input}.${b64u(signWith('edA', input))}` };
	}

	it.each(inputs)('jose refuses %s', async (_what, jwk, tokenHeader) => {
		const { settings, token } = tokenFor(jwk, tokenHeader);
		// No key set error maps to a code here but "no key matches"; an invalid set or key is jose's error itself.
		await expect(
			jwtVerify(token, createLocalJWKSet(settings.jwks as never), {
				algorithms: [...DEFAULT_ALGORITHMS],
				typ: 'JWT',
				currentDate: new Date(settings.nowMs),
			}),
		).rejects.toThrow();
	});

	it.each(inputs)('ours refuses %s (key_not_found)', async (_what, jwk, tokenHeader) => {
		const { settings, token } = tokenFor(jwk, tokenHeader);
		expect(await ours(token, settings)).toMatchObject({ ok: false, code: 'key_not_found' });
	});
});
