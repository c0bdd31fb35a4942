import { messengerFields } from '../common/fields';
import { text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const deleteSubscriber = subscriberOperation({
	value: 'delete',
	name: 'Delete',
	action: 'Delete a subscriber',
	description: 'Removes the subscriber from the database, with its chat and running chains',
	method: 'POST',
	path: '/subscriber/delete',
	properties: messengerFields({ required: true, description: 'The messenger of the subscriber (required to delete)' }),
	params(itemIndex) {
		return { messenger: text.call(this, 'messenger', itemIndex, true) };
	},
	output: (answer) => ({ deleted: true, ...answer }),
});
