import type { Resource } from '../types';
import { get } from './get.operation';

export const statistics: Resource = {
	value: 'statistics',
	name: 'Statistics',
	description: 'Subscribers and messages by day',
	operations: [get],
};
