import type { Operation } from '../types';
import { text } from '../common/params';
import { fieldLabel } from '../common/labels';
import { apiRequest } from '../../transport/request';
import { hookExtension } from './extension';

const PATH = '/hook/delete';

export const deleteWebhook: Operation = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete a webhook',
	description: 'Removes a webhook by its ID, where the service offers deleting',
	properties: [
		{
			displayName: 'Webhook ID',
			name: 'hookId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. hook_1a2b3c',
			description: 'The ID of the webhook (from Webhook → Create or Get Many)',
		},
	],
	async execute(itemIndex) {
		const params = { id: text.call(this, 'hookId', itemIndex, true) };
		await hookExtension.call(
			this,
			PATH,
			itemIndex,
			async () =>
				await apiRequest.call(this, {
					method: 'POST',
					path: PATH,
					params,
					itemIndex,
					fields: { id: fieldLabel.call(this, 'hookId') },
				}),
		);
		return { deleted: true, id: params.id };
	},
};
