import { subscriberOperation } from '../common/subscriberOperation';

export const getTags = subscriberOperation({
	value: 'getTags',
	name: 'Get Tags',
	action: 'Get the tags of a subscriber',
	description: 'Returns { tags }: the tags of the subscriber',
	method: 'GET',
	path: '/subscriber/tag/list',
});
