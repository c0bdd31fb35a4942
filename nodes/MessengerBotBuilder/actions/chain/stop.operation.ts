import { chainField } from '../common/fields';
import { text } from '../common/params';
import { choice, emptyWouldWiden } from '../common/emptyValues';
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
			description: 'Whether to stop one chain or every chain running for the subscriber',
		},
		chainField({ displayOptions: { show: { scope: ['one'] } } }),
	],
	params(itemIndex) {
		if (choice.call(this, 'scope', ['one', 'all'], 'one', itemIndex) === 'all') return {};
		const chaincode = text.call(this, 'chainCode', itemIndex);
		if (!chaincode)
			throw emptyWouldWiden.call(
				this,
				'Chain',
				{ all: 'every chain', instead: 'choose "Stop: All Chains"' },
				itemIndex,
			);
		return { chaincode };
	},
});
