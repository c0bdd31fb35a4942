import {
	createHmac,
	createPublicKey,
	createSecretKey,
	hash,
	verify,
	type JsonWebKey,
	type KeyObject,
} from 'node:crypto';
import type { PlatformCrypto } from './platform';

/**
 * The core's cryptography on `node:crypto`: every operation synchronous, so a delivery signed with a secret (or a key
 * already imported) is verified without leaving the current turn of the event loop.
 */
export const nodeCrypto: PlatformCrypto<KeyObject, KeyObject> = {
	// A KeyObject: Node prepares a raw key again on every HMAC, which costs more than the HMAC itself.
	importHmacKey: (bytes) => createSecretKey(bytes),
	hmacSha256: (key, parts, encoding) => {
		const hmac = createHmac('sha256', key);
		// A string is written as UTF-8 straight into the hash: no encoded copy.
		for (const part of parts) hmac.update(part);
		return hmac.digest(encoding);
	},
	// Node's base64 is padded and its base64url unpadded: the spellings the core compares with.
	sha256: (data, encoding) => hash('sha256', data, encoding),
	importPublicKey: (jwk) => createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }),
	verifySignature: (alg, key, data, signature) =>
		alg === 'ES256'
			? verify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, signature)
			: verify(null, data, key, signature),
};
