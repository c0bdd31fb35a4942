import type { Operation } from '../types';
import { listField } from '../common/fields';
import { apiRequest } from '../../transport/request';
import { listIdOf } from '../common/listColumns';

export const clear: Operation = {
	value: 'clear',
	name: 'Clear',
	action: 'Delete every row of a list',
	description: 'Removes all rows; the list and its columns stay',
	properties: [listField()],
	async execute(itemIndex) {
		// The method takes the list's number only: a name is looked up first.
		const params = { listid: await listIdOf.call(this, itemIndex) };
		return await apiRequest.call(this, { method: 'POST', path: '/list/clear', params, itemIndex });
	},
};
