import type { Operation } from '../types';
import { runInBatches } from '../common/batches';
import { fieldsToChange } from '../common/emptyValues';
import {
	CATALOG_CHECK,
	ITEMS_PER_REQUEST,
	itemFieldsField,
	itemIdField,
	itemIdOf,
	webAppField,
	webAppOf,
} from '../common/catalog';
import { apiRequest } from '../../transport/request';
import { requireConfirmed, statedCount } from '../../transport/errors';

export const update: Operation = {
	value: 'update',
	name: 'Update',
	action: 'Update catalog items',
	description: 'Changes the given fields of items; many items go through the bulk method',
	properties: [webAppField, itemIdField, itemFieldsField('fields', 'Update Fields')],
	async executeAll(items) {
		return await runInBatches.call(this, items, {
			maxPerRequest: ITEMS_PER_REQUEST,
			async prepare(itemIndex) {
				const webappid = webAppOf(this, itemIndex);
				const entry = { itemid: itemIdOf.call(this, itemIndex), ...fieldsToChange.call(this, 'fields', itemIndex) };
				return { key: webappid, shared: { webappid }, entry };
			},
			async single(prepared, itemIndex) {
				const params = { ...prepared.shared, ...prepared.entry };
				const answer = await apiRequest.call(this, { method: 'POST', path: '/catalog/item/edit', params, itemIndex });
				return { ...prepared.entry, webappid: prepared.shared.webappid, result: answer.result };
			},
			async many(shared, entries, itemIndexes) {
				const answer = await apiRequest.call(this, {
					method: 'POST',
					path: '/catalog/item/bulk/edit',
					params: { ...shared, items: entries },
					itemIndex: itemIndexes[0],
				});
				// The documentation shows only `result`; a count of the items changed, where the service states one, must match.
				requireConfirmed(this.getNode(), {
					path: '/catalog/item/bulk/edit',
					sent: entries.length,
					confirmed: statedCount(answer, 'updated'),
					check: CATALOG_CHECK,
					itemIndex: itemIndexes[0],
				});
				return entries.map((entry) => ({ ...entry, webappid: shared.webappid, result: answer.result }));
			},
		});
	},
};
