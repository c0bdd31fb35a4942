import type { Resource } from '../types';
import { getMany } from './getMany.operation';

export const project: Resource = {
	value: 'project',
	name: 'Project',
	description: 'Projects group bots; lists can belong to a project',
	operations: [getMany],
};
