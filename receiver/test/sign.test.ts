import { createHash, createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeProtectedHeader, jwtVerify, createLocalJWKSet, exportJWK, type JWK } from 'jose';
import { generateHookSecret, signDelivery, type AsymmetricJwtKey } from '../src';
import { bodySha256 } from '../src/digest';

const body = JSON.stringify({
	id: 'evt_1',
	type: 'subscriber.new',
	created: '2026-11-21T10:00:00.000Z',
	hook: 'hook_1',
	data: {},
});

describe('signDelivery', () => {
	it('signs an HS256 JWT keyed by the secret bytes with the contract claims', async () => {
		const secret = generateHookSecret();
		const headers = await signDelivery({
			body,
			eventId: 'evt_1',
			hookId: 'hook_1',
			secret,
			timestamp: 1795000000,
			attemptId: 'att_1',
		});
		const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
		const { payload, protectedHeader } = await jwtVerify(headers['x-signature'], key, {
			algorithms: ['HS256'],
			currentDate: new Date(1795000010 * 1000),
		});
		expect(protectedHeader).toEqual({ alg: 'HS256', kid: 'hook_1', typ: 'JWT' });
		expect(payload).toEqual({
			iss: 'messenger-bot-builder',
			aud: 'hook_1',
			iat: 1795000000,
			exp: 1795000300,
			jti: 'att_1',
			evt: 'evt_1',
			body_sha256: bodySha256(body),
		});
	});

	it('signs Standard Webhooks headers as v1,base64(HMAC(secret bytes, id.timestamp.body))', async () => {
		const secret = generateHookSecret();
		const headers = await signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret, timestamp: 1795000000 });
		const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
		const expected = createHmac('sha256', key).update(`evt_1.1795000000.${body}`).digest('base64');
		expect(headers['webhook-id']).toBe('evt_1');
		expect(headers['webhook-timestamp']).toBe('1795000000');
		expect(headers['webhook-signature']).toBe(`v1,${expected}`);
	});

	it.each(['ES256', 'EdDSA'] as const)('signs with an asymmetric %s key and its kid', async (alg) => {
		const { privateKey, publicKey } =
			alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
		const jwk = { ...(await exportJWK(publicKey)), kid: 'key_1', alg };
		const headers = await signDelivery({
			body,
			eventId: 'evt_1',
			hookId: 'hook_1',
			secret: generateHookSecret(),
			jwtKey: { alg, kid: 'key_1', privateKey },
		});
		expect(decodeProtectedHeader(headers['x-signature'])).toEqual({ alg, kid: 'key_1', typ: 'JWT' });
		const { payload } = await jwtVerify(headers['x-signature'], createLocalJWKSet({ keys: [jwk] }), {
			algorithms: [alg],
		});
		expect(payload.evt).toBe('evt_1');
	});

	/** Key pairs of each kind the signer takes: node:crypto KeyObjects, and Web Crypto CryptoKeys (non-extractable). */
	async function keyPair(
		alg: 'ES256' | 'EdDSA',
		kind: 'KeyObject' | 'CryptoKey',
	): Promise<{ privateKey: AsymmetricJwtKey['privateKey']; jwk: JWK }> {
		if (kind === 'KeyObject') {
			const pair =
				alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
			return { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) };
		}
		const algorithm = alg === 'ES256' ? { name: 'ECDSA', namedCurve: 'P-256' } : { name: 'Ed25519' };
		const pair = (await webcrypto.subtle.generateKey(algorithm, false, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
		return { privateKey: pair.privateKey, jwk: await exportJWK(pair.publicKey) };
	}

	const contractClaims = (timestamp: number) => ({
		iss: 'messenger-bot-builder',
		aud: 'hook_1',
		iat: timestamp,
		exp: timestamp + 300,
		jti: 'att_1',
		evt: 'evt_1',
		body_sha256: createHash('sha256').update(body).digest('base64url'),
	});

	it.each([
		['ES256', 'KeyObject'],
		['ES256', 'CryptoKey'],
		['EdDSA', 'KeyObject'],
		['EdDSA', 'CryptoKey'],
	] as const)('signs %s with a %s: jose verifies the token, with the contract header and claims', async (alg, kind) => {
		const { privateKey, jwk } = await keyPair(alg, kind);
		const timestamp = 1795000000;
		const headers = await signDelivery({
			body,
			eventId: 'evt_1',
			hookId: 'hook_1',
			secret: generateHookSecret(),
			timestamp,
			attemptId: 'att_1',
			jwtKey: { alg, kid: 'key_1', privateKey },
		});
		const { payload, protectedHeader } = await jwtVerify(
			headers['x-signature'],
			createLocalJWKSet({ keys: [{ ...jwk, kid: 'key_1', alg }] }),
			{
				algorithms: [alg],
				typ: 'JWT',
				audience: 'hook_1',
				issuer: 'messenger-bot-builder',
				currentDate: new Date((timestamp + 10) * 1000),
				requiredClaims: ['iat', 'exp', 'evt', 'body_sha256'],
			},
		);
		expect(protectedHeader).toEqual({ alg, kid: 'key_1', typ: 'JWT' });
		expect(payload).toEqual(contractClaims(timestamp));
		// The JWS signature form: 64 bytes (ES256: r || s, not DER), in canonical base64url.
		const signature = headers['x-signature'].split('.')[2];
		expect(Buffer.from(signature, 'base64url')).toHaveLength(64);
		expect(Buffer.from(signature, 'base64url').toString('base64url')).toBe(signature);
	});

	it('signs HS256 byte for byte as the JWS specification does (HMAC-SHA256 over header.claims, compact JSON)', async () => {
		const secret = generateHookSecret();
		const timestamp = 1795000000;
		const headers = await signDelivery({
			body,
			eventId: 'evt_1',
			hookId: 'hook_1',
			secret,
			timestamp,
			attemptId: 'att_1',
		});
		const b64u = (value: string) => Buffer.from(value).toString('base64url');
		const claims = {
			evt: 'evt_1',
			body_sha256: createHash('sha256').update(body).digest('base64url'),
			iss: 'messenger-bot-builder',
			aud: 'hook_1',
			iat: timestamp,
			exp: timestamp + 300,
			jti: 'att_1',
		};
		const input = `${b64u(JSON.stringify({ alg: 'HS256', kid: 'hook_1', typ: 'JWT' }))}.${b64u(JSON.stringify(claims))}`;
		const mac = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
			.update(input)
			.digest('base64url');
		expect(headers['x-signature']).toBe(`${input}.${mac}`);
	});

	it("signs the shared vectors' deterministic JWTs (HS256, EdDSA) exactly as they are stored", async () => {
		const dir = `${__dirname}/../../test/fixtures/deliveries`;
		const vector = (name: string) => JSON.parse(readFileSync(`${dir}/${name}.json`, 'utf8'));
		const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
		const hs = vector('valid-jwt-hs256-subscriber.new');
		const hsClaims = claimsOf(hs.request.headers['x-signature']);
		const hsSigned = await signDelivery({
			body: hs.request.body,
			eventId: hsClaims.evt,
			hookId: hsClaims.aud,
			secret: hs.verifier.secrets[0],
			timestamp: hsClaims.iat,
			attemptId: hsClaims.jti,
		});
		expect(hsSigned['x-signature']).toBe(hs.request.headers['x-signature']);
		// The EdDSA vector's key (receiver/scripts/make-vectors.mts): Ed25519 signatures are deterministic.
		const ed = vector('valid-jwt-eddsa');
		const edClaims = claimsOf(ed.request.headers['x-signature']);
		const edJwk = {
			kty: 'OKP',
			crv: 'Ed25519',
			x: 'stnfxPWEemis7ItfeIIkU0pxIJW2OKObBAqPCqcw3Jc',
			d: 'GTEBEYSzaAk4jThO_n5I2PaTwoxRbD839nmBxUEydZ8',
		};
		const edSigned = await signDelivery({
			body: ed.request.body,
			eventId: edClaims.evt,
			hookId: edClaims.aud,
			secret: generateHookSecret(),
			timestamp: edClaims.iat,
			attemptId: edClaims.jti,
			jwtKey: { alg: 'EdDSA', kid: 'eddsa_key_1', privateKey: createPrivateKey({ key: edJwk, format: 'jwk' }) },
		});
		expect(edSigned['x-signature']).toBe(ed.request.headers['x-signature']);
	});

	it.each([
		['ES256 with an Ed25519 key', 'ES256', (): unknown => generateKeyPairSync('ed25519').privateKey],
		['ES256 with a P-384 key', 'ES256', (): unknown => generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey],
		['EdDSA with a P-256 key', 'EdDSA', (): unknown => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey],
		['EdDSA with a public key', 'EdDSA', (): unknown => createPublicKey(generateKeyPairSync('ed25519').privateKey)],
		['ES256 with a string', 'ES256', (): unknown => 'not a key'],
	] as const)('refuses to sign %s', async (_name, alg, key) => {
		await expect(
			signDelivery({
				body,
				eventId: 'evt_1',
				hookId: 'hook_1',
				secret: generateHookSecret(),
				jwtKey: { alg, kid: 'k', privateKey: key() as never },
			}),
		).rejects.toThrow(TypeError);
	});

	it('rejects a malformed secret without echoing it', async () => {
		await expect(
			signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret: 'not-a-secret-xyz' }),
		).rejects.toThrow(/^secret must be a hook secret/);
		await expect(
			signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret: 'not-a-secret-xyz' }),
		).rejects.not.toThrow(/xyz/);
	});

	it('generates whsec_ secrets of 32 random bytes', () => {
		const a = generateHookSecret();
		expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
		expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
		expect(generateHookSecret()).not.toBe(a);
	});
});
