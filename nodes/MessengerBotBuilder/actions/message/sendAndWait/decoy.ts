import { PAGE_LIFETIME_MS } from './pageToken';

/**
 * What a press of a page's decoy control (see pages.ts) does to the question's other pages, in this n8n process.
 *
 * A press spends every page of the question shown until then or up to SPENT_AFTER_PRESS_MS after it: such a page
 * confirms nothing. A scanner opens the link again at once and presses on, and on a busy machine it may press the
 * confirm of the page it opened again later than a person's moment. But anyone who holds the link can press the decoy
 * too, and each press would keep the person out a little longer. So the presses of a series (from a first press until
 * KEEP_OUT_SERIES_MS later) spend no page shown more than KEEP_OUT_MAX_MS after the series' first press; after that a
 * press spends only the page it was made on. A press after the series is over begins a new one.
 */
export const SPENT_AFTER_PRESS_MS = 10_000;
/** The longest a series of decoy presses keeps the person out: pages shown later are not spent by that series. */
export const KEEP_OUT_MAX_MS = 60_000;
/** How long a series of decoy presses lasts: the next press after it spends the pages shown so far again. */
export const KEEP_OUT_SERIES_MS = 10 * 60_000;
/** How many pages pressed after the keep-out are remembered per question: the oldest is forgotten first. */
const PRESSED_PAGES_KEPT = 100;

interface Presses {
	/** When the first press of the current series came. */
	seriesStart: number;
	/** Every page shown up to this time is spent. */
	shownUpTo: number;
	lastPress: number;
	/** The tokens of pages pressed once the keep-out of the series was over: each is spent, no other page. */
	pressedPages: Set<string>;
}

const pressesByQuestion = new Map<string, Presses>();
/** `pages`: whose pages a press spends: the question's id, or with several subscribers asked, one subscriber's. */
const questionKey = (executionId: string, pages: string) => `${executionId}:${pages}`;

/** Forgets the presses whose every spent page has outlived PAGE_LIFETIME_MS (its token is stale anyway). */
function forgetOldPresses(now: number): void {
	for (const [key, presses] of pressesByQuestion) {
		if (Math.max(presses.shownUpTo, presses.lastPress) + PAGE_LIFETIME_MS < now) pressesByQuestion.delete(key);
	}
}

/** A press of the decoy control of the page that handed out `token`. */
export function spendPages(executionId: string, pages: string, token: string, now = Date.now()): void {
	forgetOldPresses(now);
	const key = questionKey(executionId, pages);
	const presses = pressesByQuestion.get(key);
	if (!presses || now >= presses.seriesStart + KEEP_OUT_SERIES_MS) {
		pressesByQuestion.set(key, {
			seriesStart: now,
			shownUpTo: now + SPENT_AFTER_PRESS_MS,
			lastPress: now,
			pressedPages: new Set(),
		});
		return;
	}
	const keepOutEnd = presses.seriesStart + KEEP_OUT_MAX_MS;
	presses.shownUpTo = Math.max(presses.shownUpTo, Math.min(now + SPENT_AFTER_PRESS_MS, keepOutEnd));
	presses.lastPress = now;
	presses.pressedPages.delete(token);
	presses.pressedPages.add(token);
	if (presses.pressedPages.size > PRESSED_PAGES_KEPT) {
		const [oldest] = presses.pressedPages;
		presses.pressedPages.delete(oldest);
	}
}

/** Whether a press of a decoy control spent the page shown at `shownAt` that handed out `token`. */
export function pageSpent(executionId: string, pages: string, token: string, shownAt: number): boolean {
	const presses = pressesByQuestion.get(questionKey(executionId, pages));
	return presses !== undefined && (shownAt <= presses.shownUpTo || presses.pressedPages.has(token));
}
