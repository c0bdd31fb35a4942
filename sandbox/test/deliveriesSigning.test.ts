import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { openSandbox } from './client';
import { secretBytes, TestReceiver, verifyDeliveryJwt, verifyStandardWebhook } from './hooksTestReceiver';

describe.each(['ES256', 'EdDSA'] as const)('sandbox deliveries signed with the account key (%s)', (alg) => {
	test('JWKS publishes the public key; deliveries verify against it and still carry the Standard Webhooks HMAC', async () => {
		const { sandbox, api, close } = await openSandbox({ signingAlgorithm: alg });
		const inbox = await TestReceiver.start();
		try {
			const response = await fetch(`${sandbox.url}/.well-known/jwks.json`);
			expect(response.status).toBe(200);
			const jwks = (await response.json()) as { keys: Record<string, unknown>[] };
			expect(jwks.keys).toHaveLength(1);
			const [published] = jwks.keys;
			expect(published).toEqual(
				expect.objectContaining({ kid: expect.any(String), alg, use: 'sig', kty: alg === 'ES256' ? 'EC' : 'OKP' }),
			);
			expect(published).not.toHaveProperty('d');

			const created = await api.post('/hook/create', {
				name: 'asymmetric',
				url: inbox.url,
				events: ['payment.success'],
			});
			const paid = await fetch(`${sandbox.url}/sandbox/payments`, {
				method: 'POST',
				headers: { authorization: sandbox.adminKey, 'content-type': 'application/json' },
				body: JSON.stringify({
					botid: 'bot_wa',
					clientid: '+1555',
					messenger: 'whatsapp',
					amount: 42,
					currency: 'USD',
				}),
			});
			expect(paid.status).toBe(200);

			const [delivery] = await inbox.waitFor(1);
			expect(decodeProtectedHeader(String(delivery.headers['x-signature'])).kid).toBe(published.kid);
			const remoteKeys = createRemoteJWKSet(new URL(`${sandbox.url}/.well-known/jwks.json`));
			const claims = await verifyDeliveryJwt(delivery, remoteKeys, alg);
			expect(claims.aud).toBe(created.body.hook.id);
			verifyStandardWebhook(delivery, created.body.secret);
			// A verifier pinned to the public key's algorithm never accepts HS256 in its place.
			const token = String(delivery.headers['x-signature']);
			await expect(jwtVerify(token, secretBytes(created.body.secret), { algorithms: ['HS256'] })).rejects.toThrow(
				/alg/,
			);
		} finally {
			await close();
			await inbox.close();
		}
	});
});

test('with HS256 (the default) the JWKS is empty and needs no key', async () => {
	const { sandbox, close } = await openSandbox();
	try {
		const response = await fetch(`${sandbox.url}/.well-known/jwks.json`);
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual({ keys: [] });
	} finally {
		await close();
	}
});
