import type { IDataObject } from 'n8n-workflow';
import type { Operation } from '../types';
import { botField, clientIdFields, messengerFields } from '../common/fields';
import { text } from '../common/params';
import { card } from '../common/subscriberOperation';
import { outputFields, shapeRecords, SIMPLIFIED } from '../common/output';
import { apiRequest } from '../../transport/request';

const byClient = { show: { lookup: ['byClient'] } };

export const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get a subscriber',
	description: "Returns a subscriber's card: by bot and client ID, or by the card's internal number",
	properties: [
		{
			displayName: 'Find By',
			name: 'lookup',
			type: 'options',
			options: [
				{ name: 'Bot and Client ID', value: 'byClient' },
				{ name: 'Card Number', value: 'byNumber', description: 'The internal number of the subscriber card' },
			],
			default: 'byClient',
			description: 'How the subscriber is given: by bot and client ID, or by the number of its card',
		},
		botField({ displayOptions: byClient }),
		...clientIdFields({ displayOptions: byClient }),
		...messengerFields({ displayOptions: byClient }),
		{
			displayName: 'Card Number',
			name: 'subscriber',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 17',
			description: 'Internal number of the subscriber card',
			displayOptions: { show: { lookup: ['byNumber'] } },
		},
		...outputFields(SIMPLIFIED.subscriber),
	],
	async execute(itemIndex) {
		const lookup = this.getNodeParameter('lookup', itemIndex) as string;
		const params: IDataObject =
			lookup === 'byNumber'
				? { subscriber: text.call(this, 'subscriber', itemIndex, true) }
				: {
						botid: text.call(this, 'botId', itemIndex, true),
						clientid: text.call(this, 'clientId', itemIndex, true),
						messenger: text.call(this, 'messenger', itemIndex),
					};
		const found = card(await apiRequest.call(this, { method: 'GET', path: '/subscriber/get', params, itemIndex }));
		return shapeRecords.call(this, itemIndex, [found], SIMPLIFIED.subscriber)[0];
	},
};
