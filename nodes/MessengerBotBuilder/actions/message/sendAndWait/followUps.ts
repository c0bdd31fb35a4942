import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { apiRequest } from '../../../transport/request';
import type { FollowUpStep, Question, Subscriber } from './question';
import { UNIT_MS, subscribersOf } from './question';
import { answeredSubscribers } from './answerStore';
import { clientIdList } from './askedSubscribers';
import { keptQuestion } from './binding';

/**
 * Reminders and escalation of a waiting question. n8n 2.41.1 never runs a waiting node again (notes/n8n-topology.md,
 * "Can a waiting node wait again?"), so the node hands its follow-ups to a sub-execution of its own when it asks: an
 * inline workflow (Execute Workflow Trigger → Wait until the first step → this node, which sends it → Wait → …) that
 * n8n runs without the asking execution waiting for it (`executeWorkflow` with `doNotWaitToFinish`). Its Wait nodes
 * wait as n8n's Wait node does, saved in n8n's database past a minute; each step first reads the asking execution
 * (`getExecutionDataById`) and sends only while that execution still waits for this very question. The user builds
 * no second workflow; the sub-execution is listed with the asking one.
 */
/** What the sub-execution needs: whose question to check, and each step's messages with their link buttons. */
export interface FollowUpPlan {
	execution: string;
	node: string;
	question: string;
	steps: Array<
		FollowUpStep & {
			messages: Array<{ index: number; subscriber: Subscriber; buttons: Array<{ name: string; url: string }> }>;
		}
	>;
}

/** The parameter that makes this node a step of a follow-up sub-execution: the index of its step. */
export const FOLLOW_UP_STEP = 'followUpStep';
const MAX_REMINDERS = 10;

function fail(context: IExecuteFunctions, message: string, description: string): never {
	throw new NodeOperationError(context.getNode(), message, { description });
}

function intervalOf(context: IExecuteFunctions, option: string, values: IDataObject): number {
	const amount = Number(values.amount);
	const unit = UNIT_MS[String(values.unit ?? 'hours')];
	if (!(amount > 0) || unit === undefined)
		fail(
			context,
			`The "Amount" of "${option}" must be more than 0 (got ${String(values.amount)})`,
			'Nothing was sent.',
		);
	return amount * unit;
}

/** The reminders of Options → Remind: every interval, so many times, to the subscribers asked. */
function reminderSteps(context: IExecuteFunctions, question: Question, asked: number[], start: number): FollowUpStep[] {
	const values = context.getNodeParameter('options.remind.values', 0, {}) as IDataObject;
	if (!Object.keys(values).length) return [];
	const every = intervalOf(context, 'Remind', values);
	const times = Number(values.times ?? 1);
	if (!Number.isInteger(times) || times < 1 || times > MAX_REMINDERS)
		fail(
			context,
			`The "Times" of "Remind" must be a whole number from 1 to ${MAX_REMINDERS} (got ${String(values.times)})`,
			'Nothing was sent.',
		);
	const text = String(values.text ?? '').trim() || `Reminder: ${question.message}`;
	return Array.from({ length: times }, (_, index) => ({
		kind: 'reminder',
		dueAt: start + every * (index + 1),
		text,
		to: asked,
	}));
}

/** The Client IDs of Options → Escalate, asked (with links of their own) when the step is due. */
export function escalationClientIds(context: IExecuteFunctions): string[] {
	const values = context.getNodeParameter('options.escalate.values', 0, {}) as IDataObject;
	if (!Object.keys(values).length) return [];
	const ids = clientIdList(values.clientIds);
	if (!ids.length)
		fail(context, 'The "Client IDs" of "Escalate" are empty', 'Give the Client IDs of the subscribers to ask next.');
	return ids;
}

/** The follow-ups of the question in the order they are due; each must be due before the question's time limit. */
export function followUpStepsOf(
	this: IExecuteFunctions,
	question: Question,
	escalated: number[],
	start = Date.now(),
): FollowUpStep[] {
	const asked = subscribersOf(question)
		.map((_, index) => index)
		.filter((index) => !escalated.includes(index));
	const steps = reminderSteps(this, question, asked, start);
	if (escalated.length) {
		const values = this.getNodeParameter('options.escalate.values', 0, {}) as IDataObject;
		const text = String(values.text ?? '').trim() || question.message;
		steps.push({ kind: 'escalation', dueAt: start + intervalOf(this, 'Escalate', values), text, to: escalated });
	}
	steps.sort((a, b) => a.dueAt - b.dueAt);
	const late = steps.find((step) => question.until !== null && step.dueAt >= question.until);
	if (late)
		fail(
			this,
			`The ${late.kind} is due at ${new Date(late.dueAt).toISOString()}, after the time limit ${new Date(question.until!).toISOString()}`,
			'Nothing was sent. Remind and escalate before Limit Wait Time ends the wait.',
		);
	return steps;
}

/** The inline workflow of the follow-ups: a Wait until each step, then this node sending it. */
function followUpWorkflow(context: IExecuteFunctions, plan: FollowUpPlan): IDataObject {
	const node = context.getNode();
	const nodes: IDataObject[] = [
		{
			id: 'start',
			name: 'Start',
			type: 'n8n-nodes-base.executeWorkflowTrigger',
			typeVersion: 1.1,
			position: [0, 0],
			parameters: { inputSource: 'passthrough' },
		},
	];
	const connections: IDataObject = {};
	let previous = 'Start';
	plan.steps.forEach((step, index) => {
		const wait = `Wait for ${step.kind} ${index + 1}`;
		const send = `Send ${step.kind} ${index + 1}`;
		nodes.push(
			{
				id: `wait-${index}`,
				name: wait,
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				position: [220 * (2 * index + 1), 0],
				parameters: { resume: 'specificTime', dateTime: new Date(step.dueAt).toISOString() },
			},
			{
				id: `send-${index}`,
				name: send,
				type: node.type,
				typeVersion: node.typeVersion,
				position: [220 * (2 * index + 2), 0],
				// The step reads what it sends from the plan; the required fields are filled so that n8n runs the
				// workflow (WorkflowExecute.checkForWorkflowIssues refuses a node missing a required parameter).
				parameters: {
					resource: 'message',
					operation: 'sendAndWait',
					botId: { __rl: true, mode: 'id', value: step.messages[0]?.subscriber.botId ?? '' },
					clientId: { __rl: true, mode: 'id', value: step.messages[0]?.subscriber.clientId ?? '' },
					message: step.text,
					[FOLLOW_UP_STEP]: index,
				},
				credentials: node.credentials,
			},
		);
		connections[previous] = { main: [[{ node: wait, type: 'main', index: 0 }]] };
		connections[wait] = { main: [[{ node: send, type: 'main', index: 0 }]] };
		previous = send;
	});
	// No settings of its own: n8n gives it the asking workflow's (fetchWorkflowData), so its saving, time zone and error
	// workflow are the user's.
	return { name: `${node.name}: reminders and escalation`, nodes, connections };
}

/** Starts the follow-ups' sub-execution; its id. */
export async function startFollowUps(this: IExecuteFunctions, plan: FollowUpPlan): Promise<string> {
	const started = await this.executeWorkflow(
		{ code: followUpWorkflow(this, plan) as never },
		[{ json: { followUps: plan as unknown as IDataObject } }],
		undefined,
		{
			doNotWaitToFinish: true,
			parentExecution: { executionId: plan.execution, workflowId: String(this.getWorkflow().id ?? '') },
		},
	);
	return String(started.executionId);
}

/**
 * The question, if the asking execution still waits at the node for it (a decided or ended one does not): read from
 * the execution's data in n8n's database, where the node keeps it (binding.ts).
 */
async function stillAsking(context: IExecuteFunctions, plan: FollowUpPlan): Promise<Question | undefined> {
	const data = await context.getExecutionDataById(plan.execution);
	if (!data || data.resultData?.error !== undefined || !data.waitTill) return undefined;
	if (data.resultData?.lastNodeExecuted !== plan.node) return undefined;
	const question = keptQuestion(data.executionData?.contextData?.[`node:${plan.node}`] as IDataObject | undefined);
	return question?.id === plan.question ? question : undefined;
}

/** Those a step writes to: with Decide By other than the first answer, a reminder skips those who have answered. */
async function recipientsOf(context: IExecuteFunctions, question: Question, step: FollowUpPlan['steps'][number]) {
	if (!question.decision || step.kind !== 'reminder') return step.messages;
	const answered = await answeredSubscribers(context, { id: question.id, asked: question.decision.asked });
	return step.messages.filter((message) => !answered.has(message.index));
}

/** A step of the follow-ups: sends it while the question still waits; otherwise ends the follow-ups. */
export async function runFollowUpStep(this: IExecuteFunctions, items: INodeExecutionData[], index: number) {
	const plan = items[0]?.json.followUps as unknown as FollowUpPlan | undefined;
	const step = plan?.steps[index];
	if (!plan || !step)
		throw new NodeOperationError(this.getNode(), `Follow-up step ${index + 1} has no plan in its input`);
	const question = await stillAsking(this, plan);
	if (!question) return [];
	for (const message of await recipientsOf(this, question, step)) {
		const params = {
			botid: message.subscriber.botId,
			clientid: message.subscriber.clientId,
			text: step.text,
			buttons: message.buttons,
		};
		await apiRequest.call(this, { method: 'POST', path: '/message/send', params, itemIndex: 0 });
	}
	return items;
}
