import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Operation } from '../types';
import { listField, pagingFields } from '../common/fields';
import { listRef, paging } from '../common/params';
import { fetchPages } from '../../transport/pagination';

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
						{ displayName: 'Value', name: 'value', type: 'string', default: '' },
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
	],
	async execute(itemIndex) {
		const collection = this.getNodeParameter('conditions', itemIndex, {}) as { values?: IDataObject[] };
		const where: IDataObject = {};
		for (const condition of collection.values ?? []) {
			if (condition.column) where[String(condition.column)] = condition.value ?? '';
		}
		if (!Object.keys(where).length) {
			throw new NodeOperationError(this.getNode(), 'The parameter "conditions" is empty: add at least one', { itemIndex });
		}
		const params = { ...listRef.call(this, itemIndex), where, exact: this.getNodeParameter('exact', itemIndex, true) };
		return await fetchPages.call(
			this,
			{ method: 'POST', path: '/list/rows/find', params, readOnly: true, itemIndex },
			paging.call(this, itemIndex),
		);
	},
};
