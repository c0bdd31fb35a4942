import type { Operation } from '../types';
import { webAppField, webAppOf } from '../common/catalog';
import { apiRequest } from '../../transport/request';

export const getDownloadLink: Operation = {
	value: 'getDownloadLink',
	name: 'Get Download Link',
	action: 'Get a download link for a catalog file',
	description: 'Returns { link, notice }: a link to the catalog file, valid for 2 minutes',
	properties: [webAppField],
	async execute(itemIndex) {
		const params = { webappid: webAppOf(this, itemIndex) };
		return await apiRequest.call(this, { method: 'GET', path: '/catalog/get', params, itemIndex });
	},
};
