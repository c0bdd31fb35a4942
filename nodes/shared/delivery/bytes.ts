/**
 * Text and byte helpers of the verification core: no Buffer, no runtime dependency, the same bytes on Node.js,
 * workerd and any Web-standard runtime.
 */

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientDecoder = new TextDecoder('utf-8');

export function utf8(text: string): Uint8Array {
	return encoder.encode(text);
}

/** The text of UTF-8 bytes, or undefined when they are not valid UTF-8 (a BOM is kept, so JSON.parse refuses it). */
export function strictUtf8(bytes: Uint8Array): string | undefined {
	try {
		return strictDecoder.decode(bytes);
	} catch {
		return undefined;
	}
}

/** The text of UTF-8 bytes, invalid sequences replaced (the body is parsed as JSON after its signature matched). */
export function lenientUtf8(bytes: Uint8Array): string {
	return lenientDecoder.decode(bytes);
}

export function concatBytes(first: Uint8Array, second: Uint8Array): Uint8Array {
	const joined = new Uint8Array(first.length + second.length);
	joined.set(first, 0);
	joined.set(second, first.length);
	return joined;
}

const STANDARD = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URL_SAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function alphabetValues(alphabet: string): Int8Array {
	const values = new Int8Array(128).fill(-1);
	for (let i = 0; i < alphabet.length; i += 1) values[alphabet.charCodeAt(i)] = i;
	return values;
}
const STANDARD_VALUES = alphabetValues(STANDARD);
const URL_SAFE_VALUES = alphabetValues(URL_SAFE);

const STANDARD_CODES = Uint8Array.from(STANDARD, (character) => character.charCodeAt(0));
const URL_SAFE_CODES = Uint8Array.from(URL_SAFE, (character) => character.charCodeAt(0));
const PAD = 61; // '='
/** Character codes turned into a string per call of String.fromCharCode: well below any engine's argument limit. */
const CHUNK = 0x2000;

/**
 * Writes the character codes into one array and makes the string at once, rather than adding characters to a string
 * one by one, which builds a rope that every comparison then has to flatten.
 */
function encode(bytes: Uint8Array, alphabet: Uint8Array, pad: boolean): string {
	const rest = bytes.length % 3;
	const codes = new Uint8Array(Math.floor(bytes.length / 3) * 4 + (rest === 0 ? 0 : pad ? 4 : rest + 1));
	let out = 0;
	let i = 0;
	for (; i + 2 < bytes.length; i += 3) {
		const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
		codes[out++] = alphabet[n >> 18];
		codes[out++] = alphabet[(n >> 12) & 63];
		codes[out++] = alphabet[(n >> 6) & 63];
		codes[out++] = alphabet[n & 63];
	}
	if (rest === 1) {
		const n = bytes[i] << 16;
		codes[out++] = alphabet[n >> 18];
		codes[out++] = alphabet[(n >> 12) & 63];
		if (pad) codes.fill(PAD, out);
	} else if (rest === 2) {
		const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
		codes[out++] = alphabet[n >> 18];
		codes[out++] = alphabet[(n >> 12) & 63];
		codes[out++] = alphabet[(n >> 6) & 63];
		if (pad) codes[out] = PAD;
	}
	if (codes.length <= CHUNK) return String.fromCharCode.apply(null, codes as unknown as number[]);
	let text = '';
	for (let start = 0; start < codes.length; start += CHUNK)
		text += String.fromCharCode.apply(null, codes.subarray(start, start + CHUNK) as unknown as number[]);
	return text;
}

/** Standard base64 with padding (Standard Webhooks signatures, hook secrets). */
export function base64(bytes: Uint8Array): string {
	return encode(bytes, STANDARD_CODES, true);
}

/** base64url without padding (JWT segments, `body_sha256`). */
export function base64url(bytes: Uint8Array): string {
	return encode(bytes, URL_SAFE_CODES, false);
}

/**
 * Whether a text of one alphabet's characters ends canonically: a length that whole characters can reach, and a last
 * character whose unused bits are zero (otherwise several texts would stand for the same bytes).
 */
function endsCanonically(text: string, values: Int8Array): boolean {
	const rest = text.length % 4;
	if (rest === 0) return true;
	if (rest === 1) return false;
	const code = text.charCodeAt(text.length - 1);
	const value = code < 128 ? values[code] : -1;
	// Two characters carry one byte and 4 unused bits; three carry two bytes and 2 unused bits.
	return value >= 0 && (value & (rest === 2 ? 0x0f : 0x03)) === 0;
}

/**
 * Decodes the characters of one alphabet (no padding, no other character). `canonical` refuses a text whose last
 * character carries unused bits that are not zero: several texts would then stand for the same bytes.
 */
function decode(text: string, values: Int8Array, canonical: boolean): Uint8Array | undefined {
	if (text.length % 4 === 1 || (canonical && !endsCanonically(text, values))) return undefined;
	const bytes = new Uint8Array(Math.floor((text.length * 3) / 4));
	let buffer = 0;
	let bits = 0;
	let out = 0;
	for (let i = 0; i < text.length; i += 1) {
		const code = text.charCodeAt(i);
		const value = code < 128 ? values[code] : -1;
		if (value < 0) return undefined;
		buffer = ((buffer << 6) | value) & 0xffffff;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			bytes[out++] = (buffer >> bits) & 0xff;
		}
	}
	return bytes;
}

/**
 * Whether a text of base64url characters (checked by the caller) is in its one canonical spelling: what
 * {@link decodeCanonicalBase64url} would decode, without decoding it.
 */
export function isCanonicalBase64url(text: string): boolean {
	return endsCanonically(text, URL_SAFE_VALUES);
}

/** base64url in its one canonical spelling (no padding, unused bits zero), or undefined. */
export function decodeCanonicalBase64url(text: string): Uint8Array | undefined {
	return decode(text, URL_SAFE_VALUES, true);
}

const BASE64URL_TEXT = /^[A-Za-z0-9_-]*$/;
/** A character above U+007F: in a binary string (one character per byte), a byte that is not ASCII. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * The text whose strict UTF-8 bytes base64url in its one canonical spelling stands for, or undefined: what
 * {@link decodeCanonicalBase64url} then {@link strictUtf8} give, decoded by the runtime's `atob` (native in Node.js,
 * workerd and browsers; a loop in JavaScript over a JWT's claims costs far more on every delivery). `atob` also reads
 * `+`, `/`, `=` and spaces, so the alphabet is checked first.
 */
export function decodeCanonicalBase64urlText(text: string): string | undefined {
	return BASE64URL_TEXT.test(text) ? decodeBase64urlCharactersText(text) : undefined;
}

/**
 * {@link decodeCanonicalBase64urlText} of a text known to hold base64url characters only (a segment of a compact JWS,
 * whose whole text was checked): the alphabet is not read again.
 */
export function decodeBase64urlCharactersText(text: string): string | undefined {
	if (!endsCanonically(text, URL_SAFE_VALUES)) return undefined;
	// One character per byte.
	const binary = atob(text.replaceAll('-', '+').replaceAll('_', '/'));
	if (!NON_ASCII.test(binary)) return binary;
	const bytes = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
	return strictUtf8(bytes);
}

/** Padded standard base64 in its one canonical spelling, or undefined (Standard Webhooks `v1a` signatures). */
export function decodeCanonicalBase64(text: string): Uint8Array | undefined {
	if (text.length % 4 !== 0) return undefined;
	const unpadded = text.endsWith('==') ? text.slice(0, -2) : text.endsWith('=') ? text.slice(0, -1) : text;
	return decode(unpadded, STANDARD_VALUES, true);
}

/**
 * Standard base64 as the Standard Webhooks libraries read secrets: padding optional (and, when present, of the right
 * length), unused trailing bits ignored. Any character outside the alphabet is refused.
 */
export function decodeLenientBase64(text: string): Uint8Array | undefined {
	const padding = /=*$/.exec(text)![0].length;
	const unpadded = text.slice(0, text.length - padding);
	if (padding > 2 || (padding > 0 && (unpadded.length + padding) % 4 !== 0)) return undefined;
	return decode(unpadded, STANDARD_VALUES, false);
}

/** Compares two texts in time that depends only on their lengths. */
export function textsEqual(received: string, expected: string): boolean {
	if (received.length !== expected.length) return false;
	let difference = 0;
	for (let i = 0; i < expected.length; i += 1) difference |= received.charCodeAt(i) ^ expected.charCodeAt(i);
	return difference === 0;
}

/** Compares two byte strings in time that depends only on their lengths. */
export function bytesEqual(received: Uint8Array, expected: Uint8Array): boolean {
	if (received.length !== expected.length) return false;
	let difference = 0;
	for (let i = 0; i < expected.length; i += 1) difference |= received[i] ^ expected[i];
	return difference === 0;
}
