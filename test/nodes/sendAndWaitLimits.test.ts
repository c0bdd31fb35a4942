import { randomUUID } from 'node:crypto';
import { tokenState } from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/binding';
import {
	ECHO_BOUND_FACTOR,
	characterCount,
	typedAnswer,
} from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/answerLength';
import {
	KEEP_OUT_MAX_MS,
	KEEP_OUT_SERIES_MS,
	SPENT_AFTER_PRESS_MS,
	spendPages,
} from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/decoy';
import { escapeHtml } from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/html';
import { pageToken } from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/pageToken';
import type { Question } from '../../nodes/MessengerBotBuilder/actions/message/sendAndWait/question';

/** Send and Wait's bounds on what a request can cost or keep out: the pure parts, one by one. */
describe('Send and Wait: what pages echo, how answers are counted, how long a decoy keeps a person out', () => {
	it('escapes the five HTML specials with numeric references, everything else as it is', () => {
		expect(escapeHtml(`a&b<c>d"e'f`)).toBe('a&#38;b&#60;c&#62;d&#34;e&#39;f');
		expect(escapeHtml('&#60;')).toBe('&#38;#60;');
		expect(escapeHtml('<<>>')).toBe('&#60;&#60;&#62;&#62;');
		expect(escapeHtml('$& $1 $$')).toBe('$&#38; $1 $$');
		expect(escapeHtml('plain text, ünïcödé 😀')).toBe('plain text, ünïcödé 😀');
		expect(escapeHtml('')).toBe('');
	});

	it('counts Unicode code points: an emoji of one code point is one, a family emoji its parts', () => {
		expect(characterCount('')).toBe(0);
		expect(characterCount('abc')).toBe(3);
		expect(characterCount('😀😀')).toBe(2);
		// man, zero-width joiner, woman, zero-width joiner, girl
		expect(characterCount('\u{1F468}\u200D\u{1F469}\u200D\u{1F467}')).toBe(5);
		// A lone surrogate is one, also at the end or in reverse order.
		expect(characterCount('\uD800')).toBe(1);
		expect(characterCount('a\uD800')).toBe(2);
		expect(characterCount('\uDC00\uD800')).toBe(2);
	});

	it('refuses text over four times the limit without keeping any of it; keeps text over the limit but under that', () => {
		expect(ECHO_BOUND_FACTOR).toBe(4);
		const farTooLong = {
			text: '',
			tooLong:
				'This answer is far longer than the 5 characters accepted, so it is not shown again. Write a shorter one and send it.',
		};
		expect(typedAnswer('x'.repeat(21), 5)).toEqual(farTooLong);
		expect(typedAnswer('<'.repeat(15_000_000), 5)).toEqual(farTooLong);
		// Four times the limit in UTF-16 units: ten emoji are twenty units.
		expect(typedAnswer('😀'.repeat(11), 5)).toEqual(farTooLong);
		expect(typedAnswer('😀'.repeat(10), 5)).toEqual({
			text: '😀'.repeat(10),
			tooLong: 'This answer is 10 characters long; at most 5 are accepted. Shorten it and send it again.',
		});
		expect(typedAnswer(' '.repeat(7) + 'x'.repeat(6) + ' '.repeat(7), 5)).toEqual({
			text: 'xxxxxx',
			tooLong: 'This answer is 6 characters long; at most 5 are accepted. Shorten it and send it again.',
		});
		expect(typedAnswer('  hello  ', 5)).toEqual({ text: 'hello' });
		expect(typedAnswer(['x'], 5)).toEqual({ text: '' });
		expect(typedAnswer(undefined, 5)).toEqual({ text: '' });
	});

	it('decoy presses keep the person out for at most KEEP_OUT_MAX_MS per series; later presses spend only their own page', () => {
		expect([SPENT_AFTER_PRESS_MS, KEEP_OUT_MAX_MS, KEEP_OUT_SERIES_MS]).toEqual([10_000, 60_000, 600_000]);
		const question = { id: randomUUID(), tokenKey: 'd'.repeat(64) } as Question;
		const start = 1_700_000_000_000;
		const page = (shownAt: number) => pageToken(question, 'form', shownAt).value;
		const state = (shownAt: number, now: number) => tokenState('e-decoy', question, 'form', page(shownAt), now);
		const press = (shownAt: number, now: number) => spendPages('e-decoy', question.id, page(shownAt), now);

		// Someone holding the link presses the decoy every five seconds for two minutes.
		for (let at = start; at <= start + 120_000; at += 5_000) press(at - 2_000, at);
		const later = start + 125_000;
		expect([
			state(start - 3_600_000, later),
			state(start + 55_000, later),
			state(start + KEEP_OUT_MAX_MS, later),
			state(start + KEEP_OUT_MAX_MS + 1, later),
			state(start + 90_000, later),
			// Pages pressed after the keep-out: each spent, no other.
			state(start + 78_000, later),
			state(start + 118_000, later),
		]).toEqual(['spent', 'spent', 'spent', 'valid', 'valid', 'spent', 'spent']);

		// A press once the series is over begins a new one: every page shown so far is spent again.
		const next = start + KEEP_OUT_SERIES_MS;
		press(next - 1_000, next);
		expect([state(start + 90_000, next + 5_000), state(next + 10_000, next + 15_000)]).toEqual(['spent', 'spent']);
		expect(state(next + 10_001, next + 15_000)).toBe('valid');
	});
});
