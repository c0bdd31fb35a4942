import {
	base64,
	base64url,
	concatBytes,
	utf8,
	type DigestEncoding,
	type MessagePart,
	type PlatformCrypto,
	type PublicKeyAlgorithm,
} from '../../nodes/shared/delivery';

/**
 * The core's cryptography on Web Crypto (`crypto.subtle`) alone: for runtimes without `node:crypto` (workerd /
 * Cloudflare Workers and other Web-standard runtimes). Every operation is asynchronous.
 */
// Web Crypto's types come from the DOM library, which the packages do not load: the few members used are declared here.
interface SubtleCryptoLike {
	importKey(
		format: string,
		keyData: unknown,
		algorithm: unknown,
		extractable: boolean,
		usages: string[],
	): Promise<unknown>;
	sign(algorithm: unknown, key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
	verify(algorithm: unknown, key: unknown, signature: Uint8Array, data: Uint8Array): Promise<boolean>;
	digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer>;
}

function subtle(): SubtleCryptoLike {
	const found = (globalThis as { crypto?: { subtle?: SubtleCryptoLike } }).crypto?.subtle;
	if (!found) throw new TypeError('This runtime has no Web Crypto (globalThis.crypto.subtle)');
	return found;
}

const IMPORT_ALGORITHM: Record<PublicKeyAlgorithm, unknown> = {
	ES256: { name: 'ECDSA', namedCurve: 'P-256' },
	EdDSA: { name: 'Ed25519' },
};
const VERIFY_ALGORITHM: Record<PublicKeyAlgorithm, unknown> = {
	ES256: { name: 'ECDSA', hash: 'SHA-256' },
	EdDSA: { name: 'Ed25519' },
};

const encodeDigest = (digest: ArrayBuffer, encoding: DigestEncoding) =>
	(encoding === 'base64' ? base64 : base64url)(new Uint8Array(digest));

const asBytes = (part: MessagePart) => (typeof part === 'string' ? utf8(part) : part);

export const webCrypto: PlatformCrypto = {
	importHmacKey: (bytes) => subtle().importKey('raw', bytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
	hmacSha256: async (key, parts, encoding) =>
		encodeDigest(await subtle().sign('HMAC', key, parts.map(asBytes).reduce(concatBytes)), encoding),
	sha256: async (data, encoding) => encodeDigest(await subtle().digest('SHA-256', data), encoding),
	importPublicKey: (jwk, alg) => subtle().importKey('jwk', jwk, IMPORT_ALGORITHM[alg], false, ['verify']),
	verifySignature: (alg, key, data, signature) => subtle().verify(VERIFY_ALGORITHM[alg], key, signature, data),
};
