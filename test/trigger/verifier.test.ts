import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { generateHookSecret, signDelivery } from '../../receiver/src/sign';
import { verifyDelivery } from '../../nodes/MessengerBotBuilderTrigger/delivery';
import { omit } from '../support/omit';

/** Cases the shared vectors do not cover, checked against the trigger's own verifier. */
const SECRET = generateHookSecret();
const KEY = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
const NOW = 1_795_000_000;
const keys = { secrets: [SECRET], audience: ['hook_1'] };

const body = JSON.stringify({
	id: 'evt_1',
	type: 'subscriber.new',
	created: '2026-11-18T11:06:40.000Z',
	hook: 'hook_1',
	data: { subscriber: { botid: 'bot_tg', clientid: '42', messenger: 'telegram' } },
});

const signed = () => signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret: SECRET, timestamp: NOW });

/** A hand-made HS256 JWT, to put in headers and claims the signer would never write. */
function hs256(header: Record<string, unknown>, claims: Record<string, unknown>): string {
	const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
	const input = `${encode(header)}.${encode(claims)}`;
	return `${input}.${createHmac('sha256', KEY).update(input).digest('base64url')}`;
}

const validClaims = {
	iss: 'messenger-bot-builder',
	aud: 'hook_1',
	iat: NOW,
	exp: NOW + 300,
	evt: 'evt_1',
	body_sha256: createHash('sha256').update(body).digest('base64url'),
};

const verify = (headers: Record<string, string | string[]>, raw: string | Buffer = body) =>
	verifyDelivery({ headers, rawBody: raw }, keys, { now: NOW });

describe('trigger verifier, beyond the shared vectors', () => {
	it('accepts a hand-made token equal to what the signer writes', () => {
		expect(verify({ 'x-signature': hs256({ alg: 'HS256', typ: 'JWT' }, validClaims) })).toMatchObject({ ok: true });
	});

	it.each([
		['a critical header extension', { alg: 'HS256', typ: 'JWT', crit: ['exp'] }, validClaims, 'malformed_signature'],
		['a missing typ', { alg: 'HS256' }, validClaims, 'invalid_claims'],
		['an nbf in the future', { alg: 'HS256', typ: 'JWT' }, { ...validClaims, nbf: NOW + 60 }, 'not_yet_valid'],
		['a string exp', { alg: 'HS256', typ: 'JWT' }, { ...validClaims, exp: String(NOW + 300) }, 'invalid_claims'],
		['an empty evt', { alg: 'HS256', typ: 'JWT' }, { ...validClaims, evt: '' }, 'invalid_claims'],
		[
			'an aud list without this hook',
			{ alg: 'HS256', typ: 'JWT' },
			{ ...validClaims, aud: ['hook_2', 'hook_3'] },
			'audience_mismatch',
		],
		[
			'an exp just passed beyond the skew',
			{ alg: 'HS256', typ: 'JWT' },
			{ ...validClaims, iat: NOW - 310, exp: NOW - 10 },
			'expired',
		],
		['HS512', { alg: 'HS512', typ: 'JWT' }, validClaims, 'algorithm_not_allowed'],
	])('refuses a JWT with %s', (_what, header, claims, code) => {
		expect(verify({ 'x-signature': hs256(header, claims) })).toMatchObject({ ok: false, code });
	});

	it('accepts an aud list that names this hook, and a 4 s clock difference', () => {
		const token = hs256({ alg: 'HS256', typ: 'JWT' }, { ...validClaims, aud: ['hook_2', 'hook_1'], iat: NOW + 4 });
		expect(verify({ 'x-signature': token })).toMatchObject({ ok: true });
	});

	it('refuses an X-Signature header sent twice, even with two valid tokens', async () => {
		const headers = await signed();
		expect(verify({ 'x-signature': [headers['x-signature'], headers['x-signature']] })).toMatchObject({
			ok: false,
			code: 'malformed_signature',
		});
	});

	it('does not fall back to Standard Webhooks when the JWT fails', async () => {
		const headers = await signed();
		expect(verify({ ...headers, 'x-signature': headers['x-signature'].slice(0, -4) + 'AAAA' })).toMatchObject({
			ok: false,
		});
	});

	it('reads webhook-signature values spread over several header lines', async () => {
		const standard = omit(await signed(), 'x-signature');
		const wrong = `v1,${Buffer.alloc(32).toString('base64')}`;
		expect(verify({ ...standard, 'webhook-signature': [wrong, standard['webhook-signature']] })).toMatchObject({
			ok: true,
			scheme: 'standard-webhooks',
		});
	});

	it('accepts header names in any case', async () => {
		const headers = Object.fromEntries(
			Object.entries(await signed()).map(([name, value]) => [name.toUpperCase(), value]),
		);
		expect(verify(headers)).toMatchObject({ ok: true, scheme: 'jwt' });
	});

	it('never accepts a body that differs from the signed one by any byte', async () => {
		const headers = await signed();
		const bytes = Buffer.from(body);
		fc.assert(
			fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (index, flip) => {
				const changed = Buffer.from(bytes);
				changed[index] ^= flip;
				const jwt = verify({ 'x-signature': headers['x-signature'] }, changed);
				const standard = omit(headers, 'x-signature');
				const standardWebhooks = verify(standard, changed);
				return !jwt.ok && !standardWebhooks.ok;
			}),
			{ numRuns: 300 },
		);
	});

	describe('configuration errors', () => {
		it('names a malformed secret without showing it', () => {
			expect(() => verifyDelivery({ headers: {}, rawBody: body }, { secrets: ['whsec_not base64!'] })).toThrow(
				/^secrets\[0\] must be a hook secret/,
			);
			expect(() => verifyDelivery({ headers: {}, rawBody: body }, { secrets: ['whsec_not base64!'] })).not.toThrow(
				/not base64!/,
			);
		});

		it('refuses to allow HS256 next to public keys', () => {
			const jwks = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'stnfxPWEemis7ItfeIIkU0pxIJW2OKObBAqPCqcw3Jc' }] };
			expect(() => verifyDelivery({ headers: {}, rawBody: body }, { jwks, algorithms: ['HS256'] })).toThrow(
				/HS256 cannot be allowed/,
			);
		});
	});
});
