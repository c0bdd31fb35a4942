import type { IWebhookFunctions } from 'n8n-workflow';
import type { FormField } from './question';
import { COMMENT_INPUT, FREE_TEXT_INPUT, formInputName } from './question';
import { DECOY_FIELD, TOKEN_FIELD } from './binding';
import { escapeHtml } from './html';
import type { PageToken } from './pageToken';

/**
 * The pages a subscriber sees when opening an answer link: plain HTML, no script, no outside
 * resource, forms that post back to the page's own address. Every page is sent with headers that
 * forbid framing (a confirm button inside someone else's page), referrers to other sites (the link is
 * the key) and caching; the policy is also in the page itself, because n8n replaces the header policy of the one
 * page it sends for the node (the "received" page) with its own sandbox policy.
 */
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'";

export interface Page {
	status: number;
	title: string;
	html: string;
}

function layout(title: string, body: string): string {
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="same-origin">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, -apple-system, sans-serif; background: #f5f5f7; color: #1d1d1f; display: flex; min-height: 100vh; margin: 0; align-items: center; justify-content: center; }
main { background: #fff; border-radius: 12px; padding: 32px 40px; width: min(420px, 86vw); box-sizing: border-box; text-align: center; box-shadow: 0 2px 12px rgba(0, 0, 0, .08); }
h1 { font-size: 20px; margin: 0 0 12px; }
p { margin: 0 0 12px; line-height: 1.5; }
.question { white-space: pre-wrap; text-align: left; background: #f5f5f7; border-radius: 8px; padding: 12px 14px; }
.answer { font-weight: 600; font-size: 18px; }
form { margin: 16px 0 0; text-align: left; }
label { display: block; font-weight: 600; margin: 12px 0 4px; }
input, select, textarea { width: 100%; box-sizing: border-box; font: inherit; padding: 8px 10px; border: 1px solid #c7c7cc; border-radius: 8px; }
textarea { min-height: 96px; }
.error { color: #c00; font-size: 14px; margin: 4px 0 0; }
.notice { background: #fff4d6; border-radius: 8px; padding: 10px 12px; }
.decoy { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
button { display: block; width: 100%; margin: 18px 0 0; font: inherit; font-weight: 600; color: #fff; background: #0a66d8; border: 0; border-radius: 8px; padding: 12px; cursor: pointer; }
</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

const paragraph = (text: string, className?: string) =>
	`<p${className ? ` class="${className}"` : ''}>${escapeHtml(text)}</p>`;

function messagePage(status: number, title: string, lines: string[]): Page {
	return {
		status,
		title,
		html: layout(title, `<h1>${escapeHtml(title)}</h1>${lines.map((line) => paragraph(line)).join('')}`),
	};
}

const hiddenToken = (token: PageToken) =>
	`<input type="hidden" name="${TOKEN_FIELD}" value="${escapeHtml(token.value)}">`;

/**
 * A control no person sees or reaches: out of sight (1 px, clipped), out of the accessibility tree (aria-hidden) and of
 * the keyboard's tab order (tabindex -1); first in the page, so a program that presses every control in order presses
 * it before the real one. Pressing it spends the page's token (see decoy.ts). Its text is for the rare
 * person whose browser shows no styles (a text-mode browser). It posts as the page's own form does: n8n refuses any
 * other POST to a Custom Form's page before the node sees it.
 */
const decoy = (token: PageToken, encoding: string) =>
	`<div class="decoy" aria-hidden="true"><form method="post"${encoding}>${hiddenToken(token)}<input type="hidden" name="${DECOY_FIELD}" value="1"><button type="submit" tabindex="-1">Not an answer: leave this button alone</button></form></div>`;

/**
 * The page's own form: it carries the token, and the earliest time a confirmation counts (for tests and tools). n8n
 * 2.41.1 takes a POST to a Custom Form's page only as multipart/form-data and answers any other with its own 415
 * before the node runs (webhook-helpers.js: executeWebhook throws UnsupportedMediaTypeError when
 * requiresMultipartFormData(node), true for a send-and-wait node whose responseType is customForm).
 */
const answerForm = (token: PageToken, inner: string, multipart = false) => {
	const encoding = multipart ? ' enctype="multipart/form-data"' : '';
	return `${decoy(token, encoding)}<form method="post"${encoding} data-not-before="${token.notBefore}">${hiddenToken(token)}${inner}</form>`;
};

/** A page asked again: why (a notice, or the problems of what was sent) and with which status. */
export interface AskAgain {
	status: number;
	notice?: string;
}

const noticeOf = (again?: AskAgain) => (again?.notice ? paragraph(again.notice, 'notice') : '');

/** The optional comment box of a confirm page: what was typed, and why it cannot be sent (too long). */
export interface CommentBox {
	text: string;
	error?: string;
}

const commentInput = (comment: CommentBox) =>
	`<label for="answer-comment">Comment (optional)</label><textarea id="answer-comment" name="${COMMENT_INPUT}">${escapeHtml(comment.text)}</textarea>${comment.error ? paragraph(comment.error, 'error') : ''}`;

/**
 * GET of an Approval or Choice link: the question, the answer of the link, and a button that confirms it; with a
 * comment box when the question asks for one (status 422 when the comment sent was too long).
 */
export function confirmPage(
	question: string,
	answer: string,
	token: PageToken,
	again?: AskAgain,
	comment?: CommentBox,
): Page {
	const title = 'Confirm your answer';
	const body = `<h1>${escapeHtml(title)}</h1>${noticeOf(again)}${paragraph(question, 'question')}<p>Your answer:</p>${paragraph(answer, 'answer')}
${answerForm(token, `${comment ? commentInput(comment) : ''}<button type="submit">Confirm “${escapeHtml(answer)}”</button>`)}`;
	return { status: again?.status ?? (comment?.error ? 422 : 200), title, html: layout(title, body) };
}

/** GET of a Free Text link, or the form shown again with what was typed (empty or too long: status 422). */
export function freeTextPage(question: string, token: PageToken, typed = '', error?: string, again?: AskAgain): Page {
	const title = 'Your answer';
	const body = `<h1>${escapeHtml(title)}</h1>${noticeOf(again)}${paragraph(question, 'question')}
${answerForm(token, `<label for="answer-text">Answer</label><textarea id="answer-text" name="${FREE_TEXT_INPUT}" required>${escapeHtml(typed)}</textarea>${error ? paragraph(error, 'error') : ''}<button type="submit">Send</button>`)}`;
	return { status: again?.status ?? (error ? 422 : 200), title, html: layout(title, body) };
}

function formInput(field: FormField, index: number, value: string): string {
	const name = formInputName(index);
	const required = field.required ? ' required' : '';
	const id = `field-${index}`;
	if (field.type === 'dropdown') {
		// Each option posts its index: without a value attribute a browser posts the option's text with its
		// whitespace collapsed, which would not match an option such as "Late  evening".
		const options = (field.options ?? [])
			.map(
				(option, optionIndex) =>
					`<option value="${optionIndex}"${String(optionIndex) === value ? ' selected' : ''}>${escapeHtml(option)}</option>`,
			)
			.join('');
		return `<select id="${id}" name="${name}"${required}><option value="">Choose…</option>${options}</select>`;
	}
	const type = field.type === 'number' ? 'number" step="any' : field.type === 'date' ? 'date' : 'text';
	return `<input id="${id}" type="${type}" name="${name}" value="${escapeHtml(value)}"${required}>`;
}

/** GET of a Custom Form link, or the form shown again with what was typed and what was wrong (status 422). */
export function customFormPage(
	question: string,
	fields: FormField[],
	token: PageToken,
	entered: ReadonlyMap<string, string> = new Map(),
	errors: ReadonlyMap<string, string> = new Map(),
	again?: AskAgain,
): Page {
	const title = 'Your answer';
	const inputs = fields
		.map((field, index) => {
			const mark = field.required ? ' *' : '';
			const problem = errors.get(field.label);
			const error = problem ? paragraph(problem, 'error') : '';
			return `<label for="field-${index}">${escapeHtml(field.label)}${mark}</label>${formInput(field, index, entered.get(field.label) ?? '')}${error}`;
		})
		.join('');
	// n8n accepts a Custom Form of Send and Wait only as multipart/form-data.
	const body = `<h1>${escapeHtml(title)}</h1>${noticeOf(again)}${paragraph(question, 'question')}${answerForm(token, `${inputs}<button type="submit">Send</button>`, true)}`;
	return { status: again?.status ?? (errors.size ? 422 : 200), title, html: layout(title, body) };
}

export const receivedPage = (answer: string) =>
	messagePage(200, 'Thank you', [`Your answer “${answer}” has been received.`, 'You can close this page.']);

export const alreadyAnsweredPage = () =>
	messagePage(409, 'Already answered', [
		'This question has already been answered: only the first answer sent counts, and this one was not recorded.',
		'If you sent your answer twice, the page you got first says whether it was received; if that page showed an error, open the link again in half a minute.',
	]);

/**
 * The same answer sent again while the first is being handled (a double tap shows only this page): it says neither
 * "received" (the first could still fail) nor "not recorded" (it is being recorded), and how to check.
 */
export const repeatedAnswerPage = (answer: string) =>
	messagePage(409, 'Already sent', [
		`The answer “${answer}” was already sent a moment ago and is being handled; only one answer counts, so sending it again changed nothing.`,
		'To check that it was received, open the link from the message again in a minute: if the question still asks for an answer, send it again.',
	]);

/**
 * A confirmed answer n8n did not resume the execution with: most likely a tap in another n8n process (several webhook
 * processes behind a load balancer) resumed it a moment before. Whose answer that was, and whether it was the same,
 * is not known in this process, so the page says neither "already answered" nor "being handled".
 */
export const notRecordedPage = () =>
	messagePage(409, 'Not recorded', [
		'Your answer was not recorded. Most likely the question was answered at the same moment, by another tap or on another device, and only one answer counts.',
		'If you tapped twice, the other tap may have been yours. To check, open the link from the message again in a minute: if the question still asks for an answer, send yours again.',
	]);

/** Several answers decide (Decide By): this one is kept, and the question waits for the others. */
export const keptAnswerPage = (answer: string, answered: number, asked: number) =>
	messagePage(200, 'Thank you', [
		`Your answer “${answer}” has been received.`,
		`The question is decided when enough of the others have answered: ${answered} of ${asked} have so far. You can close this page.`,
	]);

/** Several answers decide: this subscriber's first answer counts, and this one (another tap) was not recorded. */
export const answeredBeforePage = (answer: string) =>
	messagePage(409, 'Already answered', [
		`You answered this question before: your first answer, “${answer}”, is the one that counts, and this one was not recorded.`,
	]);

/**
 * Several answers decide, and this answer completed the decision, but n8n did not resume the execution with it: another
 * answer in another n8n process completed it a moment before. This answer is kept, but whether the decision counted it
 * is not known in this process.
 */
export const decidedMeanwhilePage = () =>
	messagePage(409, 'Decided a moment ago', [
		'Your answer was received as the question was being decided by the answers of the others, so it may not be part of the decision.',
	]);

/**
 * Several answers decide, and the store of answers failed on this one: its row may or may not have been added (the
 * read back may be what failed), so the page does not say it was lost. Sent again, a kept first answer is the one
 * that counts (answeredBeforePage).
 */
export const notKeptPage = () =>
	messagePage(503, 'Not recorded', [
		'Your answer may not have been recorded: keeping it failed just now, and the question still waits for it.',
		'Open the link from the message again in a minute and send it again.',
	]);

export const expiredPage = () =>
	messagePage(410, 'This question has expired', ['The time to answer has passed.', 'Your answer was not recorded.']);

export const replacedPage = () =>
	messagePage(410, 'This link no longer answers', [
		'It belongs to an earlier question, which has been replaced by a newer one.',
		'Your answer was not recorded. Use the buttons of the latest message.',
	]);

export const unreadableQuestionPage = () =>
	messagePage(410, 'This link cannot answer', [
		'The question it belongs to could not be found.',
		'Your answer was not recorded. Please tell whoever sent you the message.',
	]);

export const refusedPage = () =>
	messagePage(403, 'Please confirm on the question’s page', [
		'This confirmation did not come from the page of the question.',
		'Open the link from the message again and confirm there. Nothing was recorded.',
	]);

/**
 * The decoy control of a page was pressed (only a program does that), or a page shown before such a press was
 * confirmed: nothing is recorded and the question stays open for the person, who opens the link again.
 */
export const automatedPage = () =>
	messagePage(403, 'Not recorded: pressed by a program', [
		'A control of this page that people never see was pressed, so an automated program (a link checker of a mail or chat service, say) went through the page. Nothing was recorded, and this page can no longer confirm.',
		'The question is still open: in a minute, open the link from the message again and answer there.',
	]);

/** What a too-early confirmation is told: the page is shown again (nothing recorded). */
export const TOO_EARLY_NOTICE = 'Please check your answer and confirm again: nothing has been recorded yet.';
/** What a confirmation of a page left open for hours is told: the page is shown again (nothing recorded). */
export const STALE_NOTICE =
	'This page was open for a long time. Please check your answer and confirm again: nothing has been recorded yet.';

export const methodNotAllowedPage = () =>
	messagePage(405, 'Not an answer', [
		'An answer link is opened in a browser and answered on its page. Nothing was recorded.',
	]);

export const failedPage = () =>
	messagePage(500, 'Something went wrong', [
		'Your answer could not be handled and was not recorded.',
		'Open the link from the message again.',
	]);

export const incompleteLinkPage = () =>
	messagePage(400, 'Link not complete', ['This link does not carry an answer. Use the buttons of the message.']);

/** The headers every page is sent with. */
export function setPageHeaders(context: IWebhookFunctions): void {
	const response = context.getResponseObject();
	response.setHeader('Content-Type', 'text/html; charset=utf-8');
	response.setHeader('Cache-Control', 'no-store');
	response.setHeader('Content-Security-Policy', `${POLICY}; frame-ancestors 'none'`);
	response.setHeader('X-Frame-Options', 'DENY');
	response.setHeader('X-Content-Type-Options', 'nosniff');
	// Not no-referrer: with it, browsers post the confirm form with `Origin: null`.
	response.setHeader('Referrer-Policy', 'same-origin');
	// n8n 2.41.1 grants every site read permission before it calls the node: WebhookRequestHandler.setupCorsHeaders echoes a
	// request's Origin (WaitingWebhooks.findAccessControlOptions allows '*'), and WaitingWebhooks.executeWebhook's
	// applyCors (utils/cors.util.js) sets the Origin, or '*' without one. Any site's script could read the pages (the
	// question, the token). The node's answers take that permission back.
	response.removeHeader('Access-Control-Allow-Origin');
	response.removeHeader('Access-Control-Allow-Credentials');
}

/** Sends a page as the whole response (one that resumes nothing). */
export function sendPage(context: IWebhookFunctions, page: Page): void {
	setPageHeaders(context);
	const response = context.getResponseObject();
	response.status(page.status);
	response.send(page.html);
}
