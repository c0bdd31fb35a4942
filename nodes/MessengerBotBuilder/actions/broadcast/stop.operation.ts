import type { Operation } from '../types';
import { text } from '../common/params';
import { apiRequest } from '../../transport/request';

export const stop: Operation = {
	value: 'stop',
	name: 'Stop',
	action: 'Stop a broadcast',
	description: 'Cancels the messages of a broadcast not sent yet; "cleared" counts them',
	properties: [
		{
			displayName: 'Broadcast Code',
			name: 'code',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. brd_4f1c2a9b7d3e',
			description: 'The code returned by Broadcast → Send (its "code" field)',
		},
	],
	async execute(itemIndex) {
		const params = { code: text.call(this, 'code', itemIndex, true) };
		return await apiRequest.call(this, { method: 'POST', path: '/broadcast/stop', params, itemIndex });
	},
};
