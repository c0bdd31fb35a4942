import type { IDataObject } from 'n8n-workflow';
import type { Operation } from '../types';
import { botFilterField, pagingFields } from '../common/fields';
import { locatorValue, paging, text } from '../common/params';
import { assertAddedFiltersGiven } from '../common/emptyValues';
import { fetchPages } from '../../transport/pagination';
import { outputFields, shapeRecords, SIMPLIFIED } from '../common/output';

export const find: Operation = {
	value: 'find',
	name: 'Find',
	action: 'Find subscribers by name, nickname, code or note',
	description: 'Searches subscribers whose name, nickname, client ID, card number or note contains the text',
	properties: [
		{
			displayName: 'Search For',
			name: 'query',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. alice',
			description: 'Text to look for in the name, nickname, code or note',
		},
		...pagingFields,
		{
			displayName: 'Options',
			name: 'options',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			description: 'Narrow the search to one bot or one tag',
			options: [
				botFilterField('Search in this bot only'),
				{
					displayName: 'Tag',
					name: 'tag',
					type: 'string',
					default: '',
					description: 'Only subscribers that have exactly this tag',
				},
			],
		},
		...outputFields(SIMPLIFIED.subscriber),
	],
	async execute(itemIndex) {
		const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
		assertAddedFiltersGiven.call(
			this,
			options,
			{ botid: 'Bot', tag: 'Tag' },
			'no filter (every subscriber)',
			itemIndex,
		);
		const params = {
			query: text.call(this, 'query', itemIndex, true),
			botid: locatorValue(options.botid),
			tag: options.tag,
		};
		const records = await fetchPages.call(
			this,
			{ method: 'GET', path: '/subscriber/find', params, itemIndex },
			paging.call(this, itemIndex),
		);
		return shapeRecords.call(this, itemIndex, records, SIMPLIFIED.subscriber);
	},
};
