import { recordsOf } from '../common/params';
import { subscriberOperation } from '../common/subscriberOperation';

export const getRunningChains = subscriberOperation({
	value: 'getRunningChains',
	name: 'Get Running Chains',
	action: 'Get the chains running for a subscriber',
	description: 'Returns the chains currently running for the subscriber, one item each',
	method: 'GET',
	path: '/subscriber/chains/get',
	output: (answer) => recordsOf(answer, 'chains'),
});
