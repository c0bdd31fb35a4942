import type { Resource } from '../types';
import { add } from './add.operation';
import { deleteRows } from './delete.operation';
import { find } from './find.operation';
import { getMany } from './getMany.operation';
import { update } from './update.operation';

export const listRow: Resource = {
	value: 'listRow',
	name: 'List Row',
	description: 'Rows of a list',
	operations: [add, deleteRows, find, getMany, update],
};
