import { timingSafeEqual } from 'node:crypto';

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes unpadded base64url; `undefined` when the text holds anything else (Buffer would skip it silently). */
export function decodeBase64Url(text: string): Buffer | undefined {
	if (!BASE64URL.test(text) || text.length % 4 === 1) return undefined;
	return Buffer.from(text, 'base64url');
}

/** Decodes padded standard base64; `undefined` when the text is not exactly that. */
export function decodeBase64(text: string): Buffer | undefined {
	if (!BASE64.test(text)) return undefined;
	return Buffer.from(text, 'base64');
}

/** Compares two byte strings in time that depends only on their lengths. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
	return a.length === b.length && timingSafeEqual(a, b);
}

/** A plain JSON object, or `undefined` when the bytes are not one. */
export function parseJsonObject(bytes: Buffer): Record<string, unknown> | undefined {
	let value: unknown;
	try {
		value = JSON.parse(bytes.toString('utf8'));
	} catch {
		return undefined;
	}
	return value !== null && typeof value === 'object' && !Array.isArray(value)
		? (value as Record<string, unknown>)
		: undefined;
}
