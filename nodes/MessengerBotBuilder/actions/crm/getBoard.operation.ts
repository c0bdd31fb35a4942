import type { Operation } from '../types';
import { apiRequest } from '../../transport/request';

export const getBoard: Operation = {
	value: 'getBoard',
	name: 'Get Board',
	action: 'Get the CRM board',
	description: 'Returns how subscribers are distributed across the funnel stages',
	properties: [],
	async execute(itemIndex) {
		return await apiRequest.call(this, { method: 'GET', path: '/crm/board', itemIndex });
	},
};
