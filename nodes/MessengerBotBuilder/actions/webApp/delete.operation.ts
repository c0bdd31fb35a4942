import type { Operation } from '../types';
import { text } from '../common/params';
import { fieldLabel } from '../common/labels';
import { webAppField } from '../common/catalog';
import { apiRequest } from '../../transport/request';

export const deleteWebApp: Operation = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a web app',
	description: 'Deletes a catalog application with its items',
	properties: [{ ...webAppField, description: 'Identifier of the application to delete' }],
	async execute(itemIndex) {
		const params = { id: text.call(this, 'webAppId', itemIndex, true) };
		const answer = await apiRequest.call(this, {
			method: 'POST',
			path: '/webapp/delete',
			params,
			itemIndex,
			fields: { id: fieldLabel.call(this, 'webAppId') },
		});
		return { deleted: true, id: params.id, result: answer.result };
	},
};
