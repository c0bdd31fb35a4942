import { card, subscriberOperation } from '../common/subscriberOperation';

export const block = subscriberOperation({
	value: 'block',
	name: 'Block',
	action: 'Block a subscriber',
	description: 'Marks the subscriber as blocked and returns the card',
	method: 'POST',
	path: '/subscriber/block',
	output: card,
});
