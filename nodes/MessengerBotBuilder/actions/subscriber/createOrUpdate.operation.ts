import type { IDataObject } from 'n8n-workflow';
import { messengerField } from '../common/fields';
import { card, subscriberOperation } from '../common/subscriberOperation';

export const cardFields = [
	{ displayName: 'Name', name: 'name', type: 'string' as const, default: '' },
	{ displayName: 'Nickname', name: 'username', type: 'string' as const, default: '', description: 'The username in the messenger' },
	{ displayName: 'Note', name: 'note', type: 'string' as const, default: '' },
];

export const createOrUpdate = subscriberOperation({
	value: 'createOrUpdate',
	name: 'Create or Update',
	action: 'Create or update a subscriber',
	description: 'Creates the subscriber card, or updates its fields when it exists; "created" tells which happened',
	method: 'POST',
	path: '/subscriber/create',
	properties: [
		{
			displayName: 'Additional Fields',
			name: 'additionalFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			options: [...cardFields, messengerField({ description: "The bot's messenger; checked when given" })],
		},
	],
	params(itemIndex) {
		return this.getNodeParameter('additionalFields', itemIndex, {}) as IDataObject;
	},
	output: (answer) => ({ ...card(answer), created: answer.created }),
});
