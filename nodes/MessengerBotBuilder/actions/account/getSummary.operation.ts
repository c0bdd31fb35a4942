import type { Operation } from '../types';
import { apiRequest } from '../../transport/request';

export const getSummary: Operation = {
	value: 'getSummary',
	name: 'Get Summary',
	action: 'Get a summary of bots, projects, chains and lists',
	description: 'Returns { bots, groups, chains, lists }: everything the account has, in one call',
	properties: [],
	async execute() {
		return await apiRequest.call(this, { method: 'GET', path: '/account/summary' });
	},
};
