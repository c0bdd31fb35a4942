import type { Operation } from '../types';
import { apiRequest } from '../../transport/request';

export const getBalance: Operation = {
	value: 'getBalance',
	name: 'Get Balance',
	action: 'Get the account balance',
	description: 'Returns the balance of the account as { balance }',
	properties: [],
	async execute() {
		return await apiRequest.call(this, { method: 'GET', path: '/account/balance/get' });
	},
};
