import { timingSafeEqual } from 'node:crypto';

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Decodes base64url only in its canonical spelling. Node's decoder ignores stray characters and the
 * unused low bits of the last character, so several texts decode to the same bytes; accepting only
 * the one canonical text means a signature cannot be respelled and still pass.
 */
export function decodeCanonicalBase64Url(text: string): Buffer | undefined {
	if (!BASE64URL.test(text)) return undefined;
	const bytes = Buffer.from(text, 'base64url');
	return bytes.toString('base64url') === text ? bytes : undefined;
}

/** Decodes padded standard base64, canonical spelling only (see above). */
export function decodeCanonicalBase64(text: string): Buffer | undefined {
	const bytes = Buffer.from(text, 'base64');
	return bytes.toString('base64') === text ? bytes : undefined;
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
	return isPlainObject(value) ? value : undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}
