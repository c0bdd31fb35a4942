import { fieldsToChange } from '../common/emptyValues';
import { card, subscriberOperation } from '../common/subscriberOperation';
import { cardFields } from './createOrUpdate.operation';

export const update = subscriberOperation({
	value: 'update',
	name: 'Update',
	action: 'Update a subscriber',
	description: "Changes the name, nickname or note of an existing subscriber's card",
	method: 'POST',
	path: '/subscriber/update',
	properties: [
		{
			displayName: 'Update Fields',
			name: 'updateFields',
			type: 'collection',
			placeholder: 'Add Field',
			default: {},
			description: 'Fields of the card to change; fields not added here are left as they are',
			options: cardFields,
		},
	],
	params(itemIndex) {
		return fieldsToChange.call(this, 'updateFields', itemIndex);
	},
	output: card,
});
