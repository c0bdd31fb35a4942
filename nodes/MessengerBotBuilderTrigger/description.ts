import type { INodeProperties } from 'n8n-workflow';
import { EVENT_KIND_OPTIONS } from '../shared/delivery/eventKinds';
import { ALL_EVENTS } from './events';
import { DEFAULT_CLAIM_HOURS, MIN_CLAIM_HOURS } from './claimLog';
import { DEFAULT_HISTORY_SIZE, MAX_HISTORY_SIZE } from './repeatCheck';

export const OUTPUT_DATA = 'data';
export const OUTPUT_ENVELOPE = 'envelope';
export const RESPOND_WHEN_VERIFIED = 'verified';
export const RESPOND_WHEN_FINISHED = 'finished';
export const REPEAT_CHECK_HISTORY = 'history';
export const REPEAT_CHECK_CLAIM_LOG = 'claimLog';

export const triggerProperties: INodeProperties[] = [
	{
		displayName: 'Events',
		name: 'events',
		type: 'multiOptions',
		required: true,
		default: [ALL_EVENTS],
		description: 'The events that start the workflow',
		options: [
			{ name: 'All Events', value: ALL_EVENTS, description: 'Every event kind the service documents' },
			...EVENT_KIND_OPTIONS,
		],
	},
	{
		displayName: 'Bot Names or IDs',
		name: 'botIds',
		type: 'multiOptions',
		typeOptions: { loadOptionsMethod: 'getBots' },
		default: [],
		description:
			'Only events about subscribers or payments of these bots start the workflow; none means every bot. Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
	},
	{
		displayName: 'Repeat Check',
		name: 'repeatCheck',
		type: 'options',
		default: REPEAT_CHECK_HISTORY,
		description:
			'Where the trigger records the events it ran, so that a delivery the service repeats runs the workflow no second time, whichever n8n process receives it',
		options: [
			{
				name: 'Claim Log in a Data Table',
				value: REPEAT_CHECK_CLAIM_LOG,
				description:
					"Decides every repeat however slow the database, and a redelivery of a failed run runs it again. Needs an API key of this n8n (n8n's public API).",
			},
			{
				name: 'Event History in the Database',
				value: REPEAT_CHECK_HISTORY,
				description:
					'Needs no setup. Its cost grows with the history size, and a database that stalls can make a simultaneous repeat run twice.',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		description: 'What the trigger puts out, and which events it passes',
		options: [
			{
				displayName: 'Answer the Service',
				name: 'respondWhen',
				type: 'options',
				default: RESPOND_WHEN_VERIFIED,
				description:
					'When the service gets its 200. Until then it delivers the event again (after a failure, or 10 s without an answer), so an event whose run fails or dies is run again.',
				options: [
					{
						name: 'When the Workflow Has Finished',
						value: RESPOND_WHEN_FINISHED,
						description:
							'After the last node (or when the workflow starts to wait); a failed run gets a 500. Use it with the claim log.',
					},
					{
						name: 'When Verified',
						value: RESPOND_WHEN_VERIFIED,
						description: 'At once; an event whose run fails is not delivered again',
					},
				],
			},
			{
				displayName: 'Claims Kept (Hours)',
				name: 'claimHours',
				type: 'number',
				typeOptions: { minValue: MIN_CLAIM_HOURS, numberPrecision: 0 },
				default: DEFAULT_CLAIM_HOURS,
				displayOptions: { show: { '/repeatCheck': [REPEAT_CHECK_CLAIM_LOG] } },
				description:
					'How long each claim stays in the data table. The service retries a delivery for a bit over an hour, so a repeat within this time runs nothing; older claims are deleted.',
			},
			{
				displayName: 'Event History Size',
				displayOptions: { show: { '/repeatCheck': [REPEAT_CHECK_HISTORY] } },
				name: 'historySize',
				type: 'number',
				typeOptions: { minValue: 100, maxValue: MAX_HISTORY_SIZE, numberPrecision: 0 },
				default: DEFAULT_HISTORY_SIZE,
				description:
					"How many recent events the trigger remembers in n8n's database, so that a delivery the service repeats starts nothing, whichever n8n process receives it. The oldest are forgotten first; a larger history costs more per event.",
			},
			{
				displayName: 'One Output per Event Kind',
				name: 'outputPerEvent',
				type: 'boolean',
				default: false,
				description:
					'Whether each event kind gets its own output (New Subscriber, Subscriber Stage Changed, Payment Succeeded, and Other Events for unknown kinds when they pass), so no Switch node is needed',
			},
			{
				displayName: 'Output',
				name: 'output',
				type: 'options',
				default: OUTPUT_DATA,
				description: 'What each event becomes in the output item',
				options: [
					{ name: 'Event Data Only', value: OUTPUT_DATA, description: 'The event\'s "data" object' },
					{
						name: 'Whole Event',
						value: OUTPUT_ENVELOPE,
						description: 'ID, type, creation time, hook and data',
					},
				],
			},
			{
				displayName: 'Pass Unknown Event Kinds',
				name: 'passUnknownEvents',
				type: 'boolean',
				default: false,
				description:
					'Whether events of kinds this node does not know yet (the service may add kinds) also start the workflow; they are put out as the whole event, with its type',
			},
		],
	},
];
