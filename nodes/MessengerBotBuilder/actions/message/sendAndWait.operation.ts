import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import type { SEND_AND_WAIT_OPERATION } from 'n8n-workflow';
import { NodeOperationError, WAIT_INDEFINITELY } from 'n8n-workflow';
import type { Operation } from '../types';
import { botField, clientIdFields } from '../common/fields';
import { subscriberKey, text } from '../common/params';
import { apiRequest } from '../../transport/request';
import { failedItem, withItemIndex } from '../common/itemFailures';
import { ANSWER_PARAM, APPROVED_PARAM } from './answerPage';

/**
 * n8n's name for the operation: n8n checks the signature of resume links only for operations of
 * this name. Typed against n8n-workflow's constant, so a rename there fails the build.
 */
const SEND_AND_WAIT: typeof SEND_AND_WAIT_OPERATION = 'sendAndWait';

const showFor = (responseType: string) => ({ show: { responseType: [responseType] } });

const properties: INodeProperties[] = [
	botField(),
	...clientIdFields(),
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Can we deliver your order tomorrow?',
		description: 'The question the subscriber gets, with one link button per answer under it',
	},
	{
		displayName: 'Response Type',
		name: 'responseType',
		type: 'options',
		default: 'approval',
		description: 'Which answers the subscriber can give',
		options: [
			{ name: 'Approval', value: 'approval', description: 'An Approve button, and a Decline button if you want one' },
			{ name: 'Choice', value: 'choice', description: 'Your own list of answers, one button each' },
		],
	},
	{
		displayName: 'Approval Options',
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		description: 'The buttons of an approval and their texts',
		displayOptions: showFor('approval'),
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						default: 'double',
						description: 'Whether the subscriber can also decline',
						options: [
							{ name: 'Approve and Decline', value: 'double' },
							{ name: 'Approve Only', value: 'single' },
						],
					},
					{
						displayName: 'Approve Button Text',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
						description: 'Text of the button that approves',
					},
					{
						displayName: 'Decline Button Text',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						description: 'Text of the button that declines',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Answers',
		name: 'choices',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Answer',
		default: {},
		required: true,
		description: 'The answers the subscriber chooses from, one button each, in this order',
		displayOptions: showFor('choice'),
		options: [
			{
				displayName: 'Answer',
				name: 'values',
				values: [
					{
						displayName: 'Text',
						name: 'label',
						type: 'string',
						default: '',
						placeholder: 'e.g. Tomorrow morning',
						description: 'Text of the button; the workflow receives it as the answer',
					},
				],
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		description: 'How long to wait for the answer',
		options: [
			{
				displayName: 'Limit Wait Time',
				name: 'limitWaitTime',
				type: 'fixedCollection',
				default: { values: { limitType: 'afterTimeInterval', resumeAmount: 1, resumeUnit: 'hours' } },
				description:
					'Whether to stop waiting after a time: the node then puts out { data: { answer: null, timedOut: true } }',
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							{
								displayName: 'Limit Type',
								name: 'limitType',
								type: 'options',
								default: 'afterTimeInterval',
								description: 'How the end of the wait is given',
								options: [
									{ name: 'After Time Interval', value: 'afterTimeInterval', description: 'Waits for a certain amount of time' },
									{ name: 'At Specified Time', value: 'atSpecifiedTime', description: 'Waits until a date and time' },
								],
							},
							{
								displayName: 'Amount',
								name: 'resumeAmount',
								type: 'number',
								typeOptions: { minValue: 0, numberPrecision: 2 },
								default: 1,
								description: 'How long to wait for the answer',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
							},
							{
								displayName: 'Unit',
								name: 'resumeUnit',
								type: 'options',
								default: 'hours',
								description: 'Unit of the amount',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
								// Shortest to longest: the order people read units in.
								options: [
									{ name: 'Minutes', value: 'minutes' },
									{ name: 'Hours', value: 'hours' },
									{ name: 'Days', value: 'days' },
								],
							},
							{
								displayName: 'Max Date and Time',
								name: 'maxDateAndTime',
								type: 'dateTime',
								default: '',
								description: 'When the wait ends if the subscriber has not answered',
								displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
							},
						],
					},
				],
			},
		],
	},
];

interface Answer {
	label: string;
	approved?: boolean;
}

const UNIT_MS: Record<string, number> = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 };

/** The answers offered, in button order. */
function answersOf(this: IExecuteFunctions): Answer[] {
	const responseType = this.getNodeParameter('responseType', 0) as string;
	if (responseType === 'choice') {
		const collection = this.getNodeParameter('choices', 0, {}) as { values?: Array<{ label?: unknown }> };
		const labels = (collection.values ?? []).map((choice) => String(choice.label ?? '').trim());
		if (labels.length === 0 || labels.some((label) => label === '')) {
			throw new NodeOperationError(this.getNode(), 'Every answer in "Answers" needs a text', {
				description: 'Add at least one answer and give each a text: it is the text of its button.',
			});
		}
		if (new Set(labels).size !== labels.length) {
			throw new NodeOperationError(this.getNode(), 'Two answers in "Answers" have the same text', {
				description: 'The workflow receives the text of the button tapped, so each answer needs its own.',
			});
		}
		return labels.map((label) => ({ label }));
	}
	const options = this.getNodeParameter('approvalOptions.values', 0, {}) as IDataObject;
	const approve = String(options.approveLabel ?? 'Approve').trim() || 'Approve';
	if (options.approvalType === 'single') return [{ label: approve, approved: true }];
	const decline = String(options.disapproveLabel ?? 'Decline').trim() || 'Decline';
	if (decline === approve) {
		throw new NodeOperationError(this.getNode(), 'The approve and decline buttons have the same text', {
			description: 'Give "Approve Button Text" and "Decline Button Text" different texts.',
		});
	}
	return [
		{ label: approve, approved: true },
		{ label: decline, approved: false },
	];
}

/** When the wait ends without an answer: the time limit, or never. */
function waitLimit(this: IExecuteFunctions): Date {
	const limit = this.getNodeParameter('options.limitWaitTime.values', 0, {}) as IDataObject;
	if (!Object.keys(limit).length) return WAIT_INDEFINITELY;
	let until: Date;
	if (limit.limitType === 'atSpecifiedTime') {
		until = new Date(String(limit.maxDateAndTime ?? ''));
	} else {
		const amount = Number(limit.resumeAmount ?? 1);
		const unit = UNIT_MS[String(limit.resumeUnit ?? 'hours')];
		until = new Date(Date.now() + amount * (unit ?? NaN));
	}
	if (Number.isNaN(until.getTime())) {
		throw new NodeOperationError(this.getNode(), 'The "Limit Wait Time" option does not give a valid time', {
			description: 'Give an amount and a unit, or a date and time.',
		});
	}
	if (limit.limitType === 'atSpecifiedTime' && until.getTime() <= Date.now()) {
		throw new NodeOperationError(this.getNode(), `The "Max Date and Time" of "Limit Wait Time" is in the past (${until.toISOString()})`);
	}
	return until;
}

/**
 * Message → Send and Wait for Response. Sends the question with one link button per answer; each
 * button leads to a resume URL that n8n signed, with the answer inside the signed part, so a changed
 * answer breaks the signature and n8n refuses it. The execution then waits; the node's webhook
 * (`answerPage.ts`) resumes it with the answer. A time limit resumes it with `timedOut: true`.
 */
export const sendAndWait: Operation = {
	value: SEND_AND_WAIT,
	name: 'Send and Wait for Response',
	action: 'Send a message and wait for the answer',
	description:
		'Sends the subscriber a question with answer buttons and waits until they tap one; the workflow continues with the answer',
	properties,
	async executeAll(items): Promise<INodeExecutionData[]> {
		if (items.length > 1) {
			throw new NodeOperationError(this.getNode(), `Send and Wait for Response waits for one answer, but got ${items.length} items`, {
				description:
					'An execution waits for one answer at a time. To ask several subscribers, call a sub-workflow that asks one (Execute Workflow, "Run once for each item"): each question then has an execution of its own. A loop inside one execution would let a button of an earlier question answer a later one.',
			});
		}
		try {
			const answers = answersOf.call(this);
			const waitTill = waitLimit.call(this);
			const buttons = answers.map(({ label, approved }) => ({
				name: label,
				url: this.getSignedResumeUrl(
					approved === undefined ? { [ANSWER_PARAM]: label } : { [ANSWER_PARAM]: label, [APPROVED_PARAM]: String(approved) },
				),
			}));
			const params = { ...subscriberKey.call(this, 0), text: text.call(this, 'message', 0, true), buttons };
			await apiRequest.call(this, { method: 'POST', path: '/message/send', params, itemIndex: 0 });

			// What the node puts out when the time limit ends the wait: n8n then passes the waiting
			// node's input through, and an answer replaces that input with the webhook's output.
			const timedOut: INodeExecutionData = { json: { data: { answer: null, timedOut: true } }, pairedItem: { item: 0 } };
			this.getExecuteData().data.main = [[timedOut]];
			await this.putExecutionToWait(waitTill);
			return items;
		} catch (error) {
			if (this.continueOnFail()) return [failedItem(error, 0)];
			throw withItemIndex(this.getNode(), error, 0);
		}
	},
};
