import type { Operation } from '../types';
import { recordsOf } from '../common/params';
import { apiRequest } from '../../transport/request';

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many projects',
	description: 'Returns every project (group of bots) of the account, one item per project, with its code',
	properties: [],
	async execute() {
		const answer = await apiRequest.call(this, { method: 'GET', path: '/group/list' });
		return recordsOf(answer, 'groups');
	},
};
