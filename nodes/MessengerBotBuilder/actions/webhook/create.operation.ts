import type { Operation } from '../types';
import { text } from '../common/params';
import { apiRequest } from '../../transport/request';
import { guardSecret, revealSecretField } from '../common/secrets';
import { NodeOperationError } from 'n8n-workflow';
import { EVENT_KIND_OPTIONS } from '../../../shared/delivery/eventKinds';

export const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a webhook',
	description:
		'Subscribes a URL to events. The service shows the signing secret only once; it is output only when asked for.',
	properties: [
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. CRM sync',
			description: 'A name for the webhook, to tell it apart from others',
		},
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
			options: EVENT_KIND_OPTIONS,
			default: ['subscriber.new'],
			required: true,
			description: 'The events the service sends to the URL',
			hint: 'The Messenger Bot Builder Trigger node manages its webhooks and secrets by itself',
		},
		revealSecretField('Signing Secret'),
	],
	async execute(itemIndex) {
		const events = this.getNodeParameter('events', itemIndex, []) as string[];
		if (!events.length)
			throw new NodeOperationError(this.getNode(), 'The field "Events" is empty: choose at least one event', {
				itemIndex,
			});
		const params = {
			name: text.call(this, 'name', itemIndex, true),
			url: text.call(this, 'url', itemIndex, true),
			events,
		};
		const created = await apiRequest.call(this, { method: 'POST', path: '/hook/create', params, itemIndex });
		guardSecret.call(this, created, 'secret', itemIndex);
		return created;
	},
};
