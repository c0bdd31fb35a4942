import { randomBytes } from 'node:crypto';
import {
	base64,
	base64url,
	bytesEqual,
	concatBytes,
	decodeCanonicalBase64,
	decodeCanonicalBase64url,
	decodeCanonicalBase64urlText,
	decodeLenientBase64,
	lenientUtf8,
	strictUtf8,
	textsEqual,
} from '../../nodes/shared/delivery';

/**
 * The core's byte and text helpers held to exact values: base64 and base64url against Node's Buffer, UTF-8 against
 * its definition, joining and constant-time comparing.
 */

const bytes = (...values: number[]) => Uint8Array.from(values);
const plain = (value: Uint8Array | undefined) => (value === undefined ? undefined : [...value]);

describe('base64 and base64url', () => {
	it('encode as Node does, for every length from 0 to 40 and random bytes', () => {
		for (let length = 0; length <= 40; length += 1) {
			const data = randomBytes(length);
			expect([base64(data), base64url(data)]).toEqual([data.toString('base64'), data.toString('base64url')]);
		}
		const all = Uint8Array.from({ length: 256 }, (_, i) => i);
		expect([base64(all), base64url(all)]).toEqual([
			Buffer.from(all).toString('base64'),
			Buffer.from(all).toString('base64url'),
		]);
	});

	it('encode as Node does past the size made in one piece (8,192 characters, 6,144 bytes) and across several pieces', () => {
		for (const length of [6143, 6144, 6145, 6146, 12_288, 20_000]) {
			const data = randomBytes(length);
			expect([base64(data), base64url(data)]).toEqual([data.toString('base64'), data.toString('base64url')]);
		}
	});

	it('decode their canonical spelling back to the bytes', () => {
		for (let length = 0; length <= 40; length += 1) {
			const data = randomBytes(length);
			expect(plain(decodeCanonicalBase64url(data.toString('base64url')))).toEqual([...data]);
			expect(plain(decodeCanonicalBase64(data.toString('base64')))).toEqual([...data]);
			expect(plain(decodeLenientBase64(data.toString('base64')))).toEqual([...data]);
			expect(plain(decodeLenientBase64(data.toString('base64').replace(/=+$/, '')))).toEqual([...data]);
		}
		const all = Uint8Array.from({ length: 256 }, (_, i) => i);
		expect(plain(decodeCanonicalBase64url(Buffer.from(all).toString('base64url')))).toEqual([...all]);
	});

	it('canonical decoding refuses unused bits that are not zero, a wrong length, padding and foreign characters', () => {
		expect(plain(decodeCanonicalBase64url('QQ'))).toEqual([0x41]);
		expect(decodeCanonicalBase64url('QR')).toBeUndefined();
		expect(plain(decodeCanonicalBase64url('QUI'))).toEqual([0x41, 0x42]);
		expect(decodeCanonicalBase64url('QUJ')).toBeUndefined();
		expect(decodeCanonicalBase64url('Q')).toBeUndefined();
		expect(decodeCanonicalBase64url('QUJDR')).toBeUndefined();
		expect(decodeCanonicalBase64url('QQ==')).toBeUndefined();
		expect(decodeCanonicalBase64url('a+bc')).toBeUndefined();
		expect(decodeCanonicalBase64url('a/bc')).toBeUndefined();
		expect(decodeCanonicalBase64url('ab\u00e9c')).toBeUndefined();
		expect(decodeCanonicalBase64url('ab\u0100c')).toBeUndefined();
		expect(decodeCanonicalBase64url('ab\u0080c')).toBeUndefined();
		expect(plain(decodeCanonicalBase64url('-_-_'))).toEqual([0xfb, 0xff, 0xbf]);
		expect(plain(decodeCanonicalBase64url(''))).toEqual([]);

		expect(plain(decodeCanonicalBase64('QQ=='))).toEqual([0x41]);
		expect(plain(decodeCanonicalBase64('QUI='))).toEqual([0x41, 0x42]);
		expect(plain(decodeCanonicalBase64('+/+/'))).toEqual([0xfb, 0xff, 0xbf]);
		expect(decodeCanonicalBase64('QQ')).toBeUndefined();
		expect(decodeCanonicalBase64('QR==')).toBeUndefined();
		expect(decodeCanonicalBase64('QUJ=')).toBeUndefined();
		expect(decodeCanonicalBase64('-_-_')).toBeUndefined();
		expect(decodeCanonicalBase64('Q===')).toBeUndefined();
		expect(decodeCanonicalBase64('QQ=A')).toBeUndefined();
	});

	it('canonical base64url to text: the strict UTF-8 text of what the byte decoder gives, refusing the same spellings', () => {
		const utf8 = (text: string) => Buffer.from(text).toString('base64url');
		expect(decodeCanonicalBase64urlText(utf8('{"evt":"evt_1"}'))).toBe('{"evt":"evt_1"}');
		expect(decodeCanonicalBase64urlText(utf8('{"name":"Zoë 東京 🎉"}'))).toBe('{"name":"Zoë 東京 🎉"}');
		expect(decodeCanonicalBase64urlText('')).toBe('');
		// Bytes that are not UTF-8: a lone continuation byte, a truncated sequence, an overlong form, a surrogate.
		for (const invalid of [[0x80], [0x41, 0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff]]) {
			expect(decodeCanonicalBase64urlText(Buffer.from(invalid).toString('base64url'))).toBeUndefined();
		}
		// A BOM is kept (JSON.parse then refuses it), as strictUtf8 keeps it.
		expect(decodeCanonicalBase64urlText(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]).toString('base64url'))).toBe(
			'\ufeff{}',
		);
		// What atob would read but canonical base64url is not: padding, the standard alphabet, spaces, a wrong length, unused bits.
		for (const refused of [
			'QQ==',
			'a+bc',
			'a/bc',
			'QU JD',
			' QUJD',
			'QUJD\n',
			'Q',
			'QUJDR',
			'QR',
			'QUJ',
			'ab\u00e9c',
		]) {
			expect(decodeCanonicalBase64urlText(refused)).toBeUndefined();
		}
		expect(decodeCanonicalBase64urlText('QQ')).toBe('A');
		expect(decodeCanonicalBase64urlText('QUI')).toBe('AB');
		// Random bytes and random texts: the same verdict and text as decodeCanonicalBase64url then strictUtf8.
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/= ';
		let decoded = 0;
		for (let i = 0; i < 3000; i += 1) {
			const text =
				i % 4 === 0
					? randomBytes(i % 41).toString('base64url')
					: i % 4 === 2
						? utf8(
								String.fromCodePoint(
									...Array.from(randomBytes(i % 13), (byte) => [0x41, 0xe9, 0x6771, 0x1f389][byte % 4] + (byte % 7)),
								),
							)
						: Array.from(
								randomBytes(1 + (i % 23)),
								(byte) => alphabet[byte % (i % 3 === 0 ? alphabet.length : 64)],
							).join('');
			const viaBytes = decodeCanonicalBase64url(text);
			const expected = viaBytes === undefined ? undefined : strictUtf8(viaBytes);
			if (expected !== undefined) decoded += 1;
			expect([text, decodeCanonicalBase64urlText(text)]).toEqual([text, expected]);
		}
		// Both outcomes were exercised many times.
		expect(decoded).toBeGreaterThan(750);
		expect(decoded).toBeLessThan(2900);
	});

	it('lenient decoding (hook secrets) ignores unused bits and accepts padding only of the right length', () => {
		expect(plain(decodeLenientBase64('QR'))).toEqual([0x41]);
		expect(plain(decodeLenientBase64('QR=='))).toEqual([0x41]);
		expect(plain(decodeLenientBase64('QUJ'))).toEqual([0x41, 0x42]);
		expect(plain(decodeLenientBase64('QUJ='))).toEqual([0x41, 0x42]);
		expect(decodeLenientBase64('QQ=')).toBeUndefined();
		expect(decodeLenientBase64('QQ===')).toBeUndefined();
		// More than two padding characters after a whole group, which the length check alone would let through.
		expect(decodeLenientBase64('QUJD====')).toBeUndefined();
		expect(plain(decodeLenientBase64('QUJD'))).toEqual([0x41, 0x42, 0x43]);
		expect(decodeLenientBase64('QUJD=')).toBeUndefined();
		expect(decodeLenientBase64('Q')).toBeUndefined();
		expect(decodeLenientBase64('-_-_')).toBeUndefined();
		expect(decodeLenientBase64('QQ==QQ==')).toBeUndefined();
		expect(plain(decodeLenientBase64(''))).toEqual([]);
	});
});

describe('UTF-8, joining and comparing', () => {
	it('strict decoding refuses invalid UTF-8 and keeps a byte order mark; lenient decoding replaces', () => {
		expect(strictUtf8(bytes(0x68, 0xc3, 0xa9))).toBe('h\u00e9');
		expect(strictUtf8(bytes(0x68, 0xff))).toBeUndefined();
		expect(strictUtf8(bytes(0xef, 0xbb, 0xbf, 0x41))).toBe('\ufeffA');
		expect(lenientUtf8(bytes(0x68, 0xff))).toBe('h\ufffd');
		expect(lenientUtf8(bytes(0x68, 0xc3, 0xa9))).toBe('h\u00e9');
	});

	it('joins bytes in order', () => {
		expect([...concatBytes(bytes(1, 2), bytes(3, 4, 5))]).toEqual([1, 2, 3, 4, 5]);
		expect([...concatBytes(bytes(), bytes(9))]).toEqual([9]);
		expect([...concatBytes(bytes(9), bytes())]).toEqual([9]);
	});

	it('compares texts and bytes exactly, at every position', () => {
		expect(textsEqual('abc', 'abc')).toBe(true);
		expect(textsEqual('', '')).toBe(true);
		expect(textsEqual('xbc', 'abc')).toBe(false);
		expect(textsEqual('abx', 'abc')).toBe(false);
		expect(textsEqual('ab', 'abc')).toBe(false);
		expect(textsEqual('abcd', 'abc')).toBe(false);
		expect(bytesEqual(bytes(1, 2, 3), bytes(1, 2, 3))).toBe(true);
		expect(bytesEqual(bytes(), bytes())).toBe(true);
		expect(bytesEqual(bytes(0, 2, 3), bytes(1, 2, 3))).toBe(false);
		expect(bytesEqual(bytes(1, 2, 4), bytes(1, 2, 3))).toBe(false);
		expect(bytesEqual(bytes(1, 2), bytes(1, 2, 3))).toBe(false);
		expect(bytesEqual(bytes(1, 2, 3, 0), bytes(1, 2, 3))).toBe(false);
	});
});
