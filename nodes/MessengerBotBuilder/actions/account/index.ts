import type { Resource } from '../types';
import { get } from './get.operation';
import { getApiLog } from './getApiLog.operation';
import { getBalance } from './getBalance.operation';
import { getSummary } from './getSummary.operation';

export const account: Resource = {
	value: 'account',
	name: 'Account',
	description: 'Balance, tariff, usage, summary and the log of API calls',
	operations: [get, getApiLog, getBalance, getSummary],
};
