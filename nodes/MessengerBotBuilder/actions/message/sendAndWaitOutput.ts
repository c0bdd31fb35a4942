import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import type { Question } from './sendAndWaitQuestion';

/**
 * What Send and Wait for Response puts out. Version 3 says who answered (the subscriber the
 * question was sent to: only that question's links answer it) and when; versions 1 and 2 keep the
 * output their saved workflows were built on: `{ data: { answer, approved?, timedOut } }`.
 */
const saysWhoAndWhen = (context: IExecuteFunctions | IWebhookFunctions) => context.getNode().typeVersion >= 3;

export function answeredOutput(context: IWebhookFunctions, question: Question, answer: IDataObject): IDataObject {
	const data: IDataObject = { ...answer, timedOut: false };
	if (saysWhoAndWhen(context)) {
		data.respondedAt = new Date().toISOString();
		data.respondedBy = { ...question.subscriber };
	}
	return { data };
}

export function timedOutOutput(context: IExecuteFunctions): IDataObject {
	const data: IDataObject = { answer: null, timedOut: true };
	if (saysWhoAndWhen(context)) {
		data.respondedAt = null;
		data.respondedBy = null;
	}
	return { data };
}
