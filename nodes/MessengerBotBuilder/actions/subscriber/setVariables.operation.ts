import { NodeOperationError } from 'n8n-workflow';
import { chainField, variablesField } from '../common/fields';
import { pairs, text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const setVariables = subscriberOperation({
	value: 'setVariables',
	name: 'Set Variables',
	action: 'Set variables of a subscriber',
	description: "Writes variables into the subscriber's chains (all chains of the bot, or one)",
	method: 'POST',
	path: '/subscriber/data/set',
	properties: [
		variablesField({ required: true }),
		chainField({
			displayName: 'Only Chain',
			required: false,
			description: 'Write into this chain only; leave empty for every chain of the bot',
		}),
	],
	params(itemIndex) {
		const data = pairs.call(this, 'variables', itemIndex);
		if (!Object.keys(data).length) {
			throw new NodeOperationError(this.getNode(), 'The parameter "variables" is empty: add at least one', { itemIndex });
		}
		return { data, chaincode: text.call(this, 'chainCode', itemIndex) };
	},
});
