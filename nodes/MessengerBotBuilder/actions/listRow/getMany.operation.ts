import type { Operation } from '../types';
import { listField, pagingFields } from '../common/fields';
import { listRef, paging } from '../common/params';
import { fetchPages } from '../../transport/pagination';
import { outputFields, shapeRecords, SIMPLIFIED } from '../common/output';

export const sortField = {
	displayName: 'Sort',
	name: 'sort',
	type: 'options' as const,
	options: [
		{ name: 'Oldest First', value: 'old' },
		{ name: 'Newest First', value: 'new' },
	],
	default: 'old',
	description: 'Order of the rows by when they were added',
};

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many rows of a list',
	description: 'Returns the rows of a list (ID, values, row by column name, created), one item each',
	properties: [listField(), ...pagingFields, sortField, ...outputFields(SIMPLIFIED.listRow)],
	async execute(itemIndex) {
		const params = { ...listRef.call(this, itemIndex), sort: this.getNodeParameter('sort', itemIndex, 'old') };
		const records = await fetchPages.call(
			this,
			{ method: 'GET', path: '/list/rows/get', params, itemIndex },
			paging.call(this, itemIndex),
		);
		return shapeRecords.call(this, itemIndex, records, SIMPLIFIED.listRow);
	},
};
