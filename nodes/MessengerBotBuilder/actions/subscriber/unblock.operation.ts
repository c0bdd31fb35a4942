import { card, subscriberOperation } from '../common/subscriberOperation';

export const unblock = subscriberOperation({
	value: 'unblock',
	name: 'Unblock',
	action: 'Unblock a subscriber',
	description: 'Lifts the block of the subscriber and returns the card',
	method: 'POST',
	path: '/subscriber/unblock',
	output: card,
});
