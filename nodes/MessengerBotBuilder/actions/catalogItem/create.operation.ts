import type { IDataObject } from 'n8n-workflow';
import type { Operation } from '../types';
import { runInBatches } from '../common/batches';
import {
	CATALOG_CHECK,
	ITEMS_PER_REQUEST,
	itemFields,
	itemFieldsField,
	webAppField,
	webAppOf,
} from '../common/catalog';
import { apiRequest } from '../../transport/request';
import { requireConfirmed } from '../../transport/errors';

export const create: Operation = {
	value: 'create',
	name: 'Create',
	action: 'Create catalog items',
	description: 'Adds one item per input item; many items go through the bulk method, a batch per request',
	properties: [webAppField, itemFieldsField('fields', 'Item Fields')],
	async executeAll(items) {
		return await runInBatches.call(this, items, {
			maxPerRequest: ITEMS_PER_REQUEST,
			async prepare(itemIndex) {
				const webappid = webAppOf(this, itemIndex);
				return { key: webappid, shared: { webappid }, entry: itemFields.call(this, 'fields', itemIndex) };
			},
			async single(prepared, itemIndex) {
				const params = { ...prepared.shared, ...prepared.entry };
				const answer = await apiRequest.call(this, { method: 'POST', path: '/catalog/item/create', params, itemIndex });
				return { ...prepared.entry, id: answer.id, webappid: prepared.shared.webappid };
			},
			async many(shared, entries, itemIndexes) {
				const answer = await apiRequest.call(this, {
					method: 'POST',
					path: '/catalog/item/bulk/create',
					params: { ...shared, items: entries },
					itemIndex: itemIndexes[0],
				});
				// One id per item created, in order (documented): fewer means some items may not exist.
				const ids = Array.isArray(answer.id) ? (answer.id as IDataObject[string][]) : [];
				requireConfirmed(this.getNode(), {
					path: '/catalog/item/bulk/create',
					sent: entries.length,
					confirmed: ids.length,
					check: CATALOG_CHECK,
					itemIndex: itemIndexes[0],
				});
				return entries.map((entry, position) => ({ ...entry, id: ids[position], webappid: shared.webappid }));
			},
		});
	},
};
