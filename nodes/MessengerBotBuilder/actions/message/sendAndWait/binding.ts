import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import type { Question } from './question';

/**
 * How a link is bound to one question: one wait of one run of the node, for one subscriber.
 *
 * n8n signs each answer link (HMAC of its path and query with the instance's secret), and the path
 * names the execution and the node; that alone lets a link from an earlier wait of the same node in
 * the same execution (a loop) answer the current one. So each wait gets a random question id, carried
 * in the signed query, and the question itself (id, subscriber, answers, deadline) is kept in the
 * node's context of the execution (`getContext('node')`), which n8n saves with the waiting execution.
 * n8n's webhook context has no getContext, but it evaluates expressions against the waiting
 * execution, where `$node[<name>].context` reads that same context: the webhook compares the link's
 * id with the question that is actually waiting, and refuses any other.
 */
const CONTEXT_KEY = 'messengerBotBuilderQuestion';

/** Query parameters of an answer link; n8n signs them with the rest of the link. */
export const LINK = { question: 'q', answer: 'answer', approved: 'approved', until: 'until' } as const;

/** Form field of the confirm pages that carries the page's token. */
export const TOKEN_FIELD = 'token';
/** Form field that only the decoy control of a page posts (see pages.ts). */
export const DECOY_FIELD = 'checked';

export function keepQuestion(this: IExecuteFunctions, question: Question): void {
	this.getContext('node')[CONTEXT_KEY] = JSON.stringify(question);
}

/** A string as a JavaScript literal that holds nothing an expression template could read as syntax. */
const jsString = (value: string) =>
	`"${value.replace(/[^A-Za-z0-9 _-]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;

/** The question the execution waits for at this node, or undefined (none kept, or kept by an older version). */
export function waitingQuestion(this: IWebhookFunctions): Question | undefined {
	const expression = `{{ $node[${jsString(this.getNode().name)}].context[${jsString(CONTEXT_KEY)}] }}`;
	let kept: unknown;
	try {
		kept = this.evaluateExpression(expression, 0);
	} catch {
		return undefined;
	}
	if (typeof kept !== 'string' || kept === '') return undefined;
	try {
		const question = JSON.parse(kept) as Question;
		return typeof question?.id === 'string' && typeof question.tokenKey === 'string' ? question : undefined;
	} catch {
		return undefined;
	}
}

/** The signed link of one answer button (or, for the form types, of the page with the form). */
export function answerLink(
	this: IExecuteFunctions,
	question: Question,
	answer?: { label: string; approved?: boolean },
): string {
	const query: Record<string, string> = { [LINK.question]: question.id };
	if (answer) {
		query[LINK.answer] = answer.label;
		if (answer.approved !== undefined) query[LINK.approved] = String(answer.approved);
	}
	if (question.until !== null) query[LINK.until] = String(question.until);
	return this.getSignedResumeUrl(query);
}

/** The origin of the links n8n signs for this execution: where the pages are served from. */
export const linkOrigin = (link: string) => new URL(link).origin;

/**
 * A page's confirm token, made when the page is shown: `<shown at, ms>.<HMAC>`, the HMAC with the question's own
 * key over the question, what is being confirmed and when the page was shown. Only a page of this question can
 * hand one out, so a POST without it (a scanner that never showed the page, a forged form) resumes nothing; and
 * since the time is signed, a program cannot claim to have shown the page earlier than it did.
 */
export interface PageToken {
	value: string;
	/** The earliest confirmation a person could have made (see CONFIRM_AFTER_MS). */
	notBefore: number;
}

/**
 * How long after a page is shown its confirmation counts. Link scanners that "detonate" a message's links (mail
 * and chat security: Microsoft Defender Safe Links, Proofpoint URL Defense and the like) load the page and press
 * its controls at machine speed, within a few hundred milliseconds; a person reads the question and the answer
 * before tapping. A confirmation sooner than this shows the page again, asking to confirm (nothing is recorded).
 */
export const CONFIRM_AFTER_MS = 1_500;
/** How long a shown page's token counts: a page left open longer asks to confirm again (with a fresh token). */
export const PAGE_LIFETIME_MS = 2 * 3_600_000;

const tokenHmac = (question: Question, subject: string, shownAt: number) =>
	createHmac('sha256', question.tokenKey).update(`${question.id}\n${subject}\n${shownAt}`).digest('hex');

export function pageToken(question: Question, subject: string, now = Date.now()): PageToken {
	return { value: `${now}.${tokenHmac(question, subject, now)}`, notBefore: now + CONFIRM_AFTER_MS };
}

/**
 * What a posted token is worth: `forged` (not made by a page of this question for this subject), `early` (sooner
 * than a person confirms), `stale` (the page was open for longer than PAGE_LIFETIME_MS), `spent` (the page was shown
 * before a program pressed the page's decoy control, see spendPages), or `valid`.
 */
export type TokenState = 'forged' | 'early' | 'stale' | 'spent' | 'valid';

/**
 * Pages spent by a press of their decoy control, by question (in this n8n process): every page of the question shown
 * up to SPENT_AFTER_PRESS_MS after the press confirms nothing (a scanner opens the link again at once and presses on;
 * the e2e's clicking Chromium, on a busy machine, pressed the confirm of the page it opened again later than
 * CONFIRM_AFTER_MS); a page shown later (the person opening the link again) does. One entry per question, dropped once
 * every page it covers has outlived PAGE_LIFETIME_MS.
 */
export const SPENT_AFTER_PRESS_MS = 10_000;
const spentPages = new Map<string, { shownUpTo: number }>();
const pagesKey = (executionId: string, questionId: string) => `${executionId}:${questionId}`;

export function tokenState(
	executionId: string,
	question: Question,
	subject: string,
	token: unknown,
	now = Date.now(),
): TokenState {
	if (typeof token !== 'string') return 'forged';
	const parts = /^(\d{1,16})\.([0-9a-f]{64})$/.exec(token);
	if (!parts) return 'forged';
	const shownAt = Number(parts[1]);
	const expected = Buffer.from(tokenHmac(question, subject, shownAt));
	if (!timingSafeEqual(Buffer.from(parts[2]), expected)) return 'forged';
	const spentUntil = spentPages.get(pagesKey(executionId, question.id));
	if (spentUntil !== undefined && shownAt <= spentUntil.shownUpTo) return 'spent';
	if (now < shownAt + CONFIRM_AFTER_MS) return 'early';
	if (now > shownAt + PAGE_LIFETIME_MS) return 'stale';
	return 'valid';
}

export function spendPages(executionId: string, questionId: string, now = Date.now()): void {
	for (const [key, spent] of spentPages) if (spent.shownUpTo + PAGE_LIFETIME_MS < now) spentPages.delete(key);
	spentPages.set(pagesKey(executionId, questionId), { shownUpTo: now + SPENT_AFTER_PRESS_MS });
}

export type DeadlineState = 'open' | 'expired';

/**
 * Whether the question's deadline has passed: a tap after it is refused even while n8n has not yet
 * ended the wait (its wait tracker may resume up to a minute late). The deadline is the one kept
 * with the execution, not the one in the link: n8n versions that do not check a link's signature
 * would let a link with its `until` removed answer late.
 */
export function deadlineOf(question: Pick<Question, 'until'>, now = Date.now()): DeadlineState {
	return typeof question.until !== 'number' || now <= question.until ? 'open' : 'expired';
}

/**
 * Refuses a confirmation that is not the page's own form posted by a browser. Browsers send
 * Sec-Fetch-Site with every request (only the browser can set it): when present it must say
 * same-origin. `none` is sent only for a navigation a person started themselves (typed, a bookmark),
 * never for a form's POST, so on a POST it means a program copying the token. Without the header, the Origin of the POST must be this page's
 * own origin; every browser sends Origin with a form's POST, so a POST with neither header comes
 * from a program (a link scanner that read the token off the page, say), which must never answer
 * for the person the message was sent to.
 */
export function crossSiteReason(
	headers: Record<string, string | string[] | undefined>,
	origin: string,
): string | undefined {
	const site = headers['sec-fetch-site'];
	if (site !== undefined) return site === 'same-origin' ? undefined : `Sec-Fetch-Site is ${String(site)}`;
	const from = headers.origin;
	if (from === undefined) return 'neither Sec-Fetch-Site nor Origin was sent: not a browser posting the page';
	if (from !== origin) return `Origin is ${String(from)}`;
	return undefined;
}

/**
 * Answers claimed in this n8n process: of simultaneous confirmations of one question, the first
 * claims it and the others are told the question was already answered. n8n itself resumes a waiting
 * execution only once (it moves it from waiting to running atomically, after the node's webhook
 * returned); the node's "received" page is sent only after that move succeeded, so across several
 * processes too only the recorded answer is told it counted. A tap that claimed its answer here but
 * loses that move to a tap in another n8n process gets the not-recorded page instead of n8n's error,
 * and its claim is released (see webhook.ts). A claim lapses after CLAIM_MS in case n8n
 * could not resume the execution in a way the node does not see: it only has to outlast that move
 * (n8n answers later taps itself), and a person whose answer met an error may send it again soon.
 */
const CLAIM_MS = 30_000;
const claims = new Map<string, { expires: number; answer: string }>();

/**
 * `claimed`: this answer is the one that goes on; `repeat`: the same answer was claimed a moment ago (a double tap:
 * the browser shows only the page of the last tap); `taken`: another answer was.
 */
export type Claim = 'claimed' | 'repeat' | 'taken';

export function claimAnswer(executionId: string, questionId: string, answer: string, now = Date.now()): Claim {
	for (const [key, claim] of claims) if (claim.expires < now) claims.delete(key);
	const key = `${executionId}:${questionId}`;
	const held = claims.get(key);
	if (held) return held.answer === answer ? 'repeat' : 'taken';
	claims.set(key, { expires: now + CLAIM_MS, answer });
	return 'claimed';
}

/** Gives up this process's claim: n8n did not resume the execution with the claimed answer. */
export function releaseAnswer(executionId: string, questionId: string): void {
	claims.delete(`${executionId}:${questionId}`);
}
