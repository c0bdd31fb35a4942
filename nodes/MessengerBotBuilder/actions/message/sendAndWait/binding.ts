import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import type { Question } from './question';
import { SPENT_AFTER_PRESS_MS, pageSpent } from './decoy';
import { CONFIRM_AFTER_MS, PAGE_LIFETIME_MS, signedShownAt } from './pageToken';

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
export const LINK = { question: 'q', answer: 'answer', approved: 'approved', until: 'until', subscriber: 's' } as const;

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
	return parsedQuestion(kept);
}

/** The question kept in a node's context data, read from an execution's saved data. */
export const keptQuestion = (context: IDataObject | undefined) => parsedQuestion(context?.[CONTEXT_KEY]);

function parsedQuestion(kept: unknown): Question | undefined {
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
	subscriberIndex?: number,
): string {
	const query: Record<string, string> = { [LINK.question]: question.id };
	if (subscriberIndex !== undefined) query[LINK.subscriber] = String(subscriberIndex);
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
 * What a posted token is worth: `forged` (not made by a page of this question for this subject), `early` (sooner
 * than a person confirms), `stale` (the page was open for longer than PAGE_LIFETIME_MS), `spent` (a press of a decoy
 * control spent the page, see decoy.ts, in this process or, by `markedPressAt`, in the browser that sent it, see
 * decoyMark.ts; `pages` names whose pages a press spends: the question's, or one asked subscriber's), or `valid`.
 */
export type TokenState = 'forged' | 'early' | 'stale' | 'spent' | 'valid';

export function tokenState(
	executionId: string,
	question: Question,
	subject: string,
	token: unknown,
	now = Date.now(),
	pages = question.id,
	markedPressAt?: number,
): TokenState {
	const shownAt = signedShownAt(question, subject, token);
	if (shownAt === undefined || typeof token !== 'string') return 'forged';
	if (pageSpent(executionId, pages, token, shownAt)) return 'spent';
	if (markedPressAt !== undefined && shownAt <= markedPressAt + SPENT_AFTER_PRESS_MS) return 'spent';
	if (now < shownAt + CONFIRM_AFTER_MS) return 'early';
	if (now > shownAt + PAGE_LIFETIME_MS) return 'stale';
	return 'valid';
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
 * Refuses a confirmation that a browser says came from elsewhere. Browsers send Sec-Fetch-Site with every request (a
 * page's script cannot set it): when present it must say same-origin. `none` is sent only for a navigation a person
 * started themselves (typed, a bookmark), never for a form's POST. Without the header, the Origin of the POST must be
 * this page's own origin; every browser sends Origin with a form's POST, so a POST with neither header is not a
 * browser posting the page. These headers stop other sites' pages and programs that send no such headers; a program
 * that copied a token can send them too, with the right values: against it stand the page's timing and its decoy.
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
