import type { Operation } from '../types';
import { stringList, text } from '../common/params';
import { choice, emptyWouldWiden } from '../common/emptyValues';
import { apiRequest } from '../../transport/request';
import { guardSecret, revealSecretField } from '../common/secrets';
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

const AREAS = [
	'account',
	'bots',
	'subscribers',
	'messages',
	'chains',
	'broadcasts',
	'lists',
	'catalog',
	'crm',
	'stats',
	'log',
	'hooks',
	'keys',
];

const SCOPES = AREAS.flatMap((area) => [`${area}:read`, `${area}:write`])
	.sort()
	.map((scope) => ({ name: scope, value: scope }));

export const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create an API key with restricted rights',
	description:
		'Makes a key limited to some scopes, bots and days. The service shows the new key only once; it is output only when asked for.',
	properties: [
		{
			displayName: 'Name',
			name: 'name',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. Reporting',
			description: 'A name for the key, to tell it apart from others',
		},
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
			displayName: 'Bots',
			name: 'botAccess',
			type: 'options',
			options: [
				{ name: 'All Bots', value: 'all', description: 'The key may touch every bot of the account' },
				{ name: 'Only These Bots', value: 'some' },
			],
			default: 'some',
			description: 'Which bots the key may touch; a key for every bot is an explicit choice',
		},
		{
			displayName: 'Bot Names or IDs',
			name: 'bots',
			displayOptions: { show: { botAccess: ['some'] } },
			type: 'multiOptions',
			typeOptions: { loadOptionsMethod: 'getBots' },
			default: [],
			description:
				'Choose from the list, or specify IDs using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
			hint: 'The key may touch only these bots',
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
		if (!scopes.length)
			throw new NodeOperationError(this.getNode(), 'The field "Scopes" is empty: choose at least one scope', {
				itemIndex,
			});
		const bots = stringList.call(this, 'bots', itemIndex);
		const allBots = choice.call(this, 'botAccess', ['some', 'all'], 'some', itemIndex) === 'all';
		if (!allBots && !bots.length) {
			throw emptyWouldWiden.call(
				this,
				'Bot Names or IDs',
				{ all: 'a key for all bots', instead: 'choose "Bots: All Bots"' },
				itemIndex,
			);
		}
		// Without days the service makes a key that never expires: an empty or invalid Days must not get there.
		const rawDays = this.getNodeParameter('days', itemIndex, 30) as unknown;
		const days = rawDays === '' || rawDays === null || rawDays === undefined ? NaN : Number(rawDays);
		if (!Number.isInteger(days) || days < 1) {
			throw new NodeOperationError(
				this.getNode(),
				`The field "Days" is not a whole number of days from 1 (got ${JSON.stringify(rawDays ?? null)})`,
				{
					itemIndex,
					description: 'Nothing was created: without a number of days the service would make a key that never expires.',
				},
			);
		}
		const params = {
			name: text.call(this, 'name', itemIndex, true),
			scopes,
			bots: allBots ? undefined : bots,
			days,
		};
		const created = await apiRequest.call(this, { method: 'POST', path: '/key/create', params, itemIndex });
		guardSecret.call(this, created.key as IDataObject | undefined, 'key', itemIndex);
		return created;
	},
};
