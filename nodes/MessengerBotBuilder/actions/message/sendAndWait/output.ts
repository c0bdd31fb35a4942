import type { IDataObject } from 'n8n-workflow';
import type { FieldAnswer, Question } from './question';

/**
 * What Send and Wait for Response puts out. An answer link is a bearer secret: whoever holds the message (the
 * subscriber, someone they forwarded it to, anyone who can read the chat) can answer through it, and a page cannot
 * tell who did. So the output says just that: the subscriber asked (`askedSubscriber`) and that the answer came through
 * the question's link (`answeredThrough: "answerLink"`), and when. A Custom Form answer also carries
 * `fields: [{ label, value }]`, in the form's field order.
 */
export const ANSWERED_THROUGH_LINK = 'answerLink';

/** The asked subscriber in the service's spelling, as in every other output's `recipient`. */
function askedSubscriber(question: Question): IDataObject {
	const { botId, clientId, messenger } = question.subscriber;
	return { botid: botId, clientid: clientId, messenger };
}

export function answeredOutput(question: Question, answer: IDataObject, fieldAnswers?: FieldAnswer[]): IDataObject {
	const data: IDataObject = { ...answer, timedOut: false };
	// A Custom Form's values also as a list: n8n copies items with n8n-workflow's deepCopy, which leaves out the keys
	// `__proto__`, `constructor` and `prototype`, so the `answer` object cannot carry such a label; the list can.
	if (fieldAnswers) data.fields = fieldAnswers.map((field) => ({ ...field }));
	data.respondedAt = new Date().toISOString();
	data.askedSubscriber = askedSubscriber(question);
	data.answeredThrough = ANSWERED_THROUGH_LINK;
	return { data };
}

export function timedOutOutput(question: Question): IDataObject {
	return {
		data: {
			answer: null,
			...(question.comment ? { comment: null } : {}),
			timedOut: true,
			respondedAt: null,
			askedSubscriber: askedSubscriber(question),
			answeredThrough: null,
		},
	};
}
