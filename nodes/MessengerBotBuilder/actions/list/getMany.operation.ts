import type { Operation } from '../types';
import { projectField } from '../common/fields';
import { recordsOf, text } from '../common/params';
import { apiRequest } from '../../transport/request';

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many lists',
	description: 'Returns every list (ID, name, columns, row count), one item each; optionally of one project',
	properties: [
		projectField({
			displayName: 'Only Project',
			required: false,
			description: 'Only the lists of this project; leave empty for all',
		}),
	],
	async execute(itemIndex) {
		const params = { group: text.call(this, 'group', itemIndex) };
		return recordsOf(await apiRequest.call(this, { method: 'GET', path: '/list/all', params, itemIndex }), 'lists');
	},
};
