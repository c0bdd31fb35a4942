import { chainField, variablesField } from '../common/fields';
import { pairs, text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const start = subscriberOperation({
	value: 'start',
	name: 'Start',
	action: 'Start a block of a chain for a subscriber',
	description: 'Runs a chain from a given step and block instead of from its beginning',
	method: 'POST',
	path: '/block/start',
	properties: [
		chainField(),
		{
			displayName: 'Step Code',
			name: 'stepCode',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 2',
			description: 'Code of the step in the chain',
		},
		{
			displayName: 'Block',
			name: 'block',
			type: 'string',
			default: '',
			placeholder: 'e.g. 1',
			description: 'Number of the block within the step (from 1) or the block ID; the first block when empty',
		},
		variablesField(),
	],
	params(itemIndex) {
		const data = pairs.call(this, 'variables', itemIndex);
		return {
			chaincode: text.call(this, 'chainCode', itemIndex, true),
			stepcode: text.call(this, 'stepCode', itemIndex, true),
			block: text.call(this, 'block', itemIndex),
			data: Object.keys(data).length ? data : undefined,
		};
	},
});
