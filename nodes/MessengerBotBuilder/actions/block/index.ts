import type { Resource } from '../types';
import { start } from './start.operation';

export const block: Resource = {
	value: 'block',
	name: 'Block',
	description: 'Blocks (messages) inside the steps of a chain',
	operations: [start],
};
