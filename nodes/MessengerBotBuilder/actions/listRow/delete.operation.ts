import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Operation } from '../types';
import { listField } from '../common/fields';
import { runInBatches } from '../common/batches';
import { listIdOf } from '../common/listColumns';
import { recordNumber, stringList } from '../common/params';
import { fieldLabel } from '../common/labels';
import { apiRequest } from '../../transport/request';
import { requireConfirmed, statedCount } from '../../transport/errors';

const ROWS_PER_REQUEST = 500;

export const deleteRows: Operation = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete rows of a list',
	description: 'Deletes one or many rows by their IDs; the rows of many items go in one request',
	properties: [
		listField(),
		{
			displayName: 'Row IDs',
			name: 'rowIds',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. 42 or 42, 43, 44',
			description: 'One row ID, several separated by commas, or an array from an expression',
		},
	],
	async executeAll(items) {
		// Each row once (items may name the same row). The answer is not documented; a count of the rows deleted, where
		// the service states one, must match the rows sent.
		const remove = async (context: typeof this, listid: IDataObject[string], named: number[], itemIndex: number) => {
			const rowids = [...new Set(named)];
			const answer = await apiRequest.call(context, {
				method: 'POST',
				path: '/list/row/delete',
				params: { listid, rowids },
				itemIndex,
			});
			const check = 'Look for the rows in the list (List Row → Get Many)';
			requireConfirmed(context.getNode(), {
				path: '/list/row/delete',
				sent: rowids.length,
				confirmed: statedCount(answer, 'deleted'),
				check,
				itemIndex,
			});
		};
		return await runInBatches.call(this, items, {
			maxPerRequest: ROWS_PER_REQUEST,
			async prepare(itemIndex) {
				const listid = await listIdOf.call(this, itemIndex);
				const field = fieldLabel.call(this, 'rowIds');
				const rowids = stringList
					.call(this, 'rowIds', itemIndex)
					.map((rowid) => recordNumber.call(this, rowid, field, itemIndex));
				if (!rowids.length)
					throw new NodeOperationError(this.getNode(), `The field "${field}" must hold row numbers`, { itemIndex });
				return { key: String(listid), shared: { listid }, entry: { rowids } };
			},
			async single(prepared, itemIndex) {
				await remove(this, prepared.shared.listid, prepared.entry.rowids as number[], itemIndex);
				return { deleted: true, rowids: prepared.entry.rowids };
			},
			async many(shared, entries, itemIndexes) {
				await remove(
					this,
					shared.listid,
					entries.flatMap((entry) => entry.rowids as number[]),
					itemIndexes[0],
				);
				return entries.map((entry) => ({ deleted: true, rowids: entry.rowids }));
			},
		});
	},
};
