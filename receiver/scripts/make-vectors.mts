/**
 * Writes the shared delivery test vectors (test/fixtures/deliveries/*.json) with this package's signer.
 * Run after building: `npm run vectors -w receiver` (node 24 runs this file directly).
 * Everything is fixed (secrets, keys, clock, ids), so the files only change when this script does; ES256 signatures
 * are randomized by the algorithm itself and differ between runs while staying valid.
 */
import {
	createHash,
	createHmac,
	createPrivateKey,
	createPublicKey,
	sign as ed25519Sign,
	type KeyObject,
} from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, type JWK } from 'jose';
import {
	DELIVERY_ERROR_STATUS,
	sampleEvent,
	signDelivery,
	type DeliveryErrorCode,
} from '../dist/receiver/src/index.js';

const OUT = join(dirname(fileURLToPath(import.meta.url)), '../../test/fixtures/deliveries');

// Test-only material: published on purpose, never used outside the vectors.
const NOW = 1795000000;
const CREATED = new Date(NOW * 1000).toISOString();
const HOOK = 'hook_1';
const secretOf = (fill: number) => 'whsec_' + Buffer.alloc(32, fill).toString('base64');
const SECRET = secretOf(0x11);
const OLD_SECRET = secretOf(0x22);
const OTHER_SECRET = secretOf(0x33);
const EC_PRIVATE_JWK: JWK = {
	kty: 'EC',
	crv: 'P-256',
	x: 'cnpmuxPDAy6vhXQ54W4QqEFF46gsj0znrnAHqRSp5KQ',
	y: 'ilSKz9s5QJCfKR44WA2WA-aKKcREPypWZ0gMnns-p88',
	d: '8wMQUlBmcn_yQYIuaIb4R6Jy9qQKzthMTMBmDWYCcgU',
};
const ED_PRIVATE_JWK: JWK = {
	kty: 'OKP',
	crv: 'Ed25519',
	x: 'stnfxPWEemis7ItfeIIkU0pxIJW2OKObBAqPCqcw3Jc',
	d: 'GTEBEYSzaAk4jThO_n5I2PaTwoxRbD839nmBxUEydZ8',
};
const EC_KEY = createPrivateKey({ key: EC_PRIVATE_JWK as never, format: 'jwk' });
const ED_KEY = createPrivateKey({ key: ED_PRIVATE_JWK as never, format: 'jwk' });
const publicJwk = (key: KeyObject, kid: string, alg: string) => ({
	...createPublicKey(key).export({ format: 'jwk' }),
	kid,
	alg,
	use: 'sig',
});
const JWKS = { keys: [publicJwk(EC_KEY, 'es256_key_1', 'ES256'), publicJwk(ED_KEY, 'eddsa_key_1', 'EdDSA')] };
/** A hook's v1a key pair from a fixed 32-byte seed, and its public key as `whpk_<base64>`. */
const hookKeyOf = (fill: number) =>
	createPrivateKey({
		key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.alloc(32, fill).toString('base64url'), x: '' } as never,
		format: 'jwk',
	});
const whpk = (key: KeyObject) =>
	'whpk_' + Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url').toString('base64');
const HOOK_KEY = hookKeyOf(0x44);
const OLD_HOOK_KEY = hookKeyOf(0x55);
const HOOK_PUBLIC_KEY = whpk(HOOK_KEY);

interface Verifier {
	secrets?: string[];
	publicKeys?: string[];
	jwks?: typeof JWKS;
	algorithms?: string[];
	audience?: string[];
	issuer?: string;
	toleranceSeconds: number;
	maxBodyBytes: number;
	now: number;
}
type Expected =
	| { valid: true; eventId: string; type: string; status: 200 }
	| { valid: false; error: DeliveryErrorCode; status: number };
interface Vector {
	name: string;
	description: string;
	verifier: Verifier;
	request: { method: 'POST'; headers: Record<string, string>; body: string };
	expected: Expected;
}

const hmacVerifier = (overrides: Partial<Verifier> = {}): Verifier => ({
	secrets: [SECRET],
	algorithms: ['HS256'],
	audience: [HOOK],
	toleranceSeconds: 300,
	maxBodyBytes: 1048576,
	now: NOW,
	...overrides,
});
const jwksVerifier = (overrides: Partial<Verifier> = {}): Verifier => ({
	jwks: JWKS,
	algorithms: ['ES256', 'EdDSA'],
	audience: [HOOK],
	toleranceSeconds: 300,
	maxBodyBytes: 1048576,
	now: NOW,
	...overrides,
});

let counter = 0;
function eventBody(type: string, data?: Record<string, unknown>, hook = HOOK): { id: string; body: string } {
	counter += 1;
	const id = `evt_vector_${String(counter).padStart(3, '0')}`;
	return { id, body: JSON.stringify(sampleEvent(type, { id, hook, created: CREATED, data })) };
}

const JSON_TYPE = { 'content-type': 'application/json' };
const jwtHeaders = (h: Record<string, string>) => ({ ...JSON_TYPE, 'x-signature': h['x-signature'] });
const swHeaders = (h: Record<string, string>) => ({
	...JSON_TYPE,
	'webhook-id': h['webhook-id'],
	'webhook-timestamp': h['webhook-timestamp'],
	'webhook-signature': h['webhook-signature'],
});
const sign = (body: string, eventId: string, extra: Partial<Parameters<typeof signDelivery>[0]> = {}) =>
	signDelivery({
		body,
		eventId,
		hookId: HOOK,
		secret: SECRET,
		timestamp: NOW - 2,
		attemptId: `att_${eventId}`,
		...extra,
	});
const secretBytes = (secret: string) => Buffer.from(secret.slice('whsec_'.length), 'base64');
const swSignature = (secret: string, id: string, timestamp: number, body: string) =>
	'v1,' + createHmac('sha256', secretBytes(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');

/** A JWT with chosen header and claims, for the vectors the regular signer must never produce. */
async function customJwt(
	header: Record<string, unknown>,
	claims: Record<string, unknown>,
	key: Uint8Array | KeyObject,
): Promise<string> {
	return new SignJWT(claims).setProtectedHeader(header as never).sign(key);
}
function contractClaims(body: string, eventId: string, iat = NOW - 2): Record<string, unknown> {
	return {
		iss: 'messenger-bot-builder',
		aud: HOOK,
		iat,
		exp: iat + 300,
		jti: `att_${eventId}`,
		evt: eventId,
		body_sha256: createHash('sha256').update(body).digest('base64url'),
	};
}

const valid = (id: string, type: string): Expected => ({ valid: true, eventId: id, type, status: 200 });
const invalid = (error: DeliveryErrorCode): Expected => ({ valid: false, error, status: DELIVERY_ERROR_STATUS[error] });
const vector = (
	name: string,
	description: string,
	verifier: Verifier,
	headers: Record<string, string>,
	body: string,
	expected: Expected,
): Vector => ({ name, description, verifier, request: { method: 'POST', headers, body }, expected });

async function buildVectors(): Promise<Vector[]> {
	const vectors: Vector[] = [];
	const kinds = ['subscriber.new', 'subscriber.stage', 'payment.success'];

	for (const type of kinds) {
		const { id, body } = eventBody(type);
		vectors.push(
			vector(
				`valid-jwt-hs256-${type}`,
				`${type} signed with an HS256 JWT keyed by the hook secret`,
				hmacVerifier(),
				jwtHeaders(await sign(body, id)),
				body,
				valid(id, type),
			),
		);
	}
	for (const type of kinds) {
		const { id, body } = eventBody(type);
		vectors.push(
			vector(
				`valid-standard-webhooks-${type}`,
				`${type} signed with Standard Webhooks headers only`,
				hmacVerifier(),
				swHeaders(await sign(body, id)),
				body,
				valid(id, type),
			),
		);
	}
	{
		const { id, body } = eventBody('subscriber.new');
		const h = await sign(body, id, { jwtKey: { alg: 'ES256', kid: 'es256_key_1', privateKey: EC_KEY } });
		vectors.push(
			vector(
				'valid-jwt-es256',
				'ES256 JWT; the verifier has the account JWKS',
				jwksVerifier(),
				jwtHeaders(h),
				body,
				valid(id, 'subscriber.new'),
			),
		);
	}
	{
		const { id, body } = eventBody('payment.success');
		const h = await sign(body, id, { jwtKey: { alg: 'EdDSA', kid: 'eddsa_key_1', privateKey: ED_KEY } });
		vectors.push(
			vector(
				'valid-jwt-eddsa',
				'EdDSA (Ed25519) JWT; the verifier has the account JWKS',
				jwksVerifier(),
				jwtHeaders(h),
				body,
				valid(id, 'payment.success'),
			),
		);
	}
	{
		const { id, body } = eventBody('subscriber.stage');
		const h = await sign(body, id, { secret: OLD_SECRET });
		vectors.push(
			vector(
				'valid-jwt-rotated-secret',
				'HS256 JWT signed with the older of two configured secrets (rotation)',
				hmacVerifier({ secrets: [SECRET, OLD_SECRET] }),
				jwtHeaders(h),
				body,
				valid(id, 'subscriber.stage'),
			),
		);
	}
	{
		const { id, body } = eventBody('subscriber.new');
		const headers = {
			...swHeaders(await sign(body, id)),
			'webhook-signature': `${swSignature(OLD_SECRET, id, NOW - 2, body)} ${swSignature(SECRET, id, NOW - 2, body)}`,
		};
		vectors.push(
			vector(
				'valid-standard-webhooks-rotated-secrets',
				'Two space-separated signatures (old and new secret); the verifier holds both secrets',
				hmacVerifier({ secrets: [OLD_SECRET, SECRET] }),
				headers,
				body,
				valid(id, 'subscriber.new'),
			),
		);
		vectors.push(
			vector(
				'valid-standard-webhooks-rotated-new-secret-only',
				'Two signatures during a rotation; the verifier holds only the new secret',
				hmacVerifier(),
				headers,
				body,
				valid(id, 'subscriber.new'),
			),
		);
	}
	{
		const { id, body } = eventBody('subscriber.tagged', { tag: 'vip' });
		vectors.push(
			vector(
				'valid-unknown-event-kind',
				'An event kind this version does not know is accepted (envelope checked only)',
				hmacVerifier(),
				jwtHeaders(await sign(body, id)),
				body,
				valid(id, 'subscriber.tagged'),
			),
		);
	}
	{
		const { id, body } = eventBody('payment.success');
		const h = await sign(body, id);
		vectors.push(
			vector(
				'valid-both-signatures',
				'Both the JWT and the Standard Webhooks headers, as the service sends them',
				hmacVerifier(),
				{ ...jwtHeaders(h), ...swHeaders(h) },
				body,
				valid(id, 'payment.success'),
			),
		);
		const garbage = `v1a,AAAA v2,${'x'.repeat(44)} v1,not-base64!! ${h['webhook-signature']}`;
		vectors.push(
			vector(
				'valid-standard-webhooks-among-garbage',
				'Unknown versions and unparsable entries are skipped; one good v1 signature suffices',
				hmacVerifier(),
				{ ...swHeaders(h), 'webhook-signature': garbage },
				body,
				valid(id, 'payment.success'),
			),
		);
	}

	// Refusals.
	{
		const { id, body } = eventBody('subscriber.new');
		const h = await sign(body, id);
		const tampered = body.replace('Ada Lovelace', 'Eve Mallory');
		vectors.push(
			vector(
				'invalid-jwt-tampered-body',
				'Body changed after signing; the JWT still verifies but body_sha256 does not',
				hmacVerifier(),
				jwtHeaders(h),
				tampered,
				invalid('body_hash_mismatch'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-tampered-body',
				'Body changed after signing',
				hmacVerifier(),
				swHeaders(h),
				tampered,
				invalid('invalid_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-jwt-wrong-secret',
				'The verifier holds a different secret',
				hmacVerifier({ secrets: [OTHER_SECRET] }),
				jwtHeaders(h),
				body,
				invalid('invalid_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-wrong-secret',
				'The verifier holds a different secret',
				hmacVerifier({ secrets: [OTHER_SECRET] }),
				swHeaders(h),
				body,
				invalid('invalid_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-missing-signature',
				'No X-Signature and no Standard Webhooks headers',
				hmacVerifier(),
				{ ...JSON_TYPE },
				body,
				invalid('missing_signature'),
			),
		);
		const { 'webhook-timestamp': _dropped, ...withoutTimestamp } = swHeaders(h);
		vectors.push(
			vector(
				'invalid-standard-webhooks-missing-timestamp',
				'webhook-signature without webhook-timestamp',
				hmacVerifier(),
				withoutTimestamp,
				body,
				invalid('missing_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-jwt-wrong-audience',
				'The JWT is for another hook',
				hmacVerifier({ audience: ['hook_2'] }),
				jwtHeaders(h),
				body,
				invalid('audience_mismatch'),
			),
		);
		vectors.push(
			vector(
				'invalid-jwt-wrong-issuer',
				'The verifier requires another issuer',
				hmacVerifier({ issuer: 'someone-else' }),
				jwtHeaders(h),
				body,
				invalid('issuer_mismatch'),
			),
		);
		vectors.push(
			vector(
				'invalid-oversized-body',
				'The body is larger than maxBodyBytes (checked before any signature work)',
				hmacVerifier({ maxBodyBytes: 256 }),
				jwtHeaders(h),
				body,
				invalid('body_too_large'),
			),
		);
		vectors.push(
			vector(
				'invalid-jwt-malformed',
				'X-Signature is not a compact JWT',
				hmacVerifier(),
				{ ...JSON_TYPE, 'x-signature': 'not-a-jwt' },
				body,
				invalid('malformed_signature'),
			),
		);
		const token = h['x-signature'];
		const last = token.at(-1)!;
		// 32 bytes in base64url leave 2 unused bits in the last character: flipping them keeps the same bytes.
		const twin = 'AEIMQUYcgkosw048'.includes(last) ? String.fromCharCode(last.charCodeAt(0) + 1) : last;
		vectors.push(
			vector(
				'invalid-jwt-non-canonical-signature',
				'The signature segment spelled with different unused bits (same bytes)',
				hmacVerifier(),
				{ ...JSON_TYPE, 'x-signature': token.slice(0, -1) + twin },
				body,
				invalid('malformed_signature'),
			),
		);
	}
	{
		const { id, body } = eventBody('subscriber.stage');
		const h = await sign(body, id, { timestamp: NOW - 1000 });
		vectors.push(
			vector(
				'invalid-jwt-expired',
				'iat 1000 s ago, exp = iat + 300',
				hmacVerifier(),
				jwtHeaders(h),
				body,
				invalid('expired'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-timestamp-too-old',
				'webhook-timestamp 1000 s ago (tolerance 300 s)',
				hmacVerifier(),
				swHeaders(h),
				body,
				invalid('timestamp_out_of_tolerance'),
			),
		);
	}
	{
		const { id, body } = eventBody('subscriber.stage');
		const h = await sign(body, id, { timestamp: NOW + 600 });
		vectors.push(
			vector(
				'invalid-jwt-future-iat',
				'iat 600 s in the future',
				hmacVerifier(),
				jwtHeaders(h),
				body,
				invalid('not_yet_valid'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-timestamp-in-future',
				'webhook-timestamp 600 s in the future',
				hmacVerifier(),
				swHeaders(h),
				body,
				invalid('timestamp_out_of_tolerance'),
			),
		);
	}
	{
		const { id, body } = eventBody('payment.success');
		const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
		const none = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(contractClaims(body, id))}.`;
		vectors.push(
			vector(
				'invalid-jwt-alg-none',
				'Unsigned JWT (alg none)',
				hmacVerifier(),
				{ ...JSON_TYPE, 'x-signature': none },
				body,
				invalid('algorithm_not_allowed'),
			),
		);
		const publicJwkBytes = new TextEncoder().encode(JSON.stringify(JWKS.keys[0]));
		const confused = await customJwt(
			{ alg: 'HS256', kid: 'es256_key_1', typ: 'JWT' },
			contractClaims(body, id),
			publicJwkBytes,
		);
		vectors.push(
			vector(
				'invalid-jwt-algorithm-confusion',
				'HS256 keyed by the public JWK, sent to a verifier configured with public keys only',
				jwksVerifier(),
				{ ...JSON_TYPE, 'x-signature': confused },
				body,
				invalid('algorithm_not_allowed'),
			),
		);
		const hs = await sign(body, id);
		vectors.push(
			vector(
				'invalid-jwt-hs256-with-key-set',
				'HS256 JWT to a verifier with a key set (HS* is never allowed with public keys)',
				jwksVerifier({ secrets: [SECRET] }),
				jwtHeaders(hs),
				body,
				invalid('algorithm_not_allowed'),
			),
		);
		const unknownKid = await customJwt(
			{ alg: 'ES256', kid: 'es256_retired', typ: 'JWT' },
			contractClaims(body, id),
			EC_KEY,
		);
		vectors.push(
			vector(
				'invalid-jwt-unknown-kid',
				'ES256 JWT whose kid is not in the key set',
				jwksVerifier(),
				{ ...JSON_TYPE, 'x-signature': unknownKid },
				body,
				invalid('key_not_found'),
			),
		);
		const evtMismatch = await customJwt(
			{ alg: 'HS256', kid: HOOK, typ: 'JWT' },
			{ ...contractClaims(body, id), evt: 'evt_another' },
			secretBytes(SECRET),
		);
		vectors.push(
			vector(
				'invalid-jwt-evt-mismatch',
				'Correctly signed JWT whose evt is another event id',
				hmacVerifier(),
				{ ...JSON_TYPE, 'x-signature': evtMismatch },
				body,
				invalid('event_id_mismatch'),
			),
		);
		const hashMismatch = await customJwt(
			{ alg: 'HS256', kid: HOOK, typ: 'JWT' },
			{ ...contractClaims(body, id), body_sha256: createHash('sha256').update('{}').digest('base64url') },
			secretBytes(SECRET),
		);
		vectors.push(
			vector(
				'invalid-jwt-body-sha256-mismatch',
				'Correctly signed JWT whose body_sha256 is the hash of another body',
				hmacVerifier(),
				{ ...JSON_TYPE, 'x-signature': hashMismatch },
				body,
				invalid('body_hash_mismatch'),
			),
		);
		const { body_sha256: _omitted, ...withoutHash } = contractClaims(body, id);
		const missingClaim = await customJwt({ alg: 'HS256', kid: HOOK, typ: 'JWT' }, withoutHash, secretBytes(SECRET));
		vectors.push(
			vector(
				'invalid-jwt-missing-body-sha256',
				'Correctly signed JWT without the body_sha256 claim',
				hmacVerifier(),
				{ ...JSON_TYPE, 'x-signature': missingClaim },
				body,
				invalid('invalid_claims'),
			),
		);
		// Each claim the contract requires, left out of an otherwise valid token (aud: required once an audience is set).
		for (const claim of ['exp', 'iat', 'evt', 'aud'] as const) {
			const { [claim]: _left, ...without } = contractClaims(body, id);
			const token = await customJwt({ alg: 'HS256', kid: HOOK, typ: 'JWT' }, without, secretBytes(SECRET));
			const setting = claim === 'aud' ? ' (the verifier has an audience)' : '';
			vectors.push(
				vector(
					`invalid-jwt-missing-${claim}`,
					`Correctly signed JWT without the ${claim} claim${setting}`,
					hmacVerifier(),
					{ ...JSON_TYPE, 'x-signature': token },
					body,
					invalid('invalid_claims'),
				),
			);
		}
	}
	{
		const { id, body } = eventBody('subscriber.new');
		const signed = await signDelivery({
			body,
			eventId: 'evt_another',
			hookId: HOOK,
			secret: SECRET,
			timestamp: NOW - 2,
		});
		vectors.push(
			vector(
				'invalid-standard-webhooks-id-mismatch',
				'Correctly signed with webhook-id of another event than the body',
				hmacVerifier(),
				swHeaders(signed),
				body,
				invalid('event_id_mismatch'),
			),
		);
		const h = await sign(body, id);
		const wrong = swSignature(OTHER_SECRET, id, NOW - 2, body);
		vectors.push(
			vector(
				'invalid-standard-webhooks-duplicated-signatures',
				'The same wrong signature listed three times',
				hmacVerifier(),
				{ ...swHeaders(h), 'webhook-signature': `${wrong} ${wrong} ${wrong}` },
				body,
				invalid('invalid_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-garbage-signatures',
				'Only unparsable entries',
				hmacVerifier(),
				{ ...swHeaders(h), 'webhook-signature': 'v1, v1,!!!! v2,abc garbage v1,AAAA' },
				body,
				invalid('invalid_signature'),
			),
		);
		const many = [...Array(10).fill(wrong), h['webhook-signature']].join(' ');
		vectors.push(
			vector(
				'invalid-standard-webhooks-too-many-signatures',
				'More than 10 entries (even with a good one among them)',
				hmacVerifier(),
				{ ...swHeaders(h), 'webhook-signature': many },
				body,
				invalid('malformed_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-malformed-timestamp',
				'webhook-timestamp is not unix seconds',
				hmacVerifier(),
				{ ...swHeaders(h), 'webhook-timestamp': '2026-11-18T11:06:38Z' },
				body,
				invalid('malformed_signature'),
			),
		);
		// The reference libraries parseInt the header and sign the number: for them `0<t>` stands for `<t>`, and a
		// signature over the text `0<t>` never matches. The timestamp must be canonical decimal, so this is refused too.
		const zeroTimestamp = `0${NOW - 2}`;
		const zeroSigned =
			'v1,' + createHmac('sha256', secretBytes(SECRET)).update(`${id}.${zeroTimestamp}.${body}`).digest('base64');
		vectors.push(
			vector(
				'invalid-standard-webhooks-timestamp-leading-zero',
				'webhook-timestamp with a leading zero, HMAC over that text as sent (the reference libraries sign the parsed number)',
				hmacVerifier(),
				{ ...swHeaders(h), 'webhook-timestamp': zeroTimestamp, 'webhook-signature': zeroSigned },
				body,
				invalid('malformed_signature'),
			),
		);
		const otherHook = eventBody('subscriber.new', undefined, 'hook_2');
		const otherHookHeaders = await signDelivery({
			body: otherHook.body,
			eventId: otherHook.id,
			hookId: 'hook_2',
			secret: SECRET,
			timestamp: NOW - 2,
		});
		vectors.push(
			vector(
				'invalid-standard-webhooks-wrong-audience',
				'Standard Webhooks delivery whose body names another hook than the audience',
				hmacVerifier(),
				swHeaders(otherHookHeaders),
				otherHook.body,
				invalid('audience_mismatch'),
			),
		);
	}
	{
		const body = 'this is not json';
		const h = await sign(body, 'evt_vector_text');
		vectors.push(
			vector(
				'invalid-malformed-json',
				'Correctly signed body that is not JSON',
				hmacVerifier(),
				jwtHeaders(h),
				body,
				invalid('malformed_json'),
			),
		);
		const { id, body: stageBody } = eventBody('subscriber.stage');
		const broken = JSON.parse(stageBody);
		delete broken.data.stage;
		const brokenBody = JSON.stringify(broken);
		vectors.push(
			vector(
				'invalid-payload-schema',
				'Correctly signed subscriber.stage without data.stage',
				hmacVerifier(),
				jwtHeaders(await sign(brokenBody, id)),
				brokenBody,
				invalid('invalid_payload'),
			),
		);
	}
	{
		// Standard Webhooks v1a: Ed25519 over `id.timestamp.body`, signed here straight from the specification's text.
		const v1aVerifier = (publicKeys: string[]): Verifier => ({
			publicKeys,
			audience: [HOOK],
			toleranceSeconds: 300,
			maxBodyBytes: 1048576,
			now: NOW,
		});
		const { id, body } = eventBody('subscriber.new');
		const ts = NOW - 2;
		const v1a = (key: KeyObject, content = `${id}.${ts}.${body}`) =>
			'v1a,' + ed25519Sign(null, Buffer.from(content, 'utf8'), key).toString('base64');
		const headers = { ...JSON_TYPE, 'webhook-id': id, 'webhook-timestamp': String(ts) };
		vectors.push(
			vector(
				'valid-standard-webhooks-v1a',
				'Asymmetric Standard Webhooks signature (v1a, Ed25519); the verifier holds the hook public key whpk_',
				v1aVerifier([HOOK_PUBLIC_KEY]),
				{ ...headers, 'webhook-signature': v1a(HOOK_KEY) },
				body,
				valid(id, 'subscriber.new'),
			),
		);
		vectors.push(
			vector(
				'valid-standard-webhooks-v1a-rotated-keys',
				'Rotation: signed with the old and the new key; the verifier holds only the new one',
				v1aVerifier([HOOK_PUBLIC_KEY]),
				{ ...headers, 'webhook-signature': `${v1a(OLD_HOOK_KEY)} ${v1a(HOOK_KEY)}` },
				body,
				valid(id, 'subscriber.new'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-v1a-wrong-key',
				'v1a signature by another key than the hook public key',
				v1aVerifier([HOOK_PUBLIC_KEY]),
				{ ...headers, 'webhook-signature': v1a(OLD_HOOK_KEY) },
				body,
				invalid('invalid_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-v1a-tampered-body',
				'v1a signature over another body',
				v1aVerifier([HOOK_PUBLIC_KEY]),
				{ ...headers, 'webhook-signature': v1a(HOOK_KEY) },
				body.replace('Ada', 'Eve'),
				invalid('invalid_signature'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-v1a-timestamp-too-old',
				'Correct v1a signature, timestamp 301 s old',
				v1aVerifier([HOOK_PUBLIC_KEY]),
				{
					...headers,
					'webhook-timestamp': String(NOW - 301),
					'webhook-signature': v1a(HOOK_KEY, `${id}.${NOW - 301}.${body}`),
				},
				body,
				invalid('timestamp_out_of_tolerance'),
			),
		);
		vectors.push(
			vector(
				'invalid-standard-webhooks-v1a-hmac-only-key',
				'A v1 (HMAC) signature; the verifier holds only a v1a public key',
				v1aVerifier([HOOK_PUBLIC_KEY]),
				{ ...headers, 'webhook-signature': swSignature(SECRET, id, ts, body) },
				body,
				invalid('invalid_signature'),
			),
		);
	}
	return vectors;
}

const vectors = await buildVectors();
mkdirSync(OUT, { recursive: true });
for (const file of readdirSync(OUT)) if (file.endsWith('.json')) rmSync(join(OUT, file));
for (const v of vectors) writeFileSync(join(OUT, `${v.name}.json`), JSON.stringify(v, null, 2) + '\n');
console.log(`wrote ${vectors.length} vectors to ${OUT}`);
