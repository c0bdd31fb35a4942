import type { Resource } from '../types';
import { clear } from './clear.operation';
import { create } from './create.operation';
import { getMany } from './getMany.operation';

export const list: Resource = {
	value: 'list',
	name: 'List',
	description: 'Lists: tables that bots use as a database',
	operations: [clear, create, getMany],
};
