import { generateKeyPairSync } from 'node:crypto';
import { createReceiver, createVerifier, DeliveryError, generateHookSecret, sampleEvent, signDelivery } from '../src';
import { serve, type RunningServer } from './helpers';

const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');
const jwks = {
	keys: [
		{ ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec_1', alg: 'ES256', use: 'sig' },
		{ ...ed.publicKey.export({ format: 'jwk' }), kid: 'ed_1', alg: 'EdDSA', use: 'sig' },
	],
};
const secret = generateHookSecret();

async function delivery(alg: 'ES256' | 'EdDSA', kid = alg === 'ES256' ? 'ec_1' : 'ed_1') {
	const event = sampleEvent('payment.success', { hook: 'hook_jwks' });
	const body = JSON.stringify(event);
	const privateKey = alg === 'ES256' ? ec.privateKey : ed.privateKey;
	const headers = await signDelivery({
		body,
		eventId: event.id,
		hookId: 'hook_jwks',
		secret,
		jwtKey: { alg, kid, privateKey },
	});
	return { body, headers: { 'content-type': 'application/json', 'x-signature': headers['x-signature'] } };
}

describe('JWKS (jwksUrl over HTTP)', () => {
	let server: RunningServer;
	let fetches = 0;
	beforeAll(async () => {
		server = await serve((_req, res) => {
			fetches += 1;
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify(jwks));
		});
	});
	afterAll(() => server.close());

	it('verifies ES256 and EdDSA deliveries and fetches the key set once', async () => {
		const verifier = createVerifier({ jwksUrl: `${server.url}/.well-known/jwks.json` });
		fetches = 0;
		for (const alg of ['ES256', 'EdDSA', 'ES256', 'EdDSA'] as const) {
			const { body, headers } = await delivery(alg);
			await expect(verifier.verify(body, headers)).resolves.toMatchObject({
				scheme: 'jwt',
				keyId: alg === 'ES256' ? 'ec_1' : 'ed_1',
			});
		}
		expect(fetches).toBe(1);
	});

	it('refuses an unknown kid (key_not_found) and HS256 tokens (algorithm_not_allowed)', async () => {
		const verifier = createVerifier({ jwksUrl: `${server.url}/jwks`, secrets: secret });
		const unknown = await delivery('ES256', 'ec_retired');
		await expect(verifier.verify(unknown.body, unknown.headers)).rejects.toMatchObject({ code: 'key_not_found' });
		const event = sampleEvent('subscriber.new', { hook: 'hook_jwks' });
		const body = JSON.stringify(event);
		const hs = await signDelivery({ body, eventId: event.id, hookId: 'hook_jwks', secret });
		await expect(verifier.verify(body, { 'x-signature': hs['x-signature'] })).rejects.toMatchObject({
			code: 'algorithm_not_allowed',
		});
		// The secrets still verify the Standard Webhooks headers of the same delivery.
		const { 'x-signature': _jwt, ...standardWebhooks } = hs;
		await expect(verifier.verify(body, standardWebhooks)).resolves.toMatchObject({ scheme: 'standard-webhooks' });
	});

	it('answers 503 key_set_unavailable when the key set cannot be fetched, so the sender retries', async () => {
		const down = await serve((_req, res) => {
			res.statusCode = 500;
			res.end();
		});
		try {
			const receiver = createReceiver({ jwksUrl: `${down.url}/jwks` });
			const { body, headers } = await delivery('EdDSA');
			const answer = await receiver.receive({ method: 'POST', headers, body });
			expect(answer.status).toBe(503);
			expect(answer.error).toBeInstanceOf(DeliveryError);
			expect(answer.error!.code).toBe('key_set_unavailable');
		} finally {
			await down.close();
		}
	});

	it('refuses a jwksUrl that is not http(s)', () => {
		expect(() => createVerifier({ jwksUrl: 'file:///etc/keys.json' })).toThrow(
			'jwksUrl must be an absolute http(s) URL',
		);
		expect(() => createVerifier({ jwksUrl: 'keys.json' })).toThrow('jwksUrl must be an absolute http(s) URL');
	});
});
