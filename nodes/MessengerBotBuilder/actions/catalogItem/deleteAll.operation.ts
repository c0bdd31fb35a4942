import type { Operation } from '../types';
import { webAppField, webAppOf } from '../common/catalog';
import { apiRequest } from '../../transport/request';

export const deleteAll: Operation = {
	value: 'deleteAll',
	name: 'Delete All',
	action: 'Delete every item of a catalog',
	description: 'Deletes all items of a web app; the web app itself stays',
	properties: [webAppField],
	async execute(itemIndex) {
		const params = { webappid: webAppOf(this, itemIndex) };
		return await apiRequest.call(this, { method: 'POST', path: '/catalog/items/delete', params, itemIndex });
	},
};
