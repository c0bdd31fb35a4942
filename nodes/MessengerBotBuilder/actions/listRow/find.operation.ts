import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Operation } from '../types';
import { listField, pagingFields } from '../common/fields';
import { listRef, paging } from '../common/params';
import { emptyWouldWiden } from '../common/emptyValues';
import { fetchPages } from '../../transport/pagination';
import { outputFields, shapeRecords, SIMPLIFIED } from '../common/output';

export const find: Operation = {
	value: 'find',
	name: 'Find',
	action: 'Find rows of a list by column values',
	description: 'Returns the rows whose columns match every condition (exact or substring), one item each',
	properties: [
		listField(),
		{
			displayName: 'Conditions',
			name: 'conditions',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true },
			placeholder: 'Add Condition',
			default: {},
			required: true,
			description: 'All conditions must hold (AND)',
			options: [
				{
					displayName: 'Condition',
					name: 'values',
					values: [
						{
							displayName: 'Column Name or ID',
							name: 'column',
							type: 'options',
							typeOptions: { loadOptionsMethod: 'getColumns', loadOptionsDependsOn: ['listId.value'] },
							default: '',
							description:
								'Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>',
						},
						{
							displayName: 'Value',
							name: 'value',
							type: 'string',
							default: '',
							description: 'The value the column must have (or contain, without Exact Match)',
						},
					],
				},
			],
		},
		{
			displayName: 'Exact Match',
			name: 'exact',
			type: 'boolean',
			default: true,
			description: 'Whether values must be equal; off matches a case-insensitive substring',
		},
		...pagingFields,
		...outputFields(SIMPLIFIED.listRow),
	],
	async execute(itemIndex) {
		const collection = this.getNodeParameter('conditions', itemIndex, {}) as { values?: IDataObject[] };
		const where: IDataObject = {};
		for (const condition of collection.values ?? []) {
			if (condition.column) where[String(condition.column)] = condition.value ?? '';
		}
		if (!Object.keys(where).length) {
			throw new NodeOperationError(this.getNode(), 'The field "Conditions" is empty: add at least one', { itemIndex });
		}
		// Every value contains the empty text: with substring matching an empty condition would match every row.
		const unbounded = Object.entries(where).find(([, value]) => String(value ?? '') === '');
		if (unbounded && this.getNodeParameter('exact', itemIndex, true) === false) {
			throw emptyWouldWiden.call(
				this,
				`Value (of ${unbounded[0]})`,
				{ all: 'a match for every row', instead: 'remove the condition' },
				itemIndex,
			);
		}
		const params = { ...listRef.call(this, itemIndex), where, exact: this.getNodeParameter('exact', itemIndex, true) };
		const records = await fetchPages.call(
			this,
			{ method: 'POST', path: '/list/rows/find', params, readOnly: true, itemIndex },
			paging.call(this, itemIndex),
		);
		return shapeRecords.call(this, itemIndex, records, SIMPLIFIED.listRow);
	},
};
