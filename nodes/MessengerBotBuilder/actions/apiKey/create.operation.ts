import type { Operation } from '../types';
import { stringList, text } from '../common/params';
import { apiRequest } from '../../transport/request';
import { guardSecret, revealSecretField } from '../common/secrets';
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

const AREAS = [
	'account', 'bots', 'subscribers', 'messages', 'chains', 'broadcasts', 'lists',
	'catalog', 'crm', 'stats', 'log', 'hooks', 'keys',
];

const SCOPES = AREAS.flatMap((area) => [`${area}:read`, `${area}:write`]).map((scope) => ({ name: scope, value: scope }));

export const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create an API key with restricted rights',
	description:
		'Makes a key limited to some scopes, bots and days. The service shows the new key only once; it is output only when asked for.',
	properties: [
		{ displayName: 'Name', name: 'name', type: 'string', default: '', required: true, placeholder: 'e.g. Reporting' },
		{
			displayName: 'Scopes',
			name: 'scopes',
			type: 'multiOptions',
			options: SCOPES,
			default: [],
			required: true,
			description: 'What the key may do. A key cannot grant scopes that the creating key lacks.',
		},
		{
			displayName: 'Bot Names or IDs',
			name: 'bots',
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getBots' },
			default: [],
			description:
				'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
			hint: 'The key may touch only these bots; choose none for all bots',
		},
		{
			displayName: 'Days Valid',
			name: 'days',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 30,
			description: 'The key stops working by itself after this many days',
		},
		revealSecretField('Key'),
	],
	async execute(itemIndex) {
		const scopes = this.getNodeParameter('scopes', itemIndex, []) as string[];
		if (!scopes.length) throw new NodeOperationError(this.getNode(), 'The parameter "scopes" is empty', { itemIndex });
		const bots = stringList.call(this, 'bots', itemIndex);
		const params = {
			name: text.call(this, 'name', itemIndex, true),
			scopes,
			bots: bots.length ? bots : undefined,
			days: this.getNodeParameter('days', itemIndex, 30) as number,
		};
		const created = await apiRequest.call(this, { method: 'POST', path: '/key/create', params, itemIndex });
		guardSecret.call(this, created.key as IDataObject | undefined, 'key', itemIndex);
		return created;
	},
};
