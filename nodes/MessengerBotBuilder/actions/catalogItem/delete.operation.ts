import type { Operation } from '../types';
import { runInBatches } from '../common/batches';
import { CATALOG_CHECK, ITEMS_PER_REQUEST, itemIdField, itemIdOf } from '../common/catalog';
import { apiRequest } from '../../transport/request';
import { requireConfirmed, statedCount } from '../../transport/errors';

export const deleteItem: Operation = {
	value: 'delete',
	name: 'Delete',
	action: 'Delete catalog items',
	description: 'Deletes items by ID; many items go through the bulk method',
	properties: [itemIdField],
	async executeAll(items) {
		return await runInBatches.call(this, items, {
			maxPerRequest: ITEMS_PER_REQUEST,
			async prepare(itemIndex) {
				return { key: 'all', shared: {}, entry: { itemid: itemIdOf.call(this, itemIndex) } };
			},
			async single(prepared, itemIndex) {
				const answer = await apiRequest.call(this, {
					method: 'POST',
					path: '/catalog/item/delete',
					params: prepared.entry,
					itemIndex,
				});
				return { ...prepared.entry, deleted: true, result: answer.result };
			},
			async many(_shared, entries, itemIndexes) {
				const answer = await apiRequest.call(this, {
					method: 'POST',
					path: '/catalog/item/bulk/delete',
					params: { items: entries },
					itemIndex: itemIndexes[0],
				});
				// The documentation shows only `result`; a count of the items deleted, where the service states one, must match.
				requireConfirmed(this.getNode(), {
					path: '/catalog/item/bulk/delete',
					sent: entries.length,
					confirmed: statedCount(answer, 'deleted'),
					check: CATALOG_CHECK,
					itemIndex: itemIndexes[0],
				});
				return entries.map((entry) => ({ ...entry, deleted: true, result: answer.result }));
			},
		});
	},
};
