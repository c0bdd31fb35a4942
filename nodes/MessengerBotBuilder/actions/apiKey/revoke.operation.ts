import type { Operation } from '../types';
import { text } from '../common/params';
import { fieldLabel } from '../common/labels';
import { apiRequest } from '../../transport/request';

export const revoke: Operation = {
	value: 'revoke',
	name: 'Revoke',
	action: 'Revoke an API key',
	description: 'Stops a key from working, before its days run out',
	properties: [
		{
			displayName: 'Key ID',
			name: 'keyId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. key_1a2b3c',
			description: 'The ID of the key (from API Key → Create), not the key itself',
		},
	],
	async execute(itemIndex) {
		const params = { id: text.call(this, 'keyId', itemIndex, true) };
		return await apiRequest.call(this, {
			method: 'POST',
			path: '/key/revoke',
			params,
			itemIndex,
			fields: { id: fieldLabel.call(this, 'keyId') },
		});
	},
};
