import type { Operation } from '../types';
import { projectField } from '../common/fields';
import { stringList, text } from '../common/params';
import { fieldLabel } from '../common/labels';
import { apiRequest } from '../../transport/request';
import { NodeOperationError } from 'n8n-workflow';

export const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create a list',
	description: 'Creates a list with the given columns. Fails with code list_exists when the name is taken.',
	properties: [
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. Orders',
			description: 'Name of the new list; no other list may have it',
		},
		{
			displayName: 'Columns',
			name: 'headers',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. CreationDate, ClientID, Name, Phone',
			description:
				'Column names in order, separated by commas (or an array from an expression). Columns named CreationDate, ClientID, Messenger and BotID are filled by the service.',
		},
		projectField({
			displayName: 'Project',
			required: false,
			description: 'The project the list belongs to (optional)',
		}),
	],
	async execute(itemIndex) {
		const headers = stringList.call(this, 'headers', itemIndex);
		if (!headers.length)
			throw new NodeOperationError(
				this.getNode(),
				`The field "${fieldLabel.call(this, 'headers')}" is empty: give at least one column`,
				{ itemIndex },
			);
		const params = {
			name: text.call(this, 'name', itemIndex, true),
			headers,
			group: text.call(this, 'group', itemIndex),
		};
		const answer = await apiRequest.call(this, { method: 'POST', path: '/list/create', params, itemIndex });
		return (answer.list as typeof answer) ?? answer;
	},
};
