import { chainField } from '../common/fields';
import { text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const getVariables = subscriberOperation({
	value: 'getVariables',
	name: 'Get Variables',
	action: 'Get the variables of a subscriber',
	description: 'Returns { chains }: the variables of the subscriber grouped by chain',
	method: 'GET',
	path: '/subscriber/data/get',
	properties: [
		chainField({
			displayName: 'Only Chain',
			required: false,
			description: 'Read the variables of this chain only; leave empty for all chains',
		}),
	],
	params(itemIndex) {
		return { chaincode: text.call(this, 'chainCode', itemIndex) };
	},
});
