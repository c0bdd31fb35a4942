import type { Operation } from '../types';
import { text } from '../common/params';
import { hookExtension } from './extension';

export const deleteWebhook: Operation = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a webhook',
	description: 'Removes a webhook by its ID, where the service offers deleting',
	properties: [{ displayName: 'Webhook ID', name: 'hookId', type: 'string', default: '', required: true }],
	async execute(itemIndex) {
		const params = { id: text.call(this, 'hookId', itemIndex, true) };
		return await hookExtension.call(this, { method: 'POST', path: '/hook/delete', params, itemIndex });
	},
};
