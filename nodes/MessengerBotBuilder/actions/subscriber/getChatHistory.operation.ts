import type { Operation } from '../types';
import { botField, clientIdFields, pagingFields } from '../common/fields';
import { paging, subscriberKey } from '../common/params';
import { fetchPages } from '../../transport/pagination';
import { outputFields, shapeRecords, SIMPLIFIED } from '../common/output';

export const getChatHistory: Operation = {
	value: 'getChatHistory',
	name: 'Get Chat History',
	action: 'Get the chat history of a subscriber',
	description: 'Returns the messages exchanged with the subscriber, newest first, one item each',
	properties: [botField(), ...clientIdFields(), ...pagingFields, ...outputFields(SIMPLIFIED.chatMessage)],
	async execute(itemIndex) {
		const params = subscriberKey.call(this, itemIndex);
		const records = await fetchPages.call(
			this,
			{ method: 'GET', path: '/subscriber/chat/get', params, itemIndex },
			paging.call(this, itemIndex),
		);
		return shapeRecords.call(this, itemIndex, records, SIMPLIFIED.chatMessage);
	},
};
