import { generateKeyPairSync } from 'node:crypto';
import { createVerifier, generateHookSecret, sampleEvent, signDelivery } from '../src';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const secret = generateHookSecret();
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const jwks = { keys: [{ ...ec.publicKey.export({ format: 'jwk' }), kid: 'ec_1', alg: 'ES256', use: 'sig' }] };

async function signedJwt(alg: 'HS256' | 'ES256') {
	const event = sampleEvent('subscriber.new', { hook: 'hook_token' });
	const body = JSON.stringify(event);
	const jwtKey = alg === 'ES256' ? { alg, kid: 'ec_1', privateKey: ec.privateKey } : undefined;
	const { 'x-signature': token } = await signDelivery({
		body,
		eventId: event.id,
		hookId: 'hook_token',
		secret,
		jwtKey,
	});
	return { body, token };
}

/** Every other last character that decodes to the same bytes (it differs only in unused bits). */
function sameBytesSpellings(token: string): string[] {
	const segment = token.slice(token.lastIndexOf('.') + 1);
	const decoded = Buffer.from(segment, 'base64url');
	return [...ALPHABET]
		.map((char) => token.slice(0, -1) + char)
		.filter(
			(candidate) =>
				candidate !== token &&
				Buffer.from(candidate.slice(candidate.lastIndexOf('.') + 1), 'base64url').equals(decoded),
		);
}

describe('JWT token checks before jose', () => {
	it.each([
		['HS256', () => createVerifier({ secrets: secret })],
		['ES256', () => createVerifier({ jwks })],
	] as const)(
		'%s: accepts the canonical signature and refuses every other spelling of the same bytes',
		async (alg, verifier) => {
			const { body, token } = await signedJwt(alg);
			const spellings = sameBytesSpellings(token);
			// 32-byte HMAC: 2 unused bits (3 other spellings); 64-byte ECDSA: 4 unused bits (15).
			expect(spellings).toHaveLength(alg === 'HS256' ? 3 : 15);
			const v = verifier();
			await expect(v.verify(body, { 'x-signature': token })).resolves.toMatchObject({ scheme: 'jwt' });
			for (const spelling of spellings) {
				await expect(v.verify(body, { 'x-signature': spelling })).rejects.toMatchObject({
					code: 'malformed_signature',
				});
			}
		},
	);

	it('refuses a signature segment of 4n+1 characters (not base64url)', async () => {
		const { body, token } = await signedJwt('HS256');
		const padded = `${token}AA`; // 43 + 2 = 45 characters
		await expect(createVerifier({ secrets: secret }).verify(body, { 'x-signature': padded })).rejects.toMatchObject({
			code: 'malformed_signature',
		});
	});

	it('decodes each header on its own: a cached header never stands in for another one', async () => {
		const verifier = createVerifier({ secrets: secret });
		const { body, token } = await signedJwt('HS256');
		await expect(verifier.verify(body, { 'x-signature': token })).resolves.toMatchObject({ keyId: 'hook_token' });
		const [, payload, signature] = token.split('.');
		const encode = (header: object) => Buffer.from(JSON.stringify(header)).toString('base64url');
		const none = `${encode({ alg: 'none', typ: 'JWT' })}.${payload}.`;
		await expect(verifier.verify(body, { 'x-signature': none })).rejects.toMatchObject({
			code: 'algorithm_not_allowed',
		});
		const otherKid = `${encode({ alg: 'HS256', kid: 'hook_other', typ: 'JWT' })}.${payload}.${signature}`;
		await expect(verifier.verify(body, { 'x-signature': otherKid })).rejects.toMatchObject({
			code: 'invalid_signature',
		});
		const unreadable = `${Buffer.from('{"alg":').toString('base64url')}.${payload}.${signature}`;
		await expect(verifier.verify(body, { 'x-signature': unreadable })).rejects.toMatchObject({
			code: 'malformed_signature',
		});
		// The original still verifies after the others were seen.
		await expect(verifier.verify(body, { 'x-signature': token })).resolves.toMatchObject({ scheme: 'jwt' });
	});
});
