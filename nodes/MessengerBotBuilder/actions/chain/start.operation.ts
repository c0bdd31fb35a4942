import { chainField, variablesField } from '../common/fields';
import { pairs, text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const start = subscriberOperation({
	value: 'start',
	name: 'Start',
	action: 'Start a chain for a subscriber',
	description: 'Runs a chain from its first step; the variables given are visible to the scenario by their names',
	method: 'POST',
	path: '/chain/start',
	properties: [chainField(), variablesField()],
	params(itemIndex) {
		const data = pairs.call(this, 'variables', itemIndex);
		return {
			chaincode: text.call(this, 'chainCode', itemIndex, true),
			data: Object.keys(data).length ? data : undefined,
		};
	},
});
