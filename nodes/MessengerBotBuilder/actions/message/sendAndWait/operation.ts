import { randomBytes, randomUUID } from 'node:crypto';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';
import type { Operation } from '../../types';
import { text } from '../../common/params';
import { apiRequest } from '../../../transport/request';
import { failedItem, withItemIndex } from '../../common/itemFailures';
import { runMemory } from '../../common/runMemory';
import { answerLink, keepQuestion, linkOrigin } from './binding';
import { sendAndWaitProperties } from './properties';
import { timedOutOutput } from './output';
import type { Question } from './question';
import { askedSubscribersOf, askWhomOf } from './askedSubscribers';
import { prepareAnswerStore } from './answerStore';
import { decisionRuleOf } from './decision';
import {
	answersByButton,
	buttonAnswersOf,
	formFieldsOf,
	maxAnswerLengthParameter,
	responseTypeOf,
	waitLimitOf,
} from './question';

/**
 * n8n's name for the operation: n8n checks the signature of resume links only for operations of
 * this name. Typed against n8n-workflow's constant, so a rename there fails the build.
 */
const SEND_AND_WAIT: typeof SEND_AND_WAIT_OPERATION = 'sendAndWait';

/** The question of this wait, with a fresh id and token key (see binding.ts). */
async function newQuestion(this: IExecuteFunctions, waitTill: Date): Promise<Question> {
	const responseType = responseTypeOf.call(this);
	const byButton = answersByButton(responseType);
	const askWhom = askWhomOf.call(this);
	const asked = await askedSubscribersOf.call(this, askWhom);
	const question: Question = {
		id: randomUUID(),
		tokenKey: randomBytes(32).toString('hex'),
		responseType,
		message: text.call(this, 'message', 0, true),
		answers: byButton ? buttonAnswersOf.call(this, responseType) : [],
		fields: responseType === 'customForm' ? formFieldsOf.call(this) : [],
		respondLabel: byButton ? '' : text.call(this, 'respondLabel', 0) || 'Respond',
		until: waitTill.getTime() === WAIT_INDEFINITELY.getTime() ? null : waitTill.getTime(),
		origin: linkOrigin(this.getSignedResumeUrl()),
		subscriber: asked[0],
	};
	if (askWhom !== 'one') {
		question.subscribers = asked;
		question.decision = decisionRuleOf.call(this, responseType, asked.length);
		if (question.decision) await prepareAnswerStore(this);
	}
	if (byButton && this.getNodeParameter('options.comment', 0, false) === true) question.comment = true;
	const onTimeOut = this.getNodeParameter('options.onTimeOut', 0, 'timedOut') as string;
	if (responseType === 'approval' && (onTimeOut === 'approve' || onTimeOut === 'decline'))
		question.onTimeOut = onTimeOut;
	if (!byButton || question.comment) question.maxAnswerLength = maxAnswerLengthParameter.call(this);
	return question;
}

/**
 * Message → Send and Wait for Response. Sends the question with link buttons that n8n signs, keeps
 * the question with the execution and waits. The node's webhook (webhook.ts) shows the
 * pages and resumes the execution with the confirmed answer; the time limit resumes it timed out.
 */
export const sendAndWait: Operation = {
	value: SEND_AND_WAIT,
	name: 'Send and Wait for Response',
	action: 'Send a message and wait for the answer',
	description:
		'Sends the subscriber a question with answer buttons and waits until they confirm an answer; the workflow continues with the answer',
	properties: sendAndWaitProperties,
	async executeAll(items): Promise<INodeExecutionData[]> {
		if (items.length > 1) {
			throw new NodeOperationError(
				this.getNode(),
				`Send and Wait for Response waits for one answer, but got ${items.length} items`,
				{
					description:
						'An execution waits for one answer at a time. To ask several subscribers one question that the first answer decides, set "Ask" to several subscribers or a tag; to ask each their own question, loop over them one at a time (Loop Over Items with batch size 1), or call a sub-workflow that asks one (Execute Workflow, "Run once for each item").',
				},
			);
		}
		// A question whose message may have gone out in an earlier attempt is not sent again (Retry On Fail).
		const memory = runMemory.call(this);
		try {
			const uncertain = memory?.uncertain(0);
			if (uncertain) throw uncertain;
			const waitTill = waitLimitOf.call(this);
			const question = await newQuestion.call(this, waitTill);
			keepQuestion.call(this, question);
			// One message per subscriber asked, each with links of their own (with several, the links carry the index).
			for (const [index, subscriber] of (question.subscribers ?? [question.subscriber]).entries()) {
				const linkOf = question.subscribers ? index : undefined;
				const buttons = answersByButton(question.responseType)
					? question.answers.map((answer) => ({
							name: answer.label,
							url: answerLink.call(this, question, answer, linkOf),
						}))
					: [{ name: question.respondLabel, url: answerLink.call(this, question, undefined, linkOf) }];
				const params = { botid: subscriber.botId, clientid: subscriber.clientId, text: question.message, buttons };
				await apiRequest.call(this, { method: 'POST', path: '/message/send', params, itemIndex: 0 });
			}

			// What the node puts out when the time limit ends the wait: n8n then passes the waiting
			// node's input through, and an answer replaces that input with the webhook's output.
			this.getExecuteData().data.main = [[{ json: timedOutOutput(question), pairedItem: { item: 0 } }]];
			await this.putExecutionToWait(waitTill);
			memory?.finish();
			return items;
		} catch (error) {
			if (this.continueOnFail()) return [failedItem(error, 0)];
			memory?.failed(0, error);
			throw withItemIndex(this.getNode(), error, 0);
		}
	},
};
