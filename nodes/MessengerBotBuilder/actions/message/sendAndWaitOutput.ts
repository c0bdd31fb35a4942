import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';
import { namesRecipients } from '../common/versions';
import type { Question } from './sendAndWaitQuestion';

/**
 * What Send and Wait for Response puts out. Version 3 says who answered (the subscriber the
 * question was sent to: only that question's links answer it) and when; versions 1 and 2 keep the
 * output their saved workflows were built on: `{ data: { answer, approved?, timedOut } }`.
 */
export function answeredOutput(context: IWebhookFunctions, question: Question, answer: IDataObject): IDataObject {
	const data: IDataObject = { ...answer, timedOut: false };
	if (namesRecipients(context)) {
		const { botId, clientId, messenger } = question.subscriber;
		data.respondedAt = new Date().toISOString();
		// The service's spelling, as in every other output's `recipient`.
		data.respondedBy = { botid: botId, clientid: clientId, messenger };
	}
	return { data };
}

export function timedOutOutput(context: IExecuteFunctions): IDataObject {
	const data: IDataObject = { answer: null, timedOut: true };
	if (namesRecipients(context)) {
		data.respondedAt = null;
		data.respondedBy = null;
	}
	return { data };
}
