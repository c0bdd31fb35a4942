import { NodeOperationError } from 'n8n-workflow';
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
		const tag = text.call(this, 'tag', itemIndex, true);
		// The service removes one tag a call: "vip, newsletter" would be looked for as one tag, found nowhere, and nothing removed.
		if (tag.includes(',')) {
			throw new NodeOperationError(
				this.getNode(),
				`The field "Tag" holds several tags ("${tag}"): Remove Tag removes one`,
				{
					itemIndex,
					description:
						'Give one tag per item (split the list into items first, e.g. with Split Out), or use one Remove Tag node per tag.',
				},
			);
		}
		return { tag };
	},
});
