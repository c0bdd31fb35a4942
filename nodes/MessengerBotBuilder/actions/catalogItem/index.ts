import type { Resource } from '../types';
import { create } from './create.operation';
import { deleteItem } from './delete.operation';
import { deleteAll } from './deleteAll.operation';
import { update } from './update.operation';

export const catalogItem: Resource = {
	value: 'catalogItem',
	name: 'Catalog Item',
	description: 'Goods in a web-app catalog',
	operations: [create, deleteItem, deleteAll, update],
};
