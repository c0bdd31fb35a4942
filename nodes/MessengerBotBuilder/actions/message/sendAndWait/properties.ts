import type { INodeProperties } from 'n8n-workflow';
import { botField, clientIdFields } from '../../common/fields';
import { MAX_ASKED } from './askedSubscribers';
import { DECIDE_BY_FIRST } from './decision';
import { FOLLOW_UP_STEP } from './followUps';
import { DEFAULT_MAX_ANSWER_LENGTH } from './question';

/** The parameters of Message → Send and Wait for Response. */
const showFor = (...responseTypes: string[]) => ({ show: { responseType: responseTypes } });

/** "Decide By", whose options depend on the response type: the rules of approvals need approve and decline. */
const decideBy: INodeProperties = {
	displayName: 'Decide By',
	name: 'decideBy',
	type: 'options',
	default: DECIDE_BY_FIRST,
	description:
		'Which answers decide the question. Any rule but the first answer needs the n8n API credential: the answers are kept in an n8n data table until the question is decided.',
};
const ALL_ANSWERS = {
	name: 'All Answers',
	value: 'all',
	description: 'Waits until every subscriber asked has answered; an Approval is approved only if all approve',
};
const APPROVALS_NEEDED = {
	name: 'Approvals Needed',
	value: 'approvals',
	description: 'Approved as soon as that many approve; declined as soon as too many decline for that to happen',
};
const FIRST_ANSWER = {
	name: 'First Answer',
	value: DECIDE_BY_FIRST,
	description: 'The first answer through any subscriber’s link decides',
};
const FIRST_DECLINE = {
	name: 'First Decline',
	value: 'firstDecline',
	description: 'Declined as soon as one declines; approved when all have approved',
};

/** An amount and its unit (Remind, Escalate): read as `amount` and `unit` (followUps.ts). */
const interval = (displayName: string, description: string): INodeProperties[] => [
	{ displayName, name: 'amount', type: 'number', typeOptions: { minValue: 0 }, default: 1, description },
	{
		displayName: 'Unit',
		name: 'unit',
		type: 'options',
		default: 'hours',
		description: 'Unit of the amount',
		options: [
			{ name: 'Days', value: 'days' },
			{ name: 'Hours', value: 'hours' },
			{ name: 'Minutes', value: 'minutes' },
		],
	},
];

export const sendAndWaitProperties: INodeProperties[] = [
	botField(),
	{
		displayName: 'Ask',
		name: 'askWhom',
		type: 'options',
		default: 'one',
		description: 'Whom to send the question to',
		options: [
			{ name: 'One Subscriber', value: 'one', description: 'The subscriber picked below' },
			{
				name: 'Several Subscribers',
				value: 'list',
				description: `Subscribers by Client ID (at most ${MAX_ASKED}), each with links of their own`,
			},
			{
				name: 'Subscribers With a Tag',
				value: 'tag',
				description: `The bot's active, unblocked subscribers with the tag (at most ${MAX_ASKED}), each with links of their own`,
			},
		],
	},
	...clientIdFields({ displayOptions: { show: { askWhom: ['one'] } } }),
	{
		displayName: 'Client IDs',
		name: 'clientIds',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 100001, 100002',
		description:
			'The subscribers to ask, by their ID in the messenger (ClientID), separated by commas; an expression that gives a list works too',
		displayOptions: { show: { askWhom: ['list'] } },
	},
	{
		displayName: 'Tag',
		name: 'tag',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. managers',
		description: 'The tag of the subscribers to ask, matched exactly',
		displayOptions: { show: { askWhom: ['tag'] } },
	},
	{
		...decideBy,
		options: [ALL_ANSWERS, APPROVALS_NEEDED, FIRST_ANSWER, FIRST_DECLINE],
		displayOptions: { show: { askWhom: ['list', 'tag'], responseType: ['approval'] } },
	},
	{
		...decideBy,
		options: [ALL_ANSWERS, FIRST_ANSWER],
		displayOptions: { show: { askWhom: ['list', 'tag'], responseType: ['choice', 'freeText', 'customForm'] } },
	},
	{
		displayName: 'Approvals Needed',
		name: 'approvalsNeeded',
		type: 'number',
		typeOptions: { minValue: 1, numberPrecision: 0 },
		default: 2,
		required: true,
		description: 'How many of the subscribers asked must approve (at most as many as are asked)',
		displayOptions: { show: { askWhom: ['list', 'tag'], decideBy: ['approvals'] } },
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Can we deliver your order tomorrow?',
		description:
			'The question the subscriber gets, with one link button per answer under it (or one button that opens a page to answer on)',
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
			{
				name: 'Custom Form',
				value: 'customForm',
				description: 'A form with your fields (text, number, dropdown, date) on a page',
			},
			{ name: 'Free Text', value: 'freeText', description: 'A text the subscriber writes on a page' },
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
		displayName: 'Form Fields',
		name: 'formFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Form Field',
		default: {},
		required: true,
		description: 'The fields of the form, in this order; the output names each value by its label',
		displayOptions: showFor('customForm'),
		options: [
			{
				displayName: 'Field',
				name: 'values',
				values: [
					{
						displayName: 'Field Label',
						name: 'fieldLabel',
						type: 'string',
						default: '',
						placeholder: 'e.g. Delivery date',
						description: 'Shown above the field; the output names the value by it, in answer and in the fields list',
						hint: 'n8n drops the labels __proto__, constructor and prototype from the answer object: their values are in the fields list',
					},
					{
						displayName: 'Field Type',
						name: 'fieldType',
						type: 'options',
						default: 'text',
						description: 'What the field accepts',
						options: [
							{ name: 'Date', value: 'date', description: 'A calendar date, put out as YYYY-MM-DD' },
							{ name: 'Dropdown', value: 'dropdown', description: 'One of your options' },
							{ name: 'Number', value: 'number', description: 'A number, put out as a number' },
							{ name: 'Text', value: 'text', description: 'One line of text' },
						],
					},
					{
						displayName: 'Field Options',
						name: 'fieldOptions',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true, sortable: true },
						placeholder: 'Add Field Option',
						default: {},
						description: 'The choices of the dropdown, in this order',
						displayOptions: { show: { fieldType: ['dropdown'] } },
						options: [
							{
								displayName: 'Option',
								name: 'values',
								values: [
									{
										displayName: 'Option',
										name: 'option',
										type: 'string',
										default: '',
										description: 'Text of the choice; the output holds it when chosen',
									},
								],
							},
						],
					},
					{
						displayName: 'Required Field',
						name: 'requiredField',
						type: 'boolean',
						default: false,
						description:
							'Whether the form can only be sent with this field filled in (an empty optional field is put out as null)',
					},
				],
			},
		],
	},
	{
		displayName: 'Button Text',
		name: 'respondLabel',
		type: 'string',
		default: 'Respond',
		description: 'Text of the one button under the message; it opens the page to answer on',
		displayOptions: showFor('freeText', 'customForm'),
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		description: 'How long to wait for the answer, and how long it may be',
		options: [
			{
				displayName: 'Ask for a Comment',
				name: 'comment',
				type: 'boolean',
				default: false,
				description:
					'Whether the confirm page also takes an optional comment with the answer, for "approve, but…" or "request changes"; the node puts it out as comment (null when none was written)',
				displayOptions: { show: { '/responseType': ['approval', 'choice'] } },
			},
			{
				displayName: 'Escalate',
				name: 'escalate',
				type: 'fixedCollection',
				default: {},
				description:
					'Whether to ask more subscribers of the same bot when nobody has answered after a time (with Decide By First Answer); they get the question with links of their own',
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							...interval('After', 'How long after the question to ask them'),
							{
								displayName: 'Client IDs',
								name: 'clientIds',
								type: 'string',
								default: '',
								placeholder: 'e.g. 100003, 100004',
								description: 'The subscribers to ask next, separated by commas',
							},
							{
								displayName: 'Text',
								name: 'text',
								type: 'string',
								typeOptions: { rows: 2 },
								default: '',
								description: "The message they get; empty: the question's message",
							},
						],
					},
				],
			},
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
									{
										name: 'After Time Interval',
										value: 'afterTimeInterval',
										description: 'Waits for a certain amount of time',
									},
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
			{
				displayName: 'Max Answer Length',
				name: 'maxAnswerLength',
				type: 'number',
				typeOptions: { minValue: 1, numberPrecision: 0 },
				default: DEFAULT_MAX_ANSWER_LENGTH,
				description:
					'The most characters (Unicode code points) a Free Text answer, any one field of a Custom Form, or a comment may have; the page refuses a longer one and keeps its text to shorten, unless it is over four times as long',
			},
			{
				displayName: 'On Time Out',
				name: 'onTimeOut',
				type: 'options',
				default: 'timedOut',
				description:
					'What the workflow goes on with when Limit Wait Time ends the wait before an answer; the output says timedOut: true either way',
				options: [
					{ name: 'Continue as Approved', value: 'approve', description: 'The approve answer, approved: true' },
					{
						name: 'Continue as Declined',
						value: 'decline',
						description: 'The decline answer (null without a Decline button), approved: false',
					},
					{ name: 'Continue Without an Answer', value: 'timedOut', description: 'The answer is null' },
				],
				displayOptions: { show: { '/responseType': ['approval'] } },
			},
			{
				displayName: 'Remind',
				name: 'remind',
				type: 'fixedCollection',
				default: {},
				description: 'Whether to remind those asked who have not answered; the reminder carries the same answer links',
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							...interval('Every', 'How long after the question (and after each reminder) to remind'),
							{
								displayName: 'Times',
								name: 'times',
								type: 'number',
								typeOptions: { minValue: 1, maxValue: 10, numberPrecision: 0 },
								default: 1,
								description: 'How many reminders at most',
							},
							{
								displayName: 'Text',
								name: 'text',
								type: 'string',
								typeOptions: { rows: 2 },
								default: '',
								description: 'The reminder\'s message; empty: "Reminder: " and the question\'s message',
							},
						],
					},
				],
			},
		],
	},
	// Set only on this node's steps in the sub-execution of reminders and escalation (followUps.ts).
	{
		displayName: 'Follow-Up Step',
		name: FOLLOW_UP_STEP,
		type: 'hidden',
		default: -1,
		description: 'Set by the node itself on the steps of its reminders and escalation; -1 everywhere else',
	},
];
