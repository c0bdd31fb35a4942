import type { IDataObject } from 'n8n-workflow';
import type { Operation } from '../types';
import { botFilterField, buttonsField, messageTextField } from '../common/fields';
import { buttons, locatorValue, text } from '../common/params';
import { apiRequest } from '../../transport/request';

export const send: Operation = {
	value: 'send',
	name: 'Send',
	action: 'Send a broadcast to a segment of subscribers',
	description:
		'Plans one message to every subscriber of a segment (bot, tags, dialog); the service queues the sends. Returns the broadcast code.',
	properties: [
		messageTextField,
		buttonsField,
		{
			displayName: 'Segment and Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			options: [
				botFilterField('Only subscribers of this bot'),
				{
					displayName: 'Broadcast Name',
					name: 'name',
					type: 'string',
					default: '',
					description: 'A name to recognise the broadcast by',
				},
				{
					displayName: 'Only Who Started a Dialog',
					name: 'dialog',
					type: 'boolean',
					default: false,
					description: 'Whether to send only to subscribers who wrote to the bot',
				},
				{
					displayName: 'Tags',
					name: 'tags',
					type: 'string',
					default: '',
					placeholder: 'e.g. vip, newsletter',
					description: 'Only subscribers with any of these tags (comma-separated)',
				},
			],
		},
	],
	async execute(itemIndex) {
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		const tags = String(options.tags ?? '')
			.split(',')
			.map((tag) => tag.trim())
			.filter(Boolean);
		const params: IDataObject = {
			text: text.call(this, 'text', itemIndex, true),
			buttons: buttons.call(this, itemIndex),
			botid: locatorValue(options.botid),
			name: options.name,
			tag: tags.length ? tags : undefined,
			dialog: options.dialog === true ? true : undefined,
		};
		return await apiRequest.call(this, { method: 'POST', path: '/broadcast/send', params, itemIndex });
	},
};
