import type {
	IDataObject,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
	NodeOperationError,
} from 'n8n-workflow';
import {
	DECOY_FIELD,
	LINK,
	TOKEN_FIELD,
	claimAnswer,
	crossSiteReason,
	deadlineOf,
	releaseAnswer,
	tokenState,
	waitingQuestion,
} from './binding';
import { spendPages } from './decoy';
import { decoyCookie, markedPressAt } from './decoyMark';
import { pageToken } from './pageToken';
import type { PageToken } from './pageToken';
import {
	STALE_NOTICE,
	TOO_EARLY_NOTICE,
	alreadyAnsweredPage,
	answeredBeforePage,
	automatedPage,
	decidedMeanwhilePage,
	keptAnswerPage,
	notKeptPage,
	methodNotAllowedPage,
	repeatedAnswerPage,
	confirmPage,
	failedPage,
	customFormPage,
	expiredPage,
	freeTextPage,
	incompleteLinkPage,
	notRecordedPage,
	receivedPage,
	refusedPage,
	replacedPage,
	unreadableQuestionPage,
	sendPage,
	setPageHeaders,
} from './pages';
import type { AskAgain, CommentBox, Page } from './pages';
import { answeredOutput, decidedOutput } from './output';
import type { ButtonAnswer, FieldAnswer, Question, Subscriber } from './question';
import { recordAnswer } from './answerStore';
import type { RecordedAnswers } from './answerStore';
import { decide } from './decision';
import type { DecisionRule } from './decision';
import { COMMENT_INPUT, FREE_TEXT_INPUT, answersByButton, checkForm, maxAnswerLengthOf } from './question';
import { typedAnswer } from './answerLength';

/**
 * The webhooks of Send and Wait for Response: n8n's resume address of a waiting execution at this
 * node (`/webhook-waiting/<execution>/<node id>`), which n8n opens only for a link it signed. GET
 * and HEAD show a page and never resume; only a POST from that page does. PUT, PATCH and DELETE are
 * declared only to be answered 405: n8n 2.41.1 hands a waiting webhook request to the node only when the
 * node declares a webhook of that method (WaitingWebhooks.getWebhookExecutionData), and otherwise answers
 * with its own "No action required" page while the question still waits. Nothing is registered at
 * the service, so the node has no webhook lifecycle, like n8n's own nodes with this operation.
 */
const ANSWER_METHODS = ['GET', 'HEAD', 'POST'] as const;
const answerWebhook = (httpMethod: IWebhookDescription['httpMethod']): IWebhookDescription => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
});

export const sendAndWaitWebhooks: IWebhookDescription[] = [...ANSWER_METHODS, 'PUT', 'PATCH', 'DELETE'].map((method) =>
	answerWebhook(method as IWebhookDescription['httpMethod']),
);

/** The path of the link a request came to (n8n's resume address of this node), without its query. */
function linkPath(request: { originalUrl?: string; url?: string }): string {
	const path = (request.originalUrl ?? request.url ?? '/').split('?')[0];
	// Only characters a cookie's Path attribute can carry as they are.
	return /^\/[A-Za-z0-9/_.~-]*$/.test(path) ? path : '/';
}

/** Answers with a page and resumes nothing. */
function shown(context: IWebhookFunctions, page: Page): IWebhookResponseData {
	sendPage(context, page);
	return { noWebhookResponse: true };
}

/**
 * The fields of the posted form. n8n parses url-encoded forms into the body itself, and multipart forms
 * (which it demands for a Custom Form) into `{ data: fields, files }`.
 */
function submittedFields(body: IDataObject | undefined): IDataObject {
	if (!body) return {};
	const { data, files } = body;
	return files !== undefined && data && typeof data === 'object' && !Array.isArray(data) ? (data as IDataObject) : body;
}

/** The answer a button link carries, if it is one of the question's answers. */
function linkAnswer(question: Question, query: IDataObject): ButtonAnswer | undefined {
	const label = query[LINK.answer];
	return question.answers.find((answer) => answer.label === label);
}

const answerByButton = (question: Question) => answersByButton(question.responseType);

/**
 * With several subscribers asked, the index of the subscriber whose link this is: a link without a valid one answers
 * nothing. `undefined` when one subscriber is asked; `null` for a link that names no asked subscriber.
 */
function linkSubscriber(question: Question, query: IDataObject): number | null | undefined {
	if (!question.subscribers) return undefined;
	const raw = query[LINK.subscriber];
	const index = typeof raw === 'string' && /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
	return Number.isInteger(index) && index < question.subscribers.length ? index : null;
}

/**
 * The subject of a page's token: the answer of the link, or the form; with several subscribers asked, also whose
 * link it is, so that a page of one subscriber's link confirms nothing on another's.
 */
const tokenSubject = (question: Question, answer?: ButtonAnswer, linkOf?: number) =>
	`${linkOf === undefined ? '' : `s${linkOf}:`}${answerByButton(question) ? `answer:${answer?.label}` : 'form'}`;

/** Whose pages a press of a decoy control spends: the question's, or with several asked, one subscriber's. */
const pagesOf = (question: Question, linkOf?: number) =>
	linkOf === undefined ? question.id : `${question.id}:s${linkOf}`;

/** The page a GET or HEAD shows (the confirm button, or the form); or shown again, with what was typed kept. */
function questionPage(
	question: Question,
	answer: ButtonAnswer | undefined,
	linkOf: number | undefined,
	body: IDataObject = {},
	again?: AskAgain,
): Page {
	const token = pageToken(question, tokenSubject(question, answer, linkOf));
	// A button question's link always names its answer (handle() shows a page of its own when it does not).
	if (answer) return confirmPage(question.message, answer.label, token, again, commentBox(question, body));
	// Asked again (425, 409): what was typed is kept through the same bound as a refused answer's.
	if (question.responseType === 'freeText') {
		const typed = typedAnswer(body[FREE_TEXT_INPUT], maxAnswerLengthOf(question));
		return freeTextPage(question.message, token, typed.text, typed.tooLong, again);
	}
	const { entered, tooLong } = checkForm(question.fields, body, maxAnswerLengthOf(question));
	return customFormPage(question.message, question.fields, token, entered, tooLong, again);
}

/** The comment box of a question that asks for one, with what was typed kept through the answers' bound. */
function commentBox(question: Question, body: IDataObject): CommentBox | undefined {
	if (!question.comment) return undefined;
	const { text, tooLong } = typedAnswer(body[COMMENT_INPUT], maxAnswerLengthOf(question));
	return { text, error: tooLong?.replace('This answer', 'This comment') };
}

interface PostedAnswer {
	data: IDataObject;
	shownAs: string;
	/** Custom Form: the values as a list in field order (the output's `fields`). */
	fieldAnswers?: FieldAnswer[];
}

/** What a confirmed POST answers, or the page that asks again (a form with errors, what was typed kept). */
function postedAnswer(
	question: Question,
	answer: ButtonAnswer | undefined,
	linkOf: number | undefined,
	body: IDataObject,
): PostedAnswer | Page {
	const token: PageToken = pageToken(question, tokenSubject(question, answer, linkOf));
	if (answer) {
		const data: IDataObject = { answer: answer.label };
		if (answer.approved !== undefined) data.approved = answer.approved;
		const comment = commentBox(question, body);
		if (comment?.error) return confirmPage(question.message, answer.label, token, undefined, comment);
		if (comment) data.comment = comment.text || null;
		return { data, shownAs: answer.label };
	}
	if (question.responseType === 'freeText') {
		const { text, tooLong } = typedAnswer(body[FREE_TEXT_INPUT], maxAnswerLengthOf(question));
		if (tooLong) return freeTextPage(question.message, token, text, tooLong);
		if (!text) return freeTextPage(question.message, token, '', 'Write an answer before sending.');
		return { data: { answer: text }, shownAs: text };
	}
	const check = checkForm(question.fields, body, maxAnswerLengthOf(question));
	if (check.errors.size) return customFormPage(question.message, question.fields, token, check.entered, check.errors);
	const data = { answer: check.values };
	return { data, shownAs: shownAnswer(data), fieldAnswers: check.fieldAnswers };
}

/**
 * An answer as its pages repeat it: the button's text, the text written, or a form's values field by field as the
 * person typed or chose them (an empty optional field as "–").
 */
function shownAnswer(data: IDataObject): string {
	const { answer } = data;
	if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return String(answer ?? '');
	return Object.entries(answer)
		.map(([label, value]) => `${label}: ${value === null ? '–' : String(value)}`)
		.join('; ');
}

/**
 * n8n resumes the execution with a confirmed answer only after webhook() returned: WorkflowRunner.run →
 * ActiveExecutions.add moves it from waiting to running only if it is still waiting. When that fails (a tap in
 * another n8n process moved it first: this process's claims cannot see that tap), n8n answers the request itself
 * with an error, `res.status(500).json(…)` (ResponseHelper.sendErrorResponse): a JSON body (with a stack trace
 * when NODE_ENV is unset or development) under the HTML headers this page already set. Its "received" page goes out
 * with `res.send`, never `res.json`. So the first JSON answer n8n sends for this request with a status of 500 or
 * more is replaced by the not-recorded page, and `notResumed` is called; any other answer goes out unchanged, as
 * does n8n's error should it ever be sent another way. n8n still logs its error.
 */
function notRecordedIfNotResumed(
	context: IWebhookFunctions,
	notResumed: () => void,
	page: Page = notRecordedPage(),
): void {
	const response = context.getResponseObject();
	const json = response.json;
	response.json = ((body?: unknown) => {
		response.json = json;
		if (response.statusCode < 500 || response.headersSent) return json.call(response, body);
		const sent = response.status(page.status).send(page.html);
		try {
			notResumed();
		} catch {
			// Sent already; a claim not released lapses on its own.
		}
		return sent;
	}) as typeof response.json;
}

/**
 * A confirmed answer of a question that several answers decide (Decide By): kept in the data table of answers, then
 * the rule is checked against every answer kept. Undecided, the execution keeps waiting (n8n resumes nothing when the
 * webhook returns no workflow data); decided, it resumes with the decision and every answer.
 */
async function keptAnswer(
	context: IWebhookFunctions,
	question: Question & { decision: DecisionRule; subscribers: Subscriber[] },
	linkOf: number,
	posted: PostedAnswer,
): Promise<IWebhookResponseData> {
	const executionId = context.getExecutionId();
	// One answer per subscriber: a second tap of theirs in this process is told at once, one in another process by
	// the table (their first row counts).
	const subscriberKey = `${question.id}:s${linkOf}`;
	const claim = claimAnswer(executionId, subscriberKey, JSON.stringify(posted.data));
	if (claim === 'repeat') return shown(context, repeatedAnswerPage(posted.shownAs));
	if (claim === 'taken') return shown(context, alreadyAnsweredPage());
	const data = posted.fieldAnswers
		? { ...posted.data, fields: posted.fieldAnswers.map((field) => ({ ...field })) }
		: posted.data;
	let recorded: RecordedAnswers;
	try {
		recorded = await recordAnswer(
			context,
			{ id: question.id, asked: question.subscribers.length },
			{ subscriber: linkOf, data, respondedAt: new Date().toISOString() },
		);
	} catch (error) {
		releaseAnswer(executionId, subscriberKey);
		context.logger.warn(
			`Send and Wait for Response: an answer to execution ${executionId} could not be kept, and the page says so: ${(error as Error).message} ${(error as NodeOperationError).description ?? ''}`,
		);
		return shown(context, notKeptPage());
	}
	if (!recorded.counted) return shown(context, answeredBeforePage(shownAnswer(recorded.theirs.data)));
	const decision = decide(question.decision, recorded.answers);
	if (!decision.decided) {
		return shown(context, keptAnswerPage(posted.shownAs, recorded.answers.length, question.subscribers.length));
	}
	setPageHeaders(context);
	notRecordedIfNotResumed(
		context,
		() =>
			context.logger.info(
				`Send and Wait for Response: n8n did not resume execution ${executionId} with the decision an answer completed (most likely another answer completed it a moment before, in another n8n process); the answer is kept in the data table`,
			),
		decidedMeanwhilePage(),
	);
	return {
		webhookResponse: receivedPage(posted.shownAs).html,
		workflowData: [
			[{ json: decidedOutput(question, decision.approved, recorded.answers, linkOf), pairedItem: { item: 0 } }],
		],
	};
}

/** A confirmed answer of a question that the first answer decides: it resumes the execution. */
function firstAnswer(
	context: IWebhookFunctions,
	question: Question,
	linkOf: number | undefined,
	posted: PostedAnswer,
): IWebhookResponseData {
	const executionId = context.getExecutionId();
	// Whose link it came through is part of the claim: the same answer through another subscriber's link is another
	// answer (already answered), not a double tap (already sent).
	const claim = claimAnswer(executionId, question.id, JSON.stringify({ linkOf, ...posted.data }));
	if (claim === 'repeat') return shown(context, repeatedAnswerPage(posted.shownAs));
	if (claim === 'taken') return shown(context, alreadyAnsweredPage());

	// n8n sends this page only once it has moved the execution from waiting to running, after this
	// function returned: a tap that loses that move to a tap in another n8n process gets the
	// not-recorded page instead of "received" (and instead of n8n's own error).
	setPageHeaders(context);
	notRecordedIfNotResumed(context, () => {
		releaseAnswer(executionId, question.id);
		context.logger.info(
			`Send and Wait for Response: n8n did not resume execution ${executionId} with the answer confirmed on its link (most likely another tap resumed it a moment before, in another n8n process); the page says the answer was not recorded`,
		);
	});
	return {
		webhookResponse: receivedPage(posted.shownAs).html,
		workflowData: [
			[{ json: answeredOutput(question, posted.data, posted.fieldAnswers, linkOf ?? null), pairedItem: { item: 0 } }],
		],
	};
}

async function handle(context: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = context.getRequestObject();
	if (!(ANSWER_METHODS as readonly string[]).includes(request.method)) {
		context.getResponseObject().setHeader('Allow', ANSWER_METHODS.join(', '));
		return shown(context, methodNotAllowedPage());
	}
	const query = context.getQueryData() as IDataObject;
	const question = waitingQuestion.call(context);
	if (!question) {
		// Not a link of another question: this execution's own question cannot be read. Said, and logged
		// (the person is told to use a newer message that does not exist otherwise, and the run waits on).
		context.logger.warn(
			`Send and Wait for Response: a link of execution ${context.getExecutionId()} was opened, but the question it waits for could not be read (the wait may have begun under an older version of the node); nothing was recorded`,
		);
		return shown(context, unreadableQuestionPage());
	}
	// A link of another question: an earlier wait of this node (a loop), or one sent by an older version.
	if (query[LINK.question] !== question.id) return shown(context, replacedPage());
	if (deadlineOf(question) === 'expired') return shown(context, expiredPage());
	const answer = answerByButton(question) ? linkAnswer(question, query) : undefined;
	const linkOf = linkSubscriber(question, query);
	if ((answerByButton(question) && !answer) || linkOf === null) return shown(context, incompleteLinkPage());
	if (request.method !== 'POST') return shown(context, questionPage(question, answer, linkOf));

	const body = submittedFields(context.getBodyData());
	const executionId = context.getExecutionId();
	const pages = pagesOf(question, linkOf);
	const token = crossSiteReason(request.headers, question.origin)
		? 'forged'
		: tokenState(
				executionId,
				question,
				tokenSubject(question, answer, linkOf),
				body[TOKEN_FIELD],
				Date.now(),
				pages,
				markedPressAt(question, pages, request.headers.cookie),
			);
	if (token === 'forged') return shown(context, refusedPage());
	if (body[DECOY_FIELD] !== undefined) {
		// Only a program presses it: the pages of this question shown so far are spent (within the keep-out of
		// decoy.ts), the question stays open.
		spendPages(executionId, pages, String(body[TOKEN_FIELD]));
		// Marked in the pressing browser too, for the pages it is shown by other n8n processes or after a restart.
		context.getResponseObject().setHeader('Set-Cookie', decoyCookie(question, pages, linkPath(request)));
		context.logger.warn(
			`Send and Wait for Response: a program pressed the hidden control of an answer page of execution ${executionId} (an automated link checker, most likely); nothing was recorded, the pages shown so far can no longer confirm, and the question still waits for an answer through its link`,
		);
		return shown(context, automatedPage());
	}
	if (token === 'spent') return shown(context, automatedPage());
	if (token === 'early')
		return shown(context, questionPage(question, answer, linkOf, body, { status: 425, notice: TOO_EARLY_NOTICE }));
	if (token === 'stale')
		return shown(context, questionPage(question, answer, linkOf, body, { status: 409, notice: STALE_NOTICE }));
	const posted = postedAnswer(question, answer, linkOf, body);
	if ('html' in posted) return shown(context, posted);
	if (question.decision && question.subscribers && typeof linkOf === 'number') {
		return await keptAnswer(
			context,
			{ ...question, decision: question.decision, subscribers: question.subscribers },
			linkOf,
			posted,
		);
	}
	return firstAnswer(context, question, linkOf, posted);
}

/** The request on an answer link. Never throws: an error here would end the waiting execution as failed. */
export async function sendAndWaitWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	try {
		return await handle(this);
	} catch (error) {
		this.logger.warn(`Send and Wait for Response could not handle a request on its link: ${(error as Error).message}`);
		return shown(this, failedPage());
	}
}
