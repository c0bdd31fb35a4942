import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { listsFormFields, namesAskedSubscriber, namesRecipients } from '../common/versions';
import type { FieldAnswer, Question } from './sendAndWaitQuestion';

/**
 * What Send and Wait for Response puts out. An answer link is a bearer secret: whoever holds the message (the
 * subscriber, someone they forwarded it to, anyone who can read the chat) can answer through it, and a page cannot
 * tell who did. Version 4 says just that: the subscriber asked (`askedSubscriber`) and that the answer came through
 * the question's link (`answeredThrough: "answerLink"`), and when. Version 3 keeps `respondedBy` (the asked subscriber,
 * under a name that claims they answered) for the workflows saved with it; versions 1 and 2 keep the output their
 * saved workflows were built on: `{ data: { answer, approved?, timedOut } }`. From version 4 a Custom Form answer also
 * carries `fields: [{ label, value }]`, in the form's field order.
 */
export const ANSWERED_THROUGH_LINK = 'answerLink';

/** The asked subscriber in the service's spelling, as in every other output's `recipient`. */
function askedSubscriber(question: Question): IDataObject {
	const { botId, clientId, messenger } = question.subscriber;
	return { botid: botId, clientid: clientId, messenger };
}

export function answeredOutput(
	context: IWebhookFunctions,
	question: Question,
	answer: IDataObject,
	fieldAnswers?: FieldAnswer[],
): IDataObject {
	const data: IDataObject = { ...answer, timedOut: false };
	// A Custom Form's values also as a list: the `answer` object loses labels n8n's deepCopy leaves out (see versions.ts).
	if (fieldAnswers && listsFormFields(context)) data.fields = fieldAnswers.map((field) => ({ ...field }));
	if (namesAskedSubscriber(context)) {
		data.respondedAt = new Date().toISOString();
		data.askedSubscriber = askedSubscriber(question);
		data.answeredThrough = ANSWERED_THROUGH_LINK;
	} else if (namesRecipients(context)) {
		data.respondedAt = new Date().toISOString();
		data.respondedBy = askedSubscriber(question);
	}
	return { data };
}

export function timedOutOutput(context: IExecuteFunctions, question: Question): IDataObject {
	const data: IDataObject = { answer: null, timedOut: true };
	if (namesAskedSubscriber(context)) {
		data.respondedAt = null;
		data.askedSubscriber = askedSubscriber(question);
		data.answeredThrough = null;
	} else if (namesRecipients(context)) {
		data.respondedAt = null;
		data.respondedBy = null;
	}
	return { data };
}
