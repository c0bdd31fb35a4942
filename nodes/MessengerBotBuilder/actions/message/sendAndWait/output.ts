import type { IDataObject } from 'n8n-workflow';
import type { FieldAnswer, Question, Subscriber } from './question';

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
	data.respondedAt = new Date().toISOString();
	Object.assign(data, asked(question, linkOf));
	data.answeredThrough = ANSWERED_THROUGH_LINK;
	return { data };
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
			timedOut: true,
			respondedAt: null,
			...asked(question, null),
			answeredThrough: null,
		},
	};
}
