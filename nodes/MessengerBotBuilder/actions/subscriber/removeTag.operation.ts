import { text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const removeTag = subscriberOperation({
	value: 'removeTag',
	name: 'Remove Tag',
	action: 'Remove a tag from a subscriber',
	description: 'Removes one tag and returns the remaining { tags }',
	method: 'POST',
	path: '/subscriber/tag/remove',
	properties: [
		{
			displayName: 'Tag',
			name: 'tag',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. vip',
			description: 'The tag to remove from the subscriber',
		},
	],
	params(itemIndex) {
		return { tag: text.call(this, 'tag', itemIndex, true) };
	},
});
