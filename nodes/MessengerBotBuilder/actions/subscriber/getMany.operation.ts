import type { IDataObject } from 'n8n-workflow';
import type { Operation } from '../types';
import { botFilterField, filtersField, messengerFields, pagingFields } from '../common/fields';
import { dayOf, locatorValue, paging } from '../common/params';
import { assertAddedFiltersGiven, emptyWouldWiden, yesNoOption } from '../common/emptyValues';
import { fetchPages } from '../../transport/pagination';
import { outputFields, shapeRecords, SIMPLIFIED } from '../common/output';

const yesNo = [
	{ name: 'Any', value: '' },
	{ name: 'Yes', value: 'true' },
	{ name: 'No', value: 'false' },
];

export const getMany: Operation = {
	value: 'getMany',
	name: 'Get Many',
	action: 'Get many subscribers',
	description: 'Lists subscribers, filtered by bot, messenger, tag, state or subscription date, one item each',
	properties: [
		...pagingFields,
		filtersField([
			{
				displayName: 'Active',
				name: 'active',
				type: 'options',
				options: yesNo,
				default: '',
				description: 'Whether the subscriber is still subscribed (has not left the bot)',
			},
			{
				displayName: 'Blocked',
				name: 'blocked',
				type: 'options',
				options: yesNo,
				default: '',
				description: 'Whether the account blocked the subscriber (the bot sends it nothing)',
			},
			botFilterField('Only subscribers of this bot'),
			...messengerFields({ description: 'Only subscribers in this messenger' }),
			{
				displayName: 'Started a Dialog',
				name: 'dialog',
				type: 'options',
				options: yesNo,
				default: '',
				description: 'Whether the subscriber wrote to the bot',
			},
			{
				displayName: 'Subscribed From',
				name: 'from',
				type: 'dateTime',
				default: '',
				description: 'Only subscribers who subscribed on or after this date',
			},
			{
				displayName: 'Subscribed To',
				name: 'to',
				type: 'dateTime',
				default: '',
				description: 'Only subscribers who subscribed on or before this date',
			},
			{ displayName: 'Tag', name: 'tag', type: 'string', default: '', description: 'Only subscribers with this tag' },
		]),
		{
			displayName: 'Sort',
			name: 'sort',
			type: 'options',
			options: [
				{ name: 'Oldest First', value: 'old' },
				{ name: 'Newest First', value: 'new' },
			],
			default: 'old',
			description: 'Order by subscription date',
		},
		...outputFields(SIMPLIFIED.subscriber),
	],
	async execute(itemIndex) {
		const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
		const textFilters = {
			botid: 'Bot',
			messenger: 'Messenger',
			tag: 'Tag',
			from: 'Subscribed From',
			to: 'Subscribed To',
		};
		assertAddedFiltersGiven.call(this, filters, textFilters, 'no filter (every subscriber)', itemIndex);
		const stored = (this.getNode().parameters.filters ?? {}) as IDataObject;
		for (const [name, label] of Object.entries({ active: 'Active', blocked: 'Blocked', dialog: 'Started a Dialog' })) {
			if (!(name in filters)) continue;
			// "Any" chosen in the list is '', but an expression that comes out empty would drop the condition unseen.
			const fromExpression = typeof stored[name] === 'string' && String(stored[name]).startsWith('=');
			const value = filters[name];
			if (fromExpression && (value === '' || value === null || value === undefined)) {
				throw emptyWouldWiden.call(
					this,
					label,
					{ all: 'no filter (every subscriber)', instead: 'choose "Any" or remove the filter' },
					itemIndex,
				);
			}
			if (value !== '') filters[name] = String(yesNoOption.call(this, value, label, itemIndex));
		}
		const params: IDataObject = {
			...filters,
			botid: locatorValue(filters.botid),
			messenger: locatorValue(filters.messenger),
			sort: this.getNodeParameter('sort', itemIndex, 'old'),
		};
		for (const bound of ['from', 'to'] as const)
			params[bound] = dayOf.call(this, filters[bound], textFilters[bound], itemIndex);
		const records = await fetchPages.call(
			this,
			{ method: 'GET', path: '/subscriber/list', params, itemIndex },
			paging.call(this, itemIndex),
		);
		return shapeRecords.call(this, itemIndex, records, SIMPLIFIED.subscriber);
	},
};
