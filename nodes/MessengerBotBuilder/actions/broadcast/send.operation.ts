import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Operation } from '../types';
import { botFilterField, buttonsField, messageTextField } from '../common/fields';
import { buttons, locatorValue, text } from '../common/params';
import { assertAddedFiltersGiven, choice, emptyWouldWiden, yesNoOption } from '../common/emptyValues';
import { requestBesides } from '../common/recipient';
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
			displayName: 'Send To',
			name: 'audience',
			type: 'options',
			options: [
				{
					name: 'A Segment',
					value: 'segment',
					description: 'Subscribers of a bot, with tags, or who started a dialog (set below)',
				},
				{ name: 'Everyone', value: 'everyone', description: 'Every subscriber of every bot the key may reach' },
			],
			default: 'segment',
			description:
				'Who gets the message: the segment set under Segment and Options, or (chosen explicitly) every subscriber',
		},
		{
			displayName: 'Segment and Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			description: 'Who gets the broadcast (bot, tags, dialog) and its name',
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
		const everyone = choice.call(this, 'audience', ['segment', 'everyone'], 'segment', itemIndex) === 'everyone';
		const botid = locatorValue(options.botid);
		const tags = String(options.tags ?? '')
			.split(',')
			.map((tag) => tag.trim())
			.filter(Boolean);
		const dialog = yesNoOption.call(this, options.dialog, 'Only Who Started a Dialog', itemIndex) === true;
		if (everyone && (botid || tags.length)) {
			throw new NodeOperationError(this.getNode(), 'Send To is "Everyone", but a Bot or Tags segment is set', {
				itemIndex,
				description: 'Choose "Send To: A Segment" to send to the segment, or remove the Bot and Tags options.',
			});
		}
		if (!everyone) {
			// A segment option that was added but came out empty must not silently drop out of the segment.
			const everyone = { all: 'every subscriber', instead: 'choose "Send To: Everyone"' };
			assertAddedFiltersGiven.call(this, options, { botid: 'Bot' }, everyone.all, itemIndex);
			// Tags are a comma-separated list: one of only commas and spaces is empty too.
			if ('tags' in options && !tags.length) throw emptyWouldWiden.call(this, 'Tags', everyone, itemIndex);
			if (!botid && !tags.length && !dialog) {
				throw new NodeOperationError(
					this.getNode(),
					'The segment is empty: add Bot, Tags or "Only Who Started a Dialog" under Segment and Options',
					{
						itemIndex,
						description:
							'Nothing was sent. Without a segment the broadcast would go to every subscriber: choose "Send To: Everyone" if that is meant.',
					},
				);
			}
		}
		const params: IDataObject = {
			text: text.call(this, 'text', itemIndex, true),
			buttons: buttons.call(this, itemIndex),
			botid,
			name: options.name,
			tag: tags.length ? tags : undefined,
			dialog: dialog ? true : undefined,
		};
		const answer = await apiRequest.call(this, {
			method: 'POST',
			path: '/broadcast/send',
			params,
			check: 'Look for the broadcast among the queued messages (Broadcast → Stop needs its code)',
			itemIndex,
		});
		// To whom (the segment as sent, or everyone) and what: an item that ran many times shows each broadcast it planned.
		const segment = ['botid', 'tag', 'dialog'] as const;
		const audience = everyone ? { everyone: true } : requestBesides(params, ['text', 'buttons', 'name']);
		return { ...answer, audience, request: requestBesides(params, segment) };
	},
};
