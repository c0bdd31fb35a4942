import type { Operation } from '../types';
import { day } from '../common/params';
import { fieldLabel } from '../common/labels';
import { apiRequest } from '../../transport/request';
import { NodeOperationError } from 'n8n-workflow';

export const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get statistics for a date range',
	description: 'Returns new subscribers and sent messages by day between two dates (both included)',
	properties: [
		{ displayName: 'From', name: 'from', type: 'dateTime', default: '', required: true, description: 'First day' },
		{ displayName: 'To', name: 'to', type: 'dateTime', default: '', required: true, description: 'Last day' },
	],
	async execute(itemIndex) {
		const from = day.call(this, 'from', itemIndex);
		const to = day.call(this, 'to', itemIndex);
		if (!from || !to) {
			throw new NodeOperationError(
				this.getNode(),
				`The field "${fieldLabel.call(this, from ? 'to' : 'from')}" is empty: give both dates or neither`,
				{ itemIndex },
			);
		}
		return await apiRequest.call(this, { method: 'GET', path: '/stat/get', params: { from, to }, itemIndex });
	},
};
