/**
 * How long a typed answer (a Free Text answer, or one field of a Custom Form) is, and what of it a page may show again.
 *
 * A page that refuses an answer shows it again to be shortened, so what a request sends could come back several times
 * larger (escaped) and cost n8n's event loop time in proportion. Text of more than ECHO_BOUND_FACTOR times the limit is
 * refused before anything reads it character by character, and never shown again: its size is JavaScript's `length`
 * (UTF-16 units, known without reading the text), and a text within the limit is at most twice the limit in those
 * units, so only text far over the limit is treated so. Text under that bound is counted and, if too long, shown again.
 */
export const ECHO_BOUND_FACTOR = 4;

/**
 * Unicode code points, counted in one pass without building anything: `😀` is one, but an emoji made of several code
 * points (a family, a flag, a skin tone) counts each of them. Grapheme clusters (Intl.Segmenter) would match what a
 * person sees more closely, at a far higher cost per character that the limit an operator chooses would multiply;
 * code points never count more than a browser's own `maxlength` (UTF-16 units) would.
 */
export function characterCount(text: string): number {
	let count = text.length;
	for (let index = 0; index < text.length - 1; index++) {
		const unit = text.charCodeAt(index);
		if (unit < 0xd800 || unit > 0xdbff) continue;
		const next = text.charCodeAt(index + 1);
		// A high surrogate followed by a low one: one code point written as two units.
		if (next >= 0xdc00 && next <= 0xdfff) {
			count--;
			index++;
		}
	}
	return count;
}

export interface TypedAnswer {
	/** What was typed, trimmed; empty when nothing was, or when it is too long to be shown again. */
	text: string;
	/** Why it cannot be the answer because of its length, if so. */
	tooLong?: string;
}

/** A typed value (anything a request sent under the field's name) checked against the length limit. */
export function typedAnswer(raw: unknown, limit: number): TypedAnswer {
	if (typeof raw !== 'string') return { text: '' };
	if (raw.length > ECHO_BOUND_FACTOR * limit) {
		return {
			text: '',
			tooLong: `This answer is far longer than the ${limit} characters accepted, so it is not shown again. Write a shorter one and send it.`,
		};
	}
	const text = raw.trim();
	const length = characterCount(text);
	return length > limit
		? {
				text,
				tooLong: `This answer is ${length} characters long; at most ${limit} are accepted. Shorten it and send it again.`,
			}
		: { text };
}
