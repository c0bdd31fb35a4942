import type { ApiCall } from '../api/endpoint';
import { conflictingParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import { findApp, findItem, readItemFields, type CatalogItem, type ItemFields, type WebApp } from './catalog';

/**
 * Reading the parameters of the catalog methods against the stored catalog, before any state is touched; their
 * shapes are the request validation's (src/openapi/endpoints/catalog.ts).
 */

export function appOf(store: ApiCall['store'], params: Params, param = 'webappid'): WebApp {
	const webappid = params.requiredString(param);
	const app = findApp(store, webappid);
	if (!app) throw notFound(`Web app ${webappid}`, param);
	return app;
}

/** The item `itemid` of `app` (or of any app when `app` is omitted). */
export function itemOf(store: ApiCall['store'], itemid: number, param: string, app?: WebApp): CatalogItem {
	const item = findItem(store, itemid);
	if (!item || (app && item.webappid !== app.id)) {
		throw notFound(app ? `Item ${itemid} of web app ${app.id}` : `Item ${itemid}`, param);
	}
	return item;
}

/** The `items` array of a bulk request, as the request validation let it through (1 to 500 objects of known fields). */
export function bulkItems(params: Params): Record<string, unknown>[] {
	return params.requiredArray('items') as Record<string, unknown>[];
}

export function fieldsOfBulkItem(item: Record<string, unknown>): ItemFields {
	return readItemFields((field) => item[field]);
}

/** Distinct item numbers of a bulk request, each of an existing item (of `app` when given). */
export function bulkItemids(store: ApiCall['store'], items: Record<string, unknown>[], app?: WebApp): number[] {
	const seen = new Set<number>();
	return items.map((item, index) => {
		const param = `items[${index}].itemid`;
		const itemid = Number(item.itemid);
		if (seen.has(itemid)) throw conflictingParam(param, `repeats item ${itemid}`);
		seen.add(itemid);
		itemOf(store, itemid, param, app);
		return itemid;
	});
}
