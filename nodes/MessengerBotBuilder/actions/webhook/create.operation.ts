import type { Operation } from '../types';
import { text } from '../common/params';
import { apiRequest } from '../../transport/request';
import { NodeOperationError } from 'n8n-workflow';

export const EVENT_KINDS = [
	{ name: 'Payment Succeeded', value: 'payment.success' },
	{ name: 'Subscriber Changed Stage', value: 'subscriber.stage' },
	{ name: 'Subscriber New', value: 'subscriber.new' },
];

export const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a webhook',
	description:
		'Subscribes a URL to events. The answer holds the signing secret, shown only once: keep it to verify deliveries.',
	properties: [
		{ displayName: 'Name', name: 'name', type: 'string', default: '', required: true, placeholder: 'e.g. CRM sync' },
		{
			displayName: 'URL',
			name: 'url',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. https://example.com/hooks/bots',
			description: 'Where the service sends the events',
		},
		{
			displayName: 'Events',
			name: 'events',
			type: 'multiOptions',
			options: EVENT_KINDS,
			default: ['subscriber.new'],
			required: true,
			hint: 'The signing secret is in the output only once; the Messenger Bot Builder Trigger node manages webhooks by itself',
		},
	],
	async execute(itemIndex) {
		const events = this.getNodeParameter('events', itemIndex, []) as string[];
		if (!events.length) throw new NodeOperationError(this.getNode(), 'The parameter "events" is empty', { itemIndex });
		const params = {
			name: text.call(this, 'name', itemIndex, true),
			url: text.call(this, 'url', itemIndex, true),
			events,
		};
		return await apiRequest.call(this, { method: 'POST', path: '/hook/create', params, itemIndex });
	},
};
