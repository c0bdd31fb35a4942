import { subscriberOperation } from '../common/subscriberOperation';

export const clearNext = subscriberOperation({
	value: 'clearNext',
	name: 'Clear Scheduled Next Message',
	action: 'Clear the scheduled next message of a subscriber',
	description: 'Cancels the deferred next message planned for the subscriber by a chain',
	method: 'POST',
	path: '/message/next/clear',
});
