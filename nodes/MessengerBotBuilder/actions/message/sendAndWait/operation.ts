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
import { MAX_ASKED, askedSubscribersOf, askWhomOf, subscribersByClientId } from './askedSubscribers';
import { FOLLOW_UP_STEP, escalationClientIds, followUpStepsOf, runFollowUpStep, startFollowUps } from './followUps';
import { prepareAnswerStore } from './answerStore';
import { decisionRuleOf } from './decision';
import {
	answersByButton,
	buttonAnswersOf,
	formFieldsOf,
	maxAnswerLengthParameter,
	responseTypeOf,
	subscribersOf,
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
	}
	await addEscalated.call(this, question);
	if (question.decision) await prepareAnswerStore(this);
	if (byButton && this.getNodeParameter('options.comment', 0, false) === true) question.comment = true;
	const onTimeOut = this.getNodeParameter('options.onTimeOut', 0, 'timedOut') as string;
	if (responseType === 'approval' && (onTimeOut === 'approve' || onTimeOut === 'decline'))
		question.onTimeOut = onTimeOut;
	if (!byButton || question.comment) question.maxAnswerLength = maxAnswerLengthParameter.call(this);
	return question;
}

/** The link buttons of one subscriber's message, with links of their own (with several asked, the links carry the index). */
function buttonsOf(this: IExecuteFunctions, question: Question, index: number): Array<{ name: string; url: string }> {
	const linkOf = question.subscribers ? index : undefined;
	return answersByButton(question.responseType)
		? question.answers.map((answer) => ({ name: answer.label, url: answerLink.call(this, question, answer, linkOf) }))
		: [{ name: question.respondLabel, url: answerLink.call(this, question, undefined, linkOf) }];
}

/** Adds the subscribers of Options → Escalate to those asked: they get the question when the escalation is due. */
async function addEscalated(this: IExecuteFunctions, question: Question): Promise<void> {
	const ids = escalationClientIds(this);
	if (!ids.length) return;
	if (question.decision)
		throw new NodeOperationError(this.getNode(), 'Escalate needs "Decide By" First Answer', {
			description:
				'Those asked later cannot be counted by a rule that waits for the answers of everyone asked. Nothing was sent.',
		});
	const asked = subscribersOf(question);
	const added = (await subscribersByClientId.call(this, question.subscriber.botId, ids)).filter(
		(candidate) => !asked.some((subscriber) => subscriber.clientId === candidate.clientId),
	);
	if (asked.length + added.length > MAX_ASKED)
		throw new NodeOperationError(
			this.getNode(),
			`One question goes to at most ${MAX_ASKED} subscribers, escalation included`,
			{
				description: 'Nothing was sent.',
			},
		);
	question.subscribers = [...asked, ...added];
	question.escalated = added.map((_, index) => asked.length + index);
}

/** Starts the sub-execution of the reminders and the escalation, if any (followUps.ts). */
async function planFollowUps(this: IExecuteFunctions, question: Question): Promise<void> {
	const steps = followUpStepsOf.call(this, question, question.escalated ?? []);
	if (!steps.length) return;
	const subscribers = subscribersOf(question);
	const execution = await startFollowUps.call(this, {
		execution: String(this.getExecutionId()),
		node: this.getNode().name,
		question: question.id,
		steps: steps.map((step) => ({
			...step,
			messages: step.to.map((index) => ({
				index,
				subscriber: subscribers[index],
				buttons: buttonsOf.call(this, question, index),
			})),
		})),
	});
	question.followUps = { execution, steps };
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
		// A step of the reminders' and escalation's sub-execution (followUps.ts), not a question.
		const step = this.getNodeParameter(FOLLOW_UP_STEP, 0, -1) as number;
		if (step >= 0) return await runFollowUpStep.call(this, items, step);
		// A question whose message may have gone out in an earlier attempt is not sent again (Retry On Fail).
		const memory = runMemory.call(this);
		try {
			const uncertain = memory?.uncertain(0);
			if (uncertain) throw uncertain;
			const waitTill = waitLimitOf.call(this);
			const question = await newQuestion.call(this, waitTill);
			await planFollowUps.call(this, question);
			keepQuestion.call(this, question);
			// One message per subscriber asked (those escalated to only when their step is due).
			for (const [index, subscriber] of subscribersOf(question).entries()) {
				if (question.escalated?.includes(index)) continue;
				const params = {
					botid: subscriber.botId,
					clientid: subscriber.clientId,
					text: question.message,
					buttons: buttonsOf.call(this, question, index),
				};
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
