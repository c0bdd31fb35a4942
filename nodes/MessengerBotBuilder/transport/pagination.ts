import type { IDataObject } from 'n8n-workflow';
import { apiRequest, type ApiContext, type ApiRequest } from './request';

/** Rows asked for per page when reading everything. The service's maximum is not documented; 100 is modest. */
export const PAGE_SIZE = 100;

export interface PageRequest extends ApiRequest {
	/** Field of the answer holding the page's records (`items` for most methods). */
	itemsField?: string;
}

export interface Paging {
	returnAll: boolean;
	/** Used when `returnAll` is false. */
	limit: number;
}

/**
 * Reads pages with limit/offset until `total` is reached, a page comes back short or empty, or
 * `limit` records are collected. Each page goes through `apiRequest`, so it keeps the service's pace.
 */
export async function fetchPages(this: ApiContext, request: PageRequest, paging: Paging): Promise<IDataObject[]> {
	const field = request.itemsField ?? 'items';
	const wanted = paging.returnAll ? Infinity : paging.limit;
	const records: IDataObject[] = [];
	let offset = Number(request.params?.offset ?? 0);
	while (records.length < wanted) {
		const pageSize = Math.min(PAGE_SIZE, wanted - records.length);
		const answer = await apiRequest.call(this, {
			...request,
			params: { ...request.params, limit: pageSize, offset },
		});
		const page = Array.isArray(answer[field]) ? (answer[field] as IDataObject[]) : [];
		records.push(...page);
		offset += page.length;
		const total = typeof answer.total === 'number' ? answer.total : undefined;
		// A page longer than asked for means the method ignores paging and answered everything at once.
		if (page.length > pageSize) break;
		if (page.length === 0 || (total !== undefined ? offset >= total : page.length < pageSize)) break;
	}
	return records.slice(0, wanted === Infinity ? undefined : wanted);
}
