import type { IDataObject } from 'n8n-workflow';
import type { FieldAnswer, Question, Subscriber } from './question';
import { subscribersOf } from './question';
import type { RecordedAnswer } from './decision';
import { ANSWER_TABLE_NAME } from './answerStore';

/**
 * What Send and Wait for Response puts out. An answer link is a bearer secret: whoever holds the message (the
 * subscriber, someone they forwarded it to, anyone who can read the chat) can answer through it, and a page cannot
 * tell who did. So the output says just that: the subscriber asked (`askedSubscriber`) and that the answer came through
 * the question's link (`answeredThrough: "answerLink"`), and when. A Custom Form answer also carries
 * `fields: [{ label, value }]`, in the form's field order.
 */
export const ANSWERED_THROUGH_LINK = 'answerLink';

/** A subscriber in the service's spelling, as in every other output's `recipient`. */
function spelled({ botId, clientId, messenger }: Subscriber): IDataObject {
	return { botid: botId, clientid: clientId, messenger };
}

/**
 * Whom the question went to: `askedSubscriber` when one subscriber was asked; with several, `askedSubscribers` and
 * `answerLinkOf`, the subscriber whose link the answer came through (null when none did).
 */
function asked(question: Question, linkOf: number | null): IDataObject {
	if (!question.subscribers) return { askedSubscriber: spelled(question.subscriber) };
	const through = linkOf === null ? undefined : question.subscribers[linkOf];
	return {
		askedSubscribers: question.subscribers.map(spelled),
		answerLinkOf: through ? spelled(through) : null,
	};
}

/**
 * Reminders and escalation: the sub-execution that sends them (n8n lists it with this execution) and each step, with
 * whether it was due before the answer (or the time-out). A due step was sent if the question still waited then; the
 * sub-execution shows each send.
 */
function followUpsOf(question: Question, at: number): IDataObject {
	if (!question.followUps) return {};
	const subscribers = subscribersOf(question);
	return {
		followUps: {
			execution: question.followUps.execution,
			steps: question.followUps.steps.map((step) => ({
				kind: step.kind,
				dueAt: new Date(step.dueAt).toISOString(),
				due: step.dueAt <= at,
				to: step.to.map((index) => spelled(subscribers[index])),
			})),
		},
	};
}

export function answeredOutput(
	question: Question,
	answer: IDataObject,
	fieldAnswers?: FieldAnswer[],
	linkOf: number | null = null,
): IDataObject {
	const data: IDataObject = { ...answer, timedOut: false };
	// A Custom Form's values also as a list: n8n copies items with n8n-workflow's deepCopy, which leaves out the keys
	// `__proto__`, `constructor` and `prototype`, so the `answer` object cannot carry such a label; the list can.
	if (fieldAnswers) data.fields = fieldAnswers.map((field) => ({ ...field }));
	return { data: answeredThroughLink(data, question, linkOf) };
}

/** What every answered output ends with: when, who was asked and through whose link, the follow-ups, the link. */
function answeredThroughLink(data: IDataObject, question: Question, linkOf: number | null): IDataObject {
	const now = Date.now();
	data.respondedAt = new Date(now).toISOString();
	Object.assign(data, asked(question, linkOf), followUpsOf(question, now));
	data.answeredThrough = ANSWERED_THROUGH_LINK;
	return data;
}

/** The label of the button that approves (or declines), the answer an Approval's decision puts out. */
const labelOf = (question: Question, approved: boolean) =>
	question.answers.find((answer) => answer.approved === approved)?.label ?? null;

/**
 * The output of a question that several answers decided (Decide By): the decision (for an Approval, `answer` and
 * `approved`), the rule, and every subscriber's answer that had come in, in the order they came, each with whose it
 * is and `respondedAt`. `respondedAt` and `answerLinkOf` are those of the answer that decided.
 */
export function decidedOutput(
	question: Question,
	approved: boolean | undefined,
	answers: RecordedAnswer[],
	linkOf: number,
): IDataObject {
	const subscribers = subscribersOf(question);
	const data: IDataObject = approved === undefined ? {} : { answer: labelOf(question, approved), approved };
	data.decidedBy = question.decision?.decideBy ?? null;
	data.answers = answers.map((recorded) => ({
		subscriber: spelled(subscribers[recorded.subscriber]),
		...recorded.data,
		respondedAt: recorded.respondedAt,
	}));
	data.timedOut = false;
	return { data: answeredThroughLink(data, question, linkOf) };
}

/**
 * A question that several answers decide, on a time-out: the answers that came in are in the data table, not in the
 * output (n8n fixes a waiting node's time-out output when the wait begins), so the output says where to read them.
 */
function kept(question: Question): IDataObject {
	return {
		decidedBy: question.decision?.decideBy ?? null,
		answers: null,
		answersKeptIn: { dataTable: ANSWER_TABLE_NAME, question: question.id },
	};
}

/**
 * What the node puts out when the time limit ends the wait: no answer; or, for an Approval that lets the deadline
 * decide, the decision (approved or not) with `timedOut: true`, so a workflow can tell who decided.
 */
export function timedOutOutput(question: Question): IDataObject {
	const decided = question.onTimeOut
		? (question.answers.find((answer) => answer.approved === (question.onTimeOut === 'approve')) ?? null)
		: undefined;
	return {
		data: {
			answer: decided === undefined ? null : (decided?.label ?? null),
			...(decided === undefined ? {} : { approved: question.onTimeOut === 'approve' }),
			...(question.comment ? { comment: null } : {}),
			...(question.decision ? kept(question) : {}),
			timedOut: true,
			respondedAt: null,
			...asked(question, null),
			...followUpsOf(question, question.until ?? Date.now()),
			answeredThrough: null,
		},
	};
}
