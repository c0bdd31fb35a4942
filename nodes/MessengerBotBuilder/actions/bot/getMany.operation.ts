import type { Operation } from '../types';
import { recordsOf } from '../common/params';
import { apiRequest } from '../../transport/request';

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many bots',
	description: 'Returns every bot of the account (one item per bot) with its BotID',
	properties: [],
	async execute() {
		const answer = await apiRequest.call(this, { method: 'POST', path: '/bot/list', readOnly: true });
		return recordsOf(answer, 'bots');
	},
};
