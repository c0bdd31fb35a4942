import type { Operation } from '../types';
import { apiRequest } from '../../transport/request';

export const get: Operation = {
	value: 'get',
	name: 'Get',
	action: 'Get the account, its tariff and usage',
	description: 'Returns { account, tariff, used }: the account, its tariff and what it uses of the tariff',
	properties: [],
	async execute() {
		return await apiRequest.call(this, { method: 'GET', path: '/account/get' });
	},
};
