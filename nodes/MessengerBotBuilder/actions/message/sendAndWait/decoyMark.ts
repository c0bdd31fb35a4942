import { createHmac, timingSafeEqual } from 'node:crypto';
import { PAGE_LIFETIME_MS } from './pageToken';
import type { Question } from './question';

/**
 * A press of a page's decoy control, marked in the browser that made it: the answer sets a cookie, signed with the
 * question's own key, that names whose pages were pressed and when. That browser (a scanner opening the link again and
 * pressing on) sends it with every later request to the link, to whichever n8n process serves it, also after a restart;
 * so a page it shows within decoy.ts's SPENT_AFTER_PRESS_MS of the press confirms nothing there either. Another browser
 * (the person's) never carries it: a press by someone holding the link does not keep the person out through it.
 */
export const DECOY_COOKIE = 'mbb_pressed';

/** The longest cookie value read: 16 digits of time, a dot, 64 hexadecimal digits. */
const MARK_MAX_LENGTH = 16 + 1 + 64;

const markHmac = (question: Pick<Question, 'id' | 'tokenKey'>, pages: string, pressedAt: number) =>
	createHmac('sha256', question.tokenKey).update(`pressed\n${question.id}\n${pages}\n${pressedAt}`).digest('hex');

/**
 * The Set-Cookie header of a press of the decoy on the page at `path` (the link's own path, so the browser sends it to
 * this question's links only). HttpOnly and SameSite=Strict; Secure when the links are https.
 */
export function decoyCookie(question: Question, pages: string, path: string, now = Date.now()): string {
	const secure = question.origin.startsWith('https:') ? '; Secure' : '';
	return `${DECOY_COOKIE}=${now}.${markHmac(question, pages, now)}; Path=${path}; Max-Age=${PAGE_LIFETIME_MS / 1000}; HttpOnly; SameSite=Strict${secure}`;
}

/** When the browser that sent `cookieHeader` pressed the decoy of these pages, if its mark is genuine; else undefined. */
export function markedPressAt(question: Question, pages: string, cookieHeader: unknown): number | undefined {
	if (typeof cookieHeader !== 'string') return undefined;
	let latest: number | undefined;
	for (const pair of cookieHeader.split(';')) {
		const [name, value] = pair.trim().split('=', 2);
		if (name !== DECOY_COOKIE || value === undefined || value.length > MARK_MAX_LENGTH) continue;
		const parts = /^(\d{1,16})\.([0-9a-f]{64})$/.exec(value);
		if (!parts) continue;
		const pressedAt = Number(parts[1]);
		const expected = Buffer.from(markHmac(question, pages, pressedAt));
		if (timingSafeEqual(Buffer.from(parts[2]), expected) && (latest === undefined || pressedAt > latest))
			latest = pressedAt;
	}
	return latest;
}
