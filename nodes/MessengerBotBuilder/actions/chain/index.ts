import type { Resource } from '../types';
import { start } from './start.operation';
import { stop } from './stop.operation';

export const chain: Resource = {
	value: 'chain',
	name: 'Chain',
	description: 'Chains (automated message sequences) for one subscriber',
	operations: [start, stop],
};
