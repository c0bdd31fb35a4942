import type { ApiCall } from '../api/endpoint';
import { ApiError, conflictingParam, invalidParam, missingParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import { findApp, findItem, readItemFields, type CatalogItem, type ItemFields, type WebApp } from './catalog';
import { LIMITS } from '../openapi/limits';

/**
 * Reading and checking the parameters of the catalog methods. Each reader throws a 422 naming the
 * parameter (e.g. `items[2].price`) before any state is touched.
 */

/** Items one bulk request may carry (the service names no limit; the sandbox takes the lists' one). */
export const MAX_ITEMS_PER_REQUEST = LIMITS.itemsPerRequest;

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

function itemNumber(value: unknown, param: string): number {
  if (value === undefined || value === null || value === '') throw missingParam(param);
  const parsed = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
  if (!Number.isInteger(parsed) || parsed < 1) throw invalidParam(param, 'must be an item number (a positive integer)');
  return parsed;
}

/** The `items` array of a bulk request: 1 to 500 objects, each holding only the allowed keys. */
export function bulkItems(params: Params, allowed: readonly string[]): Record<string, unknown>[] {
  const items = params.requiredArray('items');
  if (items.length === 0) throw invalidParam('items', 'must hold at least one item');
  if (items.length > MAX_ITEMS_PER_REQUEST) {
    throw new ApiError(422, 'too_many_items', `Parameter "items" holds ${items.length} items; at most ${MAX_ITEMS_PER_REQUEST} are accepted`, {
      param: 'items',
      max: MAX_ITEMS_PER_REQUEST,
    });
  }
  return items.map((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalidParam(`items[${index}]`, 'must be an object');
    const unknown = Object.keys(item).find((name) => !allowed.includes(name));
    if (unknown !== undefined) throw invalidParam(`items[${index}].${unknown}`, 'is not an item field');
    return item as Record<string, unknown>;
  });
}

export function fieldsOfBulkItem(item: Record<string, unknown>, index: number): ItemFields {
  return readItemFields(
    (field) => item[field],
    (field) => `items[${index}].${field}`,
  );
}

/** Distinct item numbers of a bulk request, each of an existing item (of `app` when given). */
export function bulkItemids(store: ApiCall['store'], items: Record<string, unknown>[], app?: WebApp): number[] {
  const seen = new Set<number>();
  return items.map((item, index) => {
    const param = `items[${index}].itemid`;
    const itemid = itemNumber(item.itemid, param);
    if (seen.has(itemid)) throw conflictingParam(param, `repeats item ${itemid}`);
    seen.add(itemid);
    itemOf(store, itemid, param, app);
    return itemid;
  });
}
