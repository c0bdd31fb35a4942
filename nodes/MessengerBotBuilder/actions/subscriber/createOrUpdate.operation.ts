import { fieldsToChange } from '../common/emptyValues';
import { messengerFields } from '../common/fields';
import { locatorValue } from '../common/params';
import { card, subscriberOperation } from '../common/subscriberOperation';

export const cardFields = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string' as const,
		default: '',
		description: 'The name of the subscriber',
	},
	{
		displayName: 'Nickname',
		name: 'username',
		type: 'string' as const,
		default: '',
		description: 'The username in the messenger',
	},
	{
		displayName: 'Note',
		name: 'note',
		type: 'string' as const,
		default: '',
		description: 'A note about the subscriber, visible to the account',
	},
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
			description: 'Fields of the card to set; fields not added here are left as they are',
			options: [...cardFields, ...messengerFields({ description: "The bot's messenger; checked when given" })],
		},
	],
	params(itemIndex) {
		const fields = fieldsToChange.call(
			this,
			'additionalFields',
			itemIndex,
			cardFields.map((field) => field.name),
		);
		return { ...fields, messenger: locatorValue(fields.messenger) };
	},
	output: (answer) => ({ ...card(answer), created: answer.created }),
});
