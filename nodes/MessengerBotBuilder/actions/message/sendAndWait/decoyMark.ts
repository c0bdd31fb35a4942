import { PAGE_LIFETIME_MS, pageToken, signedShownAt } from './pageToken';
import type { Question } from './question';

/**
 * A press of a page's decoy control, marked in the browser that made it: the answer sets a cookie, signed with the
 * question's own key, that names whose pages were pressed and when. That browser (a scanner opening the link again and
 * pressing on) sends it with every later request to the link, to whichever n8n process serves it, also after a restart;
 * so a page it shows within decoy.ts's SPENT_AFTER_PRESS_MS of the press confirms nothing there either. Another browser
 * (the person's) never carries it: a press by someone holding the link does not keep the person out through it.
 */
export const DECOY_COOKIE = 'mbb_pressed';

/**
 * The mark is a page token (pageToken.ts: the time, signed with the question's key) for a subject no page hands out:
 * page subjects begin with the answer, the form or a subscriber's index, never with `pressed:`.
 */
const markSubject = (pages: string) => `pressed:${pages}`;

/**
 * The Set-Cookie header of a press of the decoy on the page at `path` (the link's own path, so the browser sends it to
 * this question's links only). HttpOnly and SameSite=Strict; Secure when the links are https.
 */
export function decoyCookie(question: Question, pages: string, path: string, now = Date.now()): string {
	const secure = question.origin.startsWith('https:') ? '; Secure' : '';
	const mark = pageToken(question, markSubject(pages), now).value;
	return `${DECOY_COOKIE}=${mark}; Path=${path}; Max-Age=${PAGE_LIFETIME_MS / 1000}; HttpOnly; SameSite=Strict${secure}`;
}

/** When the browser that sent `cookieHeader` pressed the decoy of these pages, if its mark is genuine; else undefined. */
export function markedPressAt(question: Question, pages: string, cookieHeader: unknown): number | undefined {
	if (typeof cookieHeader !== 'string') return undefined;
	let latest: number | undefined;
	for (const pair of cookieHeader.split(';')) {
		const [name, value] = pair.trim().split('=', 2);
		if (name !== DECOY_COOKIE) continue;
		const pressedAt = signedShownAt(question, markSubject(pages), value);
		if (pressedAt !== undefined && (latest === undefined || pressedAt > latest)) latest = pressedAt;
	}
	return latest;
}
