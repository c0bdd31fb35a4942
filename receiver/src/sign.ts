import {
	createHmac,
	createSecretKey,
	generateKeyPairSync,
	KeyObject,
	randomUUID,
	sign as cryptoSign,
	webcrypto,
} from 'node:crypto';
import { bodySha256, standardWebhooksMac } from './digest';
import { HOOK_PUBLIC_KEY_PREFIX, standardWebhooksContent } from '../../nodes/shared/delivery';
import { decodeHookSecret } from './secret';

export { generateHookSecret } from './secret';

/** Default `iss` claim of delivery JWTs. */
export const DEFAULT_ISSUER = 'messenger-bot-builder';
/** Lifetime of a delivery JWT: `exp = iat + 300`. */
export const JWT_LIFETIME_SECONDS = 300;

export interface AsymmetricJwtKey {
	alg: 'ES256' | 'EdDSA';
	/** Key id published in the JWKS; receivers use it to pick the key. */
	kid: string;
	privateKey: webcrypto.CryptoKey | KeyObject;
}

export interface SignDeliveryInput {
	/** The exact raw JSON body that will be sent. */
	body: string;
	/** The body's `id` (`evt_...`). */
	eventId: string;
	/** The hook id: the JWT `aud`. */
	hookId: string;
	/** The hook secret `whsec_<base64 of 32 bytes>`; always used for the Standard Webhooks HMAC. */
	secret: string;
	/** JWT `iss` (default `messenger-bot-builder`). */
	issuer?: string;
	/** JWT `jti`: the id of this delivery attempt (default random). */
	attemptId?: string;
	/** Unix seconds of this attempt (default now). */
	timestamp?: number;
	/** Sign the JWT with an account key instead of HS256 with the hook secret. */
	jwtKey?: AsymmetricJwtKey;
}

/** The headers that carry a delivery's two signatures. */
export interface DeliverySignatureHeaders extends Record<string, string> {
	'x-signature': string;
	'webhook-id': string;
	'webhook-timestamp': string;
	'webhook-signature': string;
}

/**
 * Signs one delivery attempt: a JWT in `x-signature` and the Standard Webhooks headers.
 * Both cover the exact `body` string (UTF-8 bytes), so it must be sent unchanged.
 */
export async function signDelivery(input: SignDeliveryInput): Promise<DeliverySignatureHeaders> {
	const secretBytes = decodeHookSecret(input.secret, 'secret');
	if (typeof input.body !== 'string') throw new TypeError('body must be the raw JSON string that will be sent');
	if (!input.eventId) throw new TypeError('eventId is required');
	if (!input.hookId) throw new TypeError('hookId is required');
	const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
	if (!Number.isInteger(timestamp) || timestamp < 0) throw new TypeError('timestamp must be whole unix seconds');

	const jwt = await signDeliveryJwt(input, timestamp, secretBytes);
	const mac = standardWebhooksMac(createSecretKey(secretBytes), input.eventId, timestamp, input.body);
	return {
		'x-signature': jwt,
		'webhook-id': input.eventId,
		'webhook-timestamp': String(timestamp),
		'webhook-signature': `v1,${mac}`,
	};
}

/**
 * The delivery JWT, signed with node:crypto (jose verifies these tokens in test/sign.test.ts): header and claims as
 * compact JSON in base64url, HS256 = HMAC-SHA256 keyed by the secret bytes, ES256 = ECDSA P-256 with SHA-256 in the
 * JWS form (r || s, 64 bytes, not DER), EdDSA = Ed25519.
 */
async function signDeliveryJwt(input: SignDeliveryInput, timestamp: number, secretBytes: Uint8Array): Promise<string> {
	const header = input.jwtKey
		? { alg: input.jwtKey.alg, kid: input.jwtKey.kid, typ: 'JWT' }
		: { alg: 'HS256', kid: input.hookId, typ: 'JWT' };
	const claims = {
		evt: input.eventId,
		body_sha256: bodySha256(input.body),
		iss: input.issuer ?? DEFAULT_ISSUER,
		aud: input.hookId,
		iat: timestamp,
		exp: timestamp + JWT_LIFETIME_SECONDS,
		jti: input.attemptId ?? `att_${randomUUID()}`,
	};
	const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
	const signature = input.jwtKey
		? await signAsymmetric(input.jwtKey, Buffer.from(signingInput, 'utf8'))
		: createHmac('sha256', secretBytes).update(signingInput, 'utf8').digest();
	return `${signingInput}.${base64url(signature)}`;
}

const base64url = (value: string | Uint8Array) => Buffer.from(value).toString('base64url');

/** ES256 or EdDSA over `data` with a private KeyObject (node:crypto) or CryptoKey (Web Crypto, also non-extractable). */
async function signAsymmetric(jwtKey: AsymmetricJwtKey, data: Uint8Array): Promise<Uint8Array> {
	const { alg, privateKey } = jwtKey;
	if (alg !== 'ES256' && alg !== 'EdDSA') throw new TypeError('jwtKey.alg must be ES256 or EdDSA');
	if (privateKey instanceof KeyObject) {
		const fits =
			privateKey.type === 'private' &&
			(alg === 'ES256'
				? privateKey.asymmetricKeyType === 'ec' && privateKey.asymmetricKeyDetails?.namedCurve === 'prime256v1'
				: privateKey.asymmetricKeyType === 'ed25519');
		if (!fits) throw new TypeError(`jwtKey.privateKey must be ${KEY_KINDS[alg]} private key for ${alg}`);
		return alg === 'ES256'
			? cryptoSign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })
			: cryptoSign(null, data, privateKey);
	}
	if (isCryptoKey(privateKey)) {
		const algorithm = privateKey.algorithm as { name: string; namedCurve?: string };
		const fits =
			privateKey.type === 'private' &&
			privateKey.usages.includes('sign') &&
			(alg === 'ES256' ? algorithm.name === 'ECDSA' && algorithm.namedCurve === 'P-256' : algorithm.name === 'Ed25519');
		if (!fits)
			throw new TypeError(`jwtKey.privateKey must be ${KEY_KINDS[alg]} private key for ${alg}, usable to sign`);
		// Web Crypto's ECDSA signature is already r || s.
		const params = alg === 'ES256' ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'Ed25519' };
		return new Uint8Array(await webcrypto.subtle.sign(params, privateKey, data));
	}
	throw new TypeError('jwtKey.privateKey must be a KeyObject or a CryptoKey');
}

const KEY_KINDS = { ES256: 'an EC P-256', EdDSA: 'an Ed25519' } as const;

/** A Web Crypto key (the global `CryptoKey` class of Node 24, where `webcrypto.subtle` produces them). */
const isCryptoKey = (key: unknown): key is webcrypto.CryptoKey =>
	typeof globalThis.CryptoKey === 'function' && key instanceof globalThis.CryptoKey;

export interface SignV1aInput {
	/** The exact raw JSON body that will be sent. */
	body: string;
	eventId: string;
	/** Unix seconds of this attempt. */
	timestamp: number;
	/** The hook's Ed25519 private key. */
	privateKey: KeyObject;
}

/** The Standard Webhooks headers of an asymmetric (`v1a`, Ed25519) signature: the only signature such a hook's deliveries carry. */
export function signStandardWebhooksV1a(input: SignV1aInput): {
	'webhook-id': string;
	'webhook-timestamp': string;
	'webhook-signature': string;
} {
	if (typeof input.body !== 'string') throw new TypeError('body must be the raw JSON string that will be sent');
	if (!input.eventId) throw new TypeError('eventId is required');
	if (!Number.isInteger(input.timestamp) || input.timestamp < 0)
		throw new TypeError('timestamp must be whole unix seconds');
	if (input.privateKey?.asymmetricKeyType !== 'ed25519')
		throw new TypeError('privateKey must be an Ed25519 private key');
	const content = standardWebhooksContent(input.eventId, input.timestamp, new TextEncoder().encode(input.body));
	return {
		'webhook-id': input.eventId,
		'webhook-timestamp': String(input.timestamp),
		'webhook-signature': `v1a,${cryptoSign(null, content, input.privateKey).toString('base64')}`,
	};
}

/** A new hook key pair for `v1a`: the private key, and the public key as `whpk_<base64 of 32 bytes>`. */
export function generateHookKeyPair(): { privateKey: KeyObject; publicKey: string } {
	const pair = generateKeyPairSync('ed25519');
	// An Ed25519 SubjectPublicKeyInfo ends with the 32 bytes of the raw public key.
	const raw = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
	return { privateKey: pair.privateKey, publicKey: HOOK_PUBLIC_KEY_PREFIX + raw.toString('base64') };
}
