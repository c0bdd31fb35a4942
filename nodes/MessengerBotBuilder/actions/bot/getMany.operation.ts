import type { Operation } from '../types';
import { listBots } from '../common/bots';

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many bots',
	description: 'Returns every bot of the account (one item per bot) with its BotID',
	properties: [],
	async execute() {
		return await listBots.call(this);
	},
};
