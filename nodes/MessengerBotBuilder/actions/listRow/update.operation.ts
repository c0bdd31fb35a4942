import type { Operation } from '../types';
import { listField } from '../common/fields';
import { text } from '../common/params';
import { columnsField, listIdOf, listShape, mappedRow } from '../common/listColumns';
import { apiRequest } from '../../transport/request';
import type { IDataObject } from 'n8n-workflow';

export const update: Operation = {
	value: 'update',
	name: 'Update',
	action: 'Update a row of a list',
	description: 'Changes the mapped columns of a row, or replaces the whole row (unmapped columns become empty)',
	properties: [
		listField(),
		{
			displayName: 'Row ID',
			name: 'rowId',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 42',
			description: 'Number of the row to change',
		},
		{
			displayName: 'Change',
			name: 'change',
			type: 'options',
			options: [
				{ name: 'Only the Mapped Columns', value: 'partial' },
				{ name: 'The Whole Row', value: 'whole', description: 'Columns without a value become empty' },
			],
			default: 'partial',
			description: 'Whether to change only the columns mapped below or to replace the whole row',
		},
		columnsField,
	],
	async execute(itemIndex) {
		const listid = await listIdOf.call(this, itemIndex);
		const headersOf = async () => (await listShape.call(this, { listid }, itemIndex)).headers;
		const row = await mappedRow.call(this, itemIndex, headersOf);
		const params: IDataObject = { listid, rowid: text.call(this, 'rowId', itemIndex, true) };
		if (this.getNodeParameter('change', itemIndex, 'partial') === 'whole') {
			params.values = (await headersOf()).map((column) => row[column] ?? '');
		} else {
			params.row = row;
		}
		const answer = await apiRequest.call(this, { method: 'POST', path: '/list/row/edit', params, itemIndex });
		return (answer.row as IDataObject) ?? { ...answer, rowid: params.rowid };
	},
};
