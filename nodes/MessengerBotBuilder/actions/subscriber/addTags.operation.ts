import { NodeOperationError } from 'n8n-workflow';
import { stringList } from '../common/params';
import { fieldLabel } from '../common/labels';
import { subscriberOperation } from '../common/subscriberOperation';

export const addTags = subscriberOperation({
	value: 'addTags',
	name: 'Add Tags',
	action: 'Add tags to a subscriber',
	description: 'Adds one or more tags; chains triggered by a tag start by themselves ("chains" in the answer)',
	method: 'POST',
	path: '/subscriber/tag/add',
	properties: [
		{
			displayName: 'Tags',
			name: 'tags',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. vip, newsletter',
			description: 'Tags separated by commas, or an array from an expression',
		},
	],
	params(itemIndex) {
		const tags = stringList.call(this, 'tags', itemIndex);
		if (!tags.length)
			throw new NodeOperationError(this.getNode(), `The field "${fieldLabel.call(this, 'tags')}" is empty`, {
				itemIndex,
			});
		return { tag: tags };
	},
});
