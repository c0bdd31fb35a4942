import { chainField } from '../common/fields';
import { text } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const stop = subscriberOperation({
	value: 'stop',
	name: 'Stop',
	action: 'Stop chains of a subscriber',
	description: 'Stops one chain, or every chain running for the subscriber; "stopped" counts them',
	method: 'POST',
	path: '/chain/stop',
	properties: [
		{
			displayName: 'Stop',
			name: 'scope',
			type: 'options',
			options: [
				{ name: 'One Chain', value: 'one' },
				{ name: 'All Chains', value: 'all' },
			],
			default: 'one',
		},
		chainField({ displayOptions: { show: { scope: ['one'] } } }),
	],
	params(itemIndex) {
		const one = this.getNodeParameter('scope', itemIndex) === 'one';
		return { chaincode: one ? text.call(this, 'chainCode', itemIndex, true) : '' };
	},
});
