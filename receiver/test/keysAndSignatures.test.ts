import { createHmac, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import {
	DeliveryError,
	decodeHookPublicKey,
	decodeHookSecret,
	HmacSecret,
	KeyCache,
	localKeySet,
	prepareVerifier,
	readHeaders,
	verifyDeliveryWith,
	verifyJwt,
	verifyStandardWebhooks,
	runSteps,
	type KeySetSource,
	type PlatformCrypto,
	type PublicJwk,
	type VerifiedDelivery,
} from '../../nodes/shared/delivery';
import { nodeCrypto } from '../../nodes/shared/delivery/nodeCrypto';
import { webCrypto } from '../src/webCrypto';
import { createVerifier } from '../src';
import { serve } from './helpers';
import {
	asyncRefusalOf,
	b64u,
	deliveryClaims,
	eventBody,
	hmacWith,
	hs256,
	jwt,
	NOW,
	refusalOf,
	SECRET,
	SECRET_BYTES,
	verify,
} from './coreFixtures';

/**
 * Keys and signatures in the verification core: key set refresh on rotation, which keys of a set may verify, key
 * import and its caches, hook secrets, the compact X-Signature, Standard Webhooks signature entries, signatures of the
 * wrong length, and the unverified hint of a JWT that no configured key made. Everything is computed here with
 * node:crypto (HMAC, Ed25519, ECDSA, SHA-256) and compared with exact values, so that a mutant of the core
 * (`npm run mutation`) fails a test; the core runs on its real platforms (node:crypto, Web Crypto).
 */

const ed = (pair: { privateKey: KeyObject }) => (input: string) => sign(null, Buffer.from(input), pair.privateKey);
const es = (pair: { privateKey: KeyObject }) => (input: string) =>
	sign('sha256', Buffer.from(input), { key: pair.privateKey, dsaEncoding: 'ieee-p1363' });

const edA = generateKeyPairSync('ed25519');
const edB = generateKeyPairSync('ed25519');
const edOutside = generateKeyPairSync('ed25519');
const ecA = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwkOf = (pair: { publicKey: KeyObject }, kid?: string): PublicJwk => ({
	...(pair.publicKey.export({ format: 'jwk' }) as PublicJwk),
	...(kid === undefined ? {} : { kid }),
});
const whpk = (pair: { publicKey: KeyObject }) => `whpk_${Buffer.from(jwkOf(pair).x!, 'base64url').toString('base64')}`;

/** A key set whose reads are counted: `keys()` serves `current`, `refresh()` serves `refreshed` (a key added since). */
function countingKeySet(current: PublicJwk[], refreshed: PublicJwk[] | undefined | (() => never)) {
	const calls = { keys: 0, refresh: 0 };
	const source: KeySetSource = {
		keys: () => {
			calls.keys += 1;
			return current;
		},
		refresh: () => {
			calls.refresh += 1;
			return typeof refreshed === 'function' ? refreshed() : refreshed;
		},
	};
	return { source, calls };
}

function edDelivery(id: string, kid: unknown, signer = ed(edA), headerExtra: Record<string, unknown> = {}) {
	const body = eventBody(id);
	const header = { alg: 'EdDSA', typ: 'JWT', ...(kid === undefined ? {} : { kid }), ...headerExtra };
	return { body, headers: { 'x-signature': jwt(header, deliveryClaims(body, id), signer) } };
}

describe('key set refresh when no key matches the kid (rotation)', () => {
	it('a kid of the cached set is verified without asking for a refresh, delivery after delivery', () => {
		const { source, calls } = countingKeySet([jwkOf(edA, 'ed_a')], [jwkOf(edA, 'ed_a'), jwkOf(edB, 'ed_b')]);
		for (const id of ['evt_1', 'evt_2', 'evt_3']) {
			const { body, headers } = edDelivery(id, 'ed_a');
			expect((verify({ keySet: source }, body, headers) as VerifiedDelivery).keyId).toBe('ed_a');
		}
		expect(calls).toEqual({ keys: 3, refresh: 0 });
	});

	it('a kid added since is found by exactly one refresh, and verifies with the new key', () => {
		const { source, calls } = countingKeySet([jwkOf(edA, 'ed_a')], [jwkOf(edA, 'ed_a'), jwkOf(edB, 'ed_b')]);
		const { body, headers } = edDelivery('evt_rotated', 'ed_b', ed(edB));
		const verified = verify({ keySet: source }, body, headers) as VerifiedDelivery;
		expect(verified).toMatchObject({ scheme: 'jwt', keyId: 'ed_b', event: { id: 'evt_rotated' } });
		expect(calls).toEqual({ keys: 1, refresh: 1 });
	});

	it('a made-up kid asks for one refresh per delivery and is refused key_not_found', () => {
		const { source, calls } = countingKeySet([jwkOf(edA, 'ed_a')], [jwkOf(edA, 'ed_a')]);
		for (const kid of ['made_up_1', 'made_up_2']) {
			const { body, headers } = edDelivery(`evt_${kid}`, kid);
			expect(refusalOf(() => verify({ keySet: source }, body, headers))).toEqual({
				code: 'key_not_found',
				message: `No key in the key set matches kid "${kid}" and alg EdDSA`,
			});
		}
		expect(calls).toEqual({ keys: 2, refresh: 2 });
	});

	it('a refresh that brings nothing (cooling down) leaves the kid unmatched', () => {
		const { source, calls } = countingKeySet([jwkOf(edA, 'ed_a')], undefined);
		const { body, headers } = edDelivery('evt_cool', 'ed_b', ed(edB));
		expect(refusalOf(() => verify({ keySet: source }, body, headers))).toEqual({
			code: 'key_not_found',
			message: 'No key in the key set matches kid "ed_b" and alg EdDSA',
		});
		expect(calls).toEqual({ keys: 1, refresh: 1 });
	});

	it('a key set without refresh refuses an unknown kid without one', () => {
		const { body, headers } = edDelivery('evt_norefresh', 'ed_b', ed(edB));
		expect(refusalOf(() => verify({ keySet: { keys: () => [jwkOf(edA, 'ed_a')] } }, body, headers))).toEqual({
			code: 'key_not_found',
			message: 'No key in the key set matches kid "ed_b" and alg EdDSA',
		});
	});

	it('a refresh or a read that fails is key_set_unavailable, with the failure as cause', async () => {
		const failure = new Error('JWKS endpoint answered 500');
		const { source } = countingKeySet([jwkOf(edA, 'ed_a')], () => {
			throw failure;
		});
		const { body, headers } = edDelivery('evt_down', 'ed_b', ed(edB));
		let thrown: unknown;
		try {
			verify({ keySet: source }, body, headers);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(DeliveryError);
		expect(thrown).toMatchObject({
			code: 'key_set_unavailable',
			message: 'The key set (JWKS) could not be fetched',
			cause: failure,
		});
		const rejecting: KeySetSource = { keys: () => Promise.reject(failure) };
		const known = edDelivery('evt_down_2', 'ed_a');
		expect(await asyncRefusalOf(() => verify({ keySet: rejecting }, known.body, known.headers))).toEqual({
			code: 'key_set_unavailable',
			message: 'The key set (JWKS) could not be fetched',
			cause: failure,
		});
	});

	it('two keys with the kid are refused, not guessed between', () => {
		const { body, headers } = edDelivery('evt_dup', 'dup');
		expect(
			refusalOf(() => verify({ keySet: { keys: () => [jwkOf(edA, 'dup'), jwkOf(edB, 'dup')] } }, body, headers)),
		).toEqual({
			code: 'key_not_found',
			message: 'Several keys in the key set match kid "dup"',
		});
	});

	it('a public-key JWT with no key set configured is key_not_found', () => {
		const { headers } = edDelivery('evt_nokeys', 'ed_a');
		const steps = verifyJwt(headers['x-signature'], {
			algorithms: ['EdDSA'],
			secrets: [],
			keyCache: new KeyCache(nodeCrypto),
			now: NOW,
			clockSkewSeconds: 5,
			toleranceSeconds: 300,
		});
		expect(refusalOf(() => runSteps(steps))).toEqual({
			code: 'key_not_found',
			message: 'No key set is configured for EdDSA',
		});
	});

	it("over HTTP (jwksUrl): made-up kids from unsigned requests fetch nothing beyond jose's cooldown", async () => {
		let fetches = 0;
		const server = await serve((_req, res) => {
			fetches += 1;
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify({ keys: [jwkOf(edA, 'ed_a')] }));
		});
		try {
			const verifier = createVerifier({ jwksUrl: `${server.url}/jwks`, now: NOW });
			const first = edDelivery('evt_http_1', 'ed_a');
			await expect(verifier.verify(first.body, first.headers)).resolves.toMatchObject({ keyId: 'ed_a' });
			expect(fetches).toBe(1);
			// jose refetches at most once per 30 s cooldown after a fetch: kids named by unsigned requests cannot drive fetches.
			for (let i = 0; i < 5; i += 1) {
				const forged = edDelivery(`evt_forged_${i}`, `forged_${i}`, ed(edOutside));
				await expect(verifier.verify(forged.body, forged.headers)).rejects.toMatchObject({ code: 'key_not_found' });
			}
			const again = edDelivery('evt_http_2', 'ed_a');
			await expect(verifier.verify(again.body, again.headers)).resolves.toMatchObject({ keyId: 'ed_a' });
			expect(fetches).toBe(1);
		} finally {
			await server.close();
		}
	});
});

describe('the compact form of X-Signature', () => {
	const body = eventBody('evt_compact');
	const token = jwt({ alg: 'HS256', typ: 'JWT' }, deliveryClaims(body, 'evt_compact'), hs256);

	it('the token itself verifies', () => {
		expect((verify({ secrets: SECRET }, body, { 'x-signature': token }) as VerifiedDelivery).event.id).toBe(
			'evt_compact',
		);
	});

	it.each([
		['a valid token with ".anything" appended', `${token}.anything`],
		['a valid token with "." appended', `${token}.`],
		['a character outside base64url before it', `!${token}`],
		['a character outside base64url after it', `${token}!`],
		['an empty claims segment', `${token.split('.')[0]}..${token.split('.')[2]}`],
		['an empty header segment', `.${token.split('.')[1]}.${token.split('.')[2]}`],
	])('%s is not a compact JWT', (_name, signature) => {
		expect(refusalOf(() => verify({ secrets: SECRET }, body, { 'x-signature': signature }))).toEqual({
			code: 'malformed_signature',
			message: 'X-Signature is not a compact JWT',
		});
	});

	it('an empty signature segment is compact, and matches no secret', () => {
		const [header, claims] = token.split('.');
		expect(refusalOf(() => verify({ secrets: SECRET }, body, { 'x-signature': `${header}.${claims}.` }))).toEqual({
			code: 'invalid_signature',
			message: 'JWT signature matches none of the configured secrets',
		});
	});
});

describe('Standard Webhooks signature entries', () => {
	const id = 'evt_sw';
	const body = eventBody(id);
	const timestamp = String(NOW);
	const content = `${id}.${timestamp}.${body}`;
	const v1 = (secret = SECRET_BYTES) => `v1,${createHmac('sha256', secret).update(content).digest('base64')}`;
	const v1a = (pair: { privateKey: KeyObject }) =>
		`v1a,${sign(null, Buffer.from(content), pair.privateKey).toString('base64')}`;
	const headers = (signature: string) => ({
		'webhook-id': id,
		'webhook-timestamp': timestamp,
		'webhook-signature': signature,
	});
	const NO_MATCH = { code: 'invalid_signature', message: 'webhook-signature matches none of the configured keys' };

	it('during a rotation, every v1a public key is tried: the second one signed', () => {
		const verified = verify({ publicKeys: [whpk(edA), whpk(edB)] }, body, headers(v1a(edB))) as VerifiedDelivery;
		expect(verified).toMatchObject({ scheme: 'standard-webhooks', event: { id } });
	});

	it('every v1a entry is tried against every key: the matching one comes second', () => {
		const verified = verify(
			{ publicKeys: [whpk(edA), whpk(edB)] },
			body,
			headers(`${v1a(edOutside)} ${v1a(edB)}`),
		) as VerifiedDelivery;
		expect(verified.event.id).toBe(id);
	});

	it('a v1a entry by a key outside the configured ones matches nothing', () => {
		expect(refusalOf(() => verify({ publicKeys: [whpk(edA), whpk(edB)] }, body, headers(v1a(edOutside))))).toEqual(
			NO_MATCH,
		);
	});

	it('an unknown version (v2) is neither v1a nor v1, even with a valid signature after its comma', () => {
		expect(
			refusalOf(() => verify({ publicKeys: [whpk(edA)] }, body, headers(v1a(edA).replace('v1a,', 'v2,')))),
		).toEqual(NO_MATCH);
		expect(refusalOf(() => verify({ secrets: SECRET }, body, headers(v1().replace('v1,', 'v2,'))))).toEqual(NO_MATCH);
		expect(refusalOf(() => verify({ secrets: SECRET }, body, headers(v1().replace('v1,', 'v1a,'))))).toEqual(NO_MATCH);
		// Three characters that are not v1a, and v1a with more after it, are unknown versions too.
		for (const version of ['v2a', 'v1b', 'v1ab']) {
			expect(
				refusalOf(() => verify({ publicKeys: [whpk(edA)] }, body, headers(v1a(edA).replace('v1a,', `${version},`)))),
			).toEqual(NO_MATCH);
		}
	});

	it('a bare "v1" entry without a comma is skipped: the entry after it still verifies', () => {
		expect((verify({ secrets: SECRET }, body, headers(`v1 ${v1()}`)) as VerifiedDelivery).event.id).toBe(id);
		expect((verify({ publicKeys: [whpk(edA)] }, body, headers(`v1a ${v1a(edA)}`)) as VerifiedDelivery).event.id).toBe(
			id,
		);
		expect(refusalOf(() => verify({ secrets: SECRET }, body, headers('v1')))).toEqual(NO_MATCH);
	});

	it('ten entries are read, eleven refused; empty entries between spaces do not count', () => {
		const wrong = v1(Buffer.alloc(32, 1));
		const ten = [...Array.from({ length: 9 }, () => wrong), v1()];
		expect((verify({ secrets: SECRET }, body, headers(ten.join('  '))) as VerifiedDelivery).event.id).toBe(id);
		expect(refusalOf(() => verify({ secrets: SECRET }, body, headers([wrong, ...ten].join(' '))))).toEqual({
			code: 'malformed_signature',
			message: 'webhook-signature lists more than 10 signatures',
		});
	});

	it('a v1a entry that is not canonical base64, or not 64 bytes, is skipped: the valid entry after it verifies', () => {
		const short = `v1a,${Buffer.alloc(63, 1).toString('base64')}`;
		expect(
			(verify({ publicKeys: [whpk(edA)] }, body, headers(`v1a,!!!! ${short} ${v1a(edA)}`)) as VerifiedDelivery).event
				.id,
		).toBe(id);
		expect(refusalOf(() => verify({ publicKeys: [whpk(edA)] }, body, headers(`v1a,!!!! ${short}`)))).toEqual(NO_MATCH);
	});

	it('called directly without a diagnostic, a mismatch is refused without one', () => {
		const steps = verifyStandardWebhooks(
			{ id, timestamp, signatures: [v1(Buffer.alloc(32, 2))] },
			new TextEncoder().encode(body),
			{
				secrets: [new HmacSecret(SECRET_BYTES, nodeCrypto)],
				publicKeys: [],
				keyCache: new KeyCache(nodeCrypto),
				now: NOW,
				toleranceSeconds: 300,
			},
		);
		let thrown: unknown;
		try {
			runSteps(steps);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(DeliveryError);
		expect([(thrown as DeliveryError).code, (thrown as DeliveryError).diagnostic]).toEqual([
			'invalid_signature',
			undefined,
		]);
	});

	it('a v1 match under the second secret of a rotation verifies; v1a keys are not needed then', () => {
		const other = Buffer.alloc(32, 9);
		const verified = verify(
			{ secrets: [`whsec_${other.toString('base64')}`, SECRET], publicKeys: [whpk(edA)] },
			body,
			headers(v1()),
		) as VerifiedDelivery;
		expect(verified.scheme).toBe('standard-webhooks');
	});

	it('on Web Crypto too, a v1 match with v1a keys configured verifies without trying the keys', async () => {
		const options = { secrets: SECRET, publicKeys: [whpk(edA)] };
		await expect(verify(options, body, headers(v1()), webCrypto)).resolves.toMatchObject({
			scheme: 'standard-webhooks',
			event: { id },
		});
		await expect(verify(options, body, headers(`${v1()} ${v1a(edB)}`), webCrypto)).resolves.toMatchObject({
			scheme: 'standard-webhooks',
		});
	});
});

describe('the decoded-header cache is bounded', () => {
	it('thousands of distinct JWT headers (unsigned requests) do not stay in memory', () => {
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as () => void;
		const keys = {
			algorithms: ['HS256'] as const,
			secrets: [new HmacSecret(SECRET_BYTES, nodeCrypto)],
			keyCache: new KeyCache(nodeCrypto),
			now: NOW,
			clockSkewSeconds: 5,
			toleranceSeconds: 300,
		};
		const padding = 'p'.repeat(4000);
		const claims = b64u('{}');
		const wrongSignature = b64u(Buffer.alloc(32));
		const headers = 3000;
		const codes = new Map<string, number>();
		let sent = 0;
		/** Heap growth, in MiB, across `headers` more distinct headers (after a full garbage collection on both sides). */
		const growthOverBatch = () => {
			gc();
			const before = process.memoryUsage().heapUsed;
			for (let i = 0; i < headers; i += 1, sent += 1) {
				const token = `${b64u(JSON.stringify({ alg: 'HS256', typ: 'JWT', pad: `${sent}${padding}` }))}.${claims}.${wrongSignature}`;
				const { code } = refusalOf(() => runSteps(verifyJwt(token, { ...keys, algorithms: [...keys.algorithms] })));
				codes.set(code, (codes.get(code) ?? 0) + 1);
			}
			gc();
			return (process.memoryUsage().heapUsed - before) / 2 ** 20;
		};
		// Two batches: memory that earlier tests release meanwhile can hide part of one batch's growth, not of both.
		const grownMiB = growthOverBatch() + growthOverBatch();
		expect([...codes]).toEqual([['invalid_signature', 2 * headers]]);
		// Kept, they would hold about 2 × 3000 × 9.4 kB ≈ 54 MiB; the cache holds 64 at most (< 1 MiB).
		expect(grownMiB).toBeLessThan(16);
	});

	it('a header is decoded once while it is cached, and again once many other headers have pushed it out', () => {
		// The same bound as above, without measuring the heap: which header texts reach JSON.parse, and how often.
		const keys = {
			algorithms: ['HS256' as const],
			secrets: [new HmacSecret(SECRET_BYTES, nodeCrypto)],
			keyCache: new KeyCache(nodeCrypto),
			now: NOW,
			clockSkewSeconds: 5,
			toleranceSeconds: 300,
		};
		const claims = b64u('{}');
		const wrongSignature = b64u(Buffer.alloc(32));
		const headerText = (name: string) => JSON.stringify({ alg: 'HS256', typ: 'JWT', name });
		const refuse = (text: string) =>
			refusalOf(() =>
				runSteps(verifyJwt(`${b64u(text)}.${claims}.${wrongSignature}`, { ...keys, algorithms: [...keys.algorithms] })),
			).code;
		const parse = jest.spyOn(JSON, 'parse');
		try {
			const parsesOf = (text: string) => parse.mock.calls.filter(([argument]) => argument === text).length;
			const first = headerText(`first-${process.hrtime.bigint()}`);
			expect([refuse(first), refuse(first), refuse(first)]).toEqual([
				'invalid_signature',
				'invalid_signature',
				'invalid_signature',
			]);
			expect(parsesOf(first)).toBe(1);
			// 200 other headers: more than three times the bound (64), so the cache has started over since `first`.
			for (let i = 0; i < 200; i += 1) expect(refuse(headerText(`other-${i}`))).toBe('invalid_signature');
			expect(refuse(first)).toBe('invalid_signature');
			expect(parsesOf(first)).toBe(2);
		} finally {
			parse.mockRestore();
		}
	});
});

describe('public keys that cannot be imported, and key import caching', () => {
	const badEd = (kid?: string): PublicJwk => ({
		kty: 'OKP',
		crv: 'Ed25519',
		x: b64u(Buffer.alloc(31, 1)),
		...(kid === undefined ? {} : { kid }),
	});

	it('a key the platform refuses is key_not_found naming its kid (node:crypto, synchronous)', () => {
		const { body, headers } = edDelivery('evt_bad', 'ed_bad');
		expect(refusalOf(() => verify({ keySet: { keys: () => [badEd('ed_bad')] } }, body, headers))).toEqual({
			code: 'key_not_found',
			message: 'The EdDSA key "ed_bad" cannot be used',
		});
		let thrown: unknown;
		try {
			verify({ keySet: { keys: () => [badEd('ed_bad')] } }, body, headers);
		} catch (error) {
			thrown = error;
		}
		// node:crypto's own error, kept as the cause for logs.
		expect((thrown as DeliveryError).cause).toMatchObject({ name: 'TypeError' });
		const unnamed = edDelivery('evt_bad_2', undefined);
		expect(refusalOf(() => verify({ keySet: { keys: () => [badEd()] } }, unnamed.body, unnamed.headers))).toEqual({
			code: 'key_not_found',
			message: 'The EdDSA key "" cannot be used',
		});
	});

	it('a key the platform refuses is key_not_found naming its kid (Web Crypto, asynchronous)', async () => {
		const { body, headers } = edDelivery('evt_bad_web', 'ed_bad');
		const refusal = await asyncRefusalOf(() =>
			verify({ keySet: { keys: () => [badEd('ed_bad')] } }, body, headers, webCrypto),
		);
		expect({ code: refusal.code, message: refusal.message }).toEqual({
			code: 'key_not_found',
			message: 'The EdDSA key "ed_bad" cannot be used',
		});
		// Web Crypto's DataError (a DOMException, of another realm than jest's Error).
		expect(refusal.cause).toMatchObject({ name: 'DataError' });
	});

	it('an import that failed once is tried again on the next delivery', async () => {
		let imports = 0;
		const flaky: PlatformCrypto = {
			...nodeCrypto,
			importPublicKey: (jwk, alg) => {
				imports += 1;
				return imports === 1
					? Promise.reject(new Error('transient'))
					: Promise.resolve(nodeCrypto.importPublicKey(jwk, alg));
			},
		};
		const keySet = [jwkOf(edA, 'ed_a')];
		const verifier = prepareVerifier({ keySet: { keys: () => keySet }, now: NOW }, flaky);
		const run = (id: string) => {
			const { body, headers } = edDelivery(id, 'ed_a');
			return verifyDeliveryWith(new TextEncoder().encode(body), readHeaders(headers), verifier);
		};
		expect(await asyncRefusalOf(() => run('evt_flaky_1'))).toMatchObject({
			code: 'key_not_found',
			message: 'The EdDSA key "ed_a" cannot be used',
		});
		await expect(run('evt_flaky_2')).resolves.toMatchObject({ keyId: 'ed_a' });
		expect(imports).toBe(2);
	});

	/** node:crypto whose public-key import answers with a promise (as Web Crypto does), counting the imports. */
	function asynchronousKeyImport() {
		const imports = { count: 0 };
		const platform: PlatformCrypto = {
			...nodeCrypto,
			importPublicKey: async (jwk, alg) => {
				imports.count += 1;
				return nodeCrypto.importPublicKey(jwk, alg);
			},
		};
		return { platform, imports };
	}

	it('a key is imported once; once imported, verifying no longer waits for the import', async () => {
		const { platform: asyncImport, imports } = asynchronousKeyImport();
		const keySet = [jwkOf(ecA, 'ec_a')];
		const verifier = prepareVerifier({ keySet: { keys: () => keySet }, now: NOW }, asyncImport);
		const run = (id: string) => {
			const body = eventBody(id);
			const token = jwt({ alg: 'ES256', typ: 'JWT', kid: 'ec_a' }, deliveryClaims(body, id), es(ecA));
			return verifyDeliveryWith(new TextEncoder().encode(body), readHeaders({ 'x-signature': token }), verifier);
		};
		const first = run('evt_import_1');
		expect(first).toBeInstanceOf(Promise);
		await expect(first).resolves.toMatchObject({ keyId: 'ec_a', event: { id: 'evt_import_1' } });
		// The imported key is kept: the next deliveries are verified synchronously (no promise), with no new import.
		for (const id of ['evt_import_2', 'evt_import_3']) expect(run(id)).toMatchObject({ keyId: 'ec_a', event: { id } });
		expect(imports.count).toBe(1);
	});

	it('deliveries that arrive while the key is being imported wait for the same import', async () => {
		const { platform: asyncImport, imports } = asynchronousKeyImport();
		const keySet = [jwkOf(edA, 'ed_a')];
		const verifier = prepareVerifier({ keySet: { keys: () => keySet }, now: NOW }, asyncImport);
		const runs = ['evt_c1', 'evt_c2', 'evt_c3'].map((id) => {
			const { body, headers } = edDelivery(id, 'ed_a');
			return verifyDeliveryWith(new TextEncoder().encode(body), readHeaders(headers), verifier);
		});
		expect((await Promise.all(runs)).map((verified) => verified.event.id)).toEqual(['evt_c1', 'evt_c2', 'evt_c3']);
		expect(imports.count).toBe(1);
	});
});

describe('ES256 and EdDSA signatures of the wrong length', () => {
	it.each([63, 65, 72])('a %i-byte signature does not verify', (length) => {
		const body = eventBody('evt_len');
		const claims = deliveryClaims(body, 'evt_len');
		for (const [alg, kid, jwk] of [
			['ES256', 'ec_a', jwkOf(ecA, 'ec_a')],
			['EdDSA', 'ed_a', jwkOf(edA, 'ed_a')],
		] as const) {
			const signature = jwt({ alg, typ: 'JWT', kid }, claims, (input) => {
				const full = alg === 'ES256' ? es(ecA)(input) : ed(edA)(input);
				return length <= 64 ? full.subarray(0, length) : Buffer.concat([full, Buffer.alloc(length - 64)]);
			});
			expect(refusalOf(() => verify({ keySet: { keys: () => [jwk] } }, body, { 'x-signature': signature }))).toEqual({
				code: 'invalid_signature',
				message: 'JWT signature does not verify',
			});
		}
	});
});

describe('key set entries and JWT header members of the wrong type', () => {
	it('a null entry in a key set is skipped: the key after it verifies', () => {
		const { body, headers } = edDelivery('evt_null', 'ed_a');
		const keys = [null, jwkOf(edA, 'ed_a')] as unknown as PublicJwk[];
		expect((verify({ keySet: { keys: () => keys } }, body, headers) as VerifiedDelivery).keyId).toBe('ed_a');
	});

	it("an entry that is not a JSON object is never a key, even with a key's members", () => {
		const { body, headers } = edDelivery('evt_fn', 'ed_a');
		const notAnObject = Object.assign(() => undefined, jwkOf(edA, 'ed_a')) as unknown as PublicJwk;
		expect(refusalOf(() => verify({ keySet: { keys: () => [notAnObject] } }, body, headers))).toEqual({
			code: 'key_not_found',
			message: 'No key in the key set matches kid "ed_a" and alg EdDSA',
		});
	});

	it('a kid that is not a string matches no key', () => {
		const { body, headers } = edDelivery('evt_numkid', 5);
		expect(
			refusalOf(() => verify({ keySet: { keys: () => [jwkOf(edA, 'ed_a'), jwkOf(edB)] } }, body, headers)),
		).toEqual({
			code: 'key_not_found',
			message: 'No key in the key set matches kid "5" and alg EdDSA',
		});
	});

	it('a non-string kid or jti of an HS256 token is not reported as the key id or attempt id', () => {
		const body = eventBody('evt_types');
		const typed = jwt({ alg: 'HS256', typ: 'JWT', kid: 5 }, deliveryClaims(body, 'evt_types', { jti: 7 }), hs256);
		const verified = verify({ secrets: SECRET }, body, { 'x-signature': typed }) as VerifiedDelivery;
		expect([verified.keyId, verified.attemptId]).toEqual([undefined, undefined]);
		const named = jwt(
			{ alg: 'HS256', typ: 'JWT', kid: 'hook_key' },
			deliveryClaims(body, 'evt_types', { jti: 'attempt_2' }),
			hs256,
		);
		const namedVerified = verify({ secrets: SECRET }, body, { 'x-signature': named }) as VerifiedDelivery;
		expect([namedVerified.keyId, namedVerified.attemptId]).toEqual(['hook_key', 'attempt_2']);
	});
});

describe('hook secrets', () => {
	const bytes = (length: number) => Buffer.from(Array.from({ length }, (_, i) => i + 1));

	it('a secret of 15 bytes is refused, naming the option and the minimum', () => {
		expect(() => prepareVerifier({ secrets: [SECRET, `whsec_${bytes(15).toString('base64')}`] }, nodeCrypto)).toThrow(
			new TypeError('secrets[1] is too short: a hook secret carries at least 16 bytes (32 are generated)'),
		);
	});

	it('a secret of exactly 16 bytes verifies deliveries signed with it, with or without "whsec_"', () => {
		const id = 'evt_short_secret';
		const body = eventBody(id);
		const token = jwt({ alg: 'HS256', typ: 'JWT' }, deliveryClaims(body, id), hmacWith(bytes(16)));
		for (const secret of [`whsec_${bytes(16).toString('base64')}`, bytes(16).toString('base64')]) {
			expect((verify({ secrets: secret }, body, { 'x-signature': token }) as VerifiedDelivery).event.id).toBe(id);
		}
	});

	it('an empty or non-base64 secret, or one that is not a string, is refused by name', () => {
		const notBase64 = new TypeError(
			'secrets[0] must be a hook secret "whsec_<base64>" (the part after "whsec_" is not base64)',
		);
		expect(() => prepareVerifier({ secrets: 'whsec_' }, nodeCrypto)).toThrow(notBase64);
		expect(() => prepareVerifier({ secrets: 'whsec_abc$' }, nodeCrypto)).toThrow(notBase64);
		expect(() => prepareVerifier({ secrets: [42 as unknown as string] }, nodeCrypto)).toThrow(
			new TypeError('secrets[0] must be a hook secret "whsec_<base64>"'),
		);
	});
});

describe('which keys of a set may verify', () => {
	const body = eventBody('evt_members');
	const signed = (kid?: string) => edDelivery('evt_members', kid).headers;
	const accepts = (jwk: PublicJwk, kid?: string) =>
		(verify({ keySet: { keys: () => [jwk] } }, body, signed(kid)) as VerifiedDelivery).event.id;

	it('members that are absent or undefined do not matter; well-formed ones are allowed', () => {
		const base = jwkOf(edA);
		expect(
			accepts({ ...base, kid: undefined, alg: undefined, use: undefined, key_ops: undefined, ext: undefined }),
		).toBe('evt_members');
		expect(accepts({ ...base, kid: 'k', alg: 'EdDSA', use: 'sig', key_ops: ['verify'], ext: false }, 'k')).toBe(
			'evt_members',
		);
		expect(accepts({ ...base, ext: true })).toBe('evt_members');
	});

	it.each([
		['a numeric kid', { kid: 5 }],
		['another algorithm', { alg: 'ES256' }],
		['use "enc"', { use: 'enc' }],
		['key_ops ["sign"]', { key_ops: ['sign'] }],
		['key_ops ["verify", "verify"]', { key_ops: ['verify', 'verify'] }],
		['key_ops "verify"', { key_ops: 'verify' }],
		['key_ops []', { key_ops: [] }],
		['ext "true"', { ext: 'true' }],
		['a private "d"', { d: 'AAAA' }],
		['a private "p"', { p: 'AAAA' }],
		['a private "q"', { q: 'AAAA' }],
		['a private "dp"', { dp: 'AAAA' }],
		['a private "dq"', { dq: 'AAAA' }],
		['a private "qi"', { qi: 'AAAA' }],
		['a symmetric "k"', { k: 'AAAA' }],
		['the P-256 curve', { crv: 'P-256' }],
		['the EC key type', { kty: 'EC' }],
	])('a key with %s is never used', (_name, member) => {
		expect(
			refusalOf(() => verify({ keySet: { keys: () => [{ ...jwkOf(edA), ...member } as PublicJwk] } }, body, signed())),
		).toEqual({
			code: 'key_not_found',
			message: 'No key in the key set matches kid "undefined" and alg EdDSA',
		});
	});

	it('a key set that is not { keys: [...] } is refused by name', () => {
		const message = new TypeError('jwks must be a JSON Web Key Set: { keys: [...] }');
		expect(() => localKeySet(null as never)).toThrow(message);
		expect(() => localKeySet('keys' as never)).toThrow(message);
		expect(() => localKeySet({ keys: {} } as never)).toThrow(message);
		expect(() => localKeySet(Object.assign(() => undefined, { keys: [] }) as never)).toThrow(message);
		expect(() => localKeySet({ keys: 'x' } as never, 'options.jwks')).toThrow(
			new TypeError('options.jwks must be a JSON Web Key Set: { keys: [...] }'),
		);
		const keys = [jwkOf(edA)];
		expect(localKeySet({ keys }).keys()).toBe(keys);
	});

	it('secrets and public keys decoded without an option name are named by their kind', () => {
		expect(() => decodeHookSecret('whsec_')).toThrow(
			new TypeError('secret must be a hook secret "whsec_<base64>" (the part after "whsec_" is not base64)'),
		);
		expect(() => decodeHookPublicKey('whpk_')).toThrow(
			new TypeError('publicKey must be a hook public key "whpk_<base64 of 32 bytes>" (Ed25519)'),
		);
		expect(() => decodeHookPublicKey(`whpk_${Buffer.alloc(33).toString('base64')}`)).toThrow(TypeError);
		// Another five-character prefix is not "whpk_", even when the rest is a valid key.
		expect(() => decodeHookPublicKey(whpk(edA).replace('whpk_', 'whsk_'))).toThrow(
			new TypeError('publicKey must be a hook public key "whpk_<base64 of 32 bytes>" (Ed25519)'),
		);
		expect(decodeHookPublicKey(whpk(edA))).toEqual({ kty: 'OKP', crv: 'Ed25519', x: jwkOf(edA).x });
	});
});

describe('a hook secret is imported once', () => {
	it('once imported, HMAC verification no longer waits for the import', async () => {
		let imports = 0;
		const asyncImport: PlatformCrypto = {
			...nodeCrypto,
			importHmacKey: async (bytes) => {
				imports += 1;
				return nodeCrypto.importHmacKey(bytes);
			},
		};
		const verifier = prepareVerifier({ secrets: SECRET, now: NOW }, asyncImport);
		const run = (id: string) => {
			const body = eventBody(id);
			return verifyDeliveryWith(
				new TextEncoder().encode(body),
				readHeaders({ 'x-signature': jwt({ alg: 'HS256', typ: 'JWT' }, deliveryClaims(body, id), hs256) }),
				verifier,
			);
		};
		const first = run('evt_hmac_1');
		expect(first).toBeInstanceOf(Promise);
		await expect(first).resolves.toMatchObject({ event: { id: 'evt_hmac_1' } });
		for (const id of ['evt_hmac_2', 'evt_hmac_3']) expect(run(id)).toMatchObject({ event: { id } });
		expect(imports).toBe(1);
	});
});

describe('a JWT that no configured key made: a hint marked unverified, only over a body for the event its claims name', () => {
	const JWT_HINT =
		'Unverified request (nothing vouches for what it claims): its signature matches none of the configured keys, and its body is JSON ' +
		'whose "id" equals its JWT\'s "evt" claim, as a delivery\'s does. If the service sent it, the secret or public key is not this ' +
		"hook's (the one /hook/create returned for it)";
	const OTHER_SECRET = Buffer.alloc(32, 9);

	function refusal(run: () => unknown): DeliveryError {
		try {
			run();
		} catch (error) {
			if (error instanceof DeliveryError) return error;
			throw error;
		}
		throw new Error('expected a refusal, the delivery was accepted');
	}
	const hintOf = (error: DeliveryError) => [error.code, error.message, error.diagnostic, error.diagnosticUnverified];

	it('HS256 signed with another secret, its evt the body id: the hint, naming no id', () => {
		const body = eventBody('evt_chosen_7d1f');
		const headers = {
			'x-signature': jwt({ alg: 'HS256', typ: 'JWT' }, deliveryClaims(body, 'evt_chosen_7d1f'), hmacWith(OTHER_SECRET)),
		};
		const error = refusal(() => verify({ secrets: SECRET }, body, headers));
		expect(hintOf(error)).toEqual([
			'invalid_signature',
			'JWT signature matches none of the configured secrets',
			JWT_HINT,
			true,
		]);
		expect(error.diagnostic).not.toContain('evt_chosen_7d1f');
	});

	it('EdDSA signed by a key outside the key set, its evt the body id: the same hint', () => {
		const { body, headers } = edDelivery('evt_outside', 'ed_a', ed(edOutside));
		expect(
			hintOf(refusal(() => verify({ keySet: localKeySet({ keys: [jwkOf(edA, 'ed_a')] }) }, body, headers))),
		).toEqual(['invalid_signature', 'JWT signature does not verify', JWT_HINT, true]);
	});

	it('no hint, and the same refusal, when the claims of a token that no key made cannot be read', () => {
		const body = eventBody('evt_unreadable');
		const input = `${b64u(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64u('not json')}`;
		const headers = { 'x-signature': `${input}.${b64u(hmacWith(OTHER_SECRET)(input))}` };
		expect(hintOf(refusal(() => verify({ secrets: SECRET }, body, headers)))).toEqual([
			'invalid_signature',
			'JWT signature matches none of the configured secrets',
			undefined,
			undefined,
		]);
	});

	it.each([
		[
			'its evt is another event than the body',
			(body: string) => deliveryClaims(body, 'evt_other'),
			eventBody('evt_body'),
		],
		['the body is not JSON', () => deliveryClaims('x', 'evt_x'), 'evt_x'],
		[
			'its evt and the body id are the same number, not an event id',
			(body: string) => deliveryClaims(body, 'unused', { evt: 5 }),
			JSON.stringify({ id: 5 }),
		],
	])('no hint when %s', (_what, claimsOf, body) => {
		const headers = { 'x-signature': jwt({ alg: 'HS256', typ: 'JWT' }, claimsOf(body), hmacWith(OTHER_SECRET)) };
		expect(hintOf(refusal(() => verify({ secrets: SECRET }, body, headers)))).toEqual([
			'invalid_signature',
			'JWT signature matches none of the configured secrets',
			undefined,
			undefined,
		]);
	});
});
