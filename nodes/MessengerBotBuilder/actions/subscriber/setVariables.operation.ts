import { NodeOperationError } from 'n8n-workflow';
import { chainField, variablesField } from '../common/fields';
import { pairs, text } from '../common/params';
import { choice, emptyWouldWiden } from '../common/emptyValues';
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
		{
			displayName: 'Write Into',
			name: 'scope',
			type: 'options',
			options: [
				{ name: 'Every Chain of the Bot', value: 'all' },
				{ name: 'One Chain', value: 'one' },
			],
			default: 'one',
			description: "Which of the subscriber's chains get the variables; every chain is an explicit choice",
		},
		chainField({
			displayName: 'Only Chain',
			description: 'Write into this chain only',
			displayOptions: { show: { scope: ['one'] } },
		}),
	],
	params(itemIndex) {
		const data = pairs.call(this, 'variables', itemIndex);
		if (!Object.keys(data).length) {
			throw new NodeOperationError(this.getNode(), 'The field "Variables" is empty: add at least one', { itemIndex });
		}
		if (choice.call(this, 'scope', ['one', 'all'], 'one', itemIndex) === 'all') return { data };
		const chaincode = text.call(this, 'chainCode', itemIndex);
		if (!chaincode)
			throw emptyWouldWiden.call(
				this,
				'Only Chain',
				{ all: 'every chain of the bot', instead: 'choose "Write Into: Every Chain of the Bot"' },
				itemIndex,
			);
		return { data, chaincode };
	},
});
