import type { ResolvedOptions } from '../config';

/**
 * List methods and the resource name a `named` answer puts their records under. Paged ones take
 * `limit` and `offset`; all of them answer `{ items, ... }` by default.
 */
const LIST_METHODS: Record<string, { name: string; paged: boolean }> = {
	'/list/rows/get': { name: 'rows', paged: true },
	'/list/rows/find': { name: 'rows', paged: true },
	'/subscriber/list': { name: 'subscribers', paged: true },
	'/subscriber/find': { name: 'subscribers', paged: true },
	'/subscriber/chat/get': { name: 'messages', paged: true },
	'/log/get': { name: 'entries', paged: true },
	'/hook/list': { name: 'hooks', paged: true },
	'/hook/deliveries': { name: 'deliveries', paged: true },
	'/list/all': { name: 'lists', paged: false },
	'/bot/list': { name: 'bots', paged: false },
	'/group/list': { name: 'groups', paged: false },
};

/** The resource name a `named` list answer puts the records of `path` under; undefined for other methods. */
export const listResourceName = (path: string): string | undefined => LIST_METHODS[path]?.name;

/**
 * The parameters of a paged call as the configured service reads them: with `--max-page-mode cap` a `limit` above
 * `maxPage` is silently lowered to it. (With `reject`, the OpenAPI document bounds `limit` and the request
 * validation refuses more.)
 */
export function applyPageLimit(
	options: ResolvedOptions,
	path: string,
	source: Record<string, unknown>,
): Record<string, unknown> {
	if (options.maxPageMode !== 'cap' || !LIST_METHODS[path]?.paged || source.limit === undefined) return source;
	return Number(source.limit) > options.maxPage ? { ...source, limit: options.maxPage } : source;
}

/** A list answer in the configured shape: without `total`, a bare array, or records under the resource's name. */
export function shapeListAnswer(options: ResolvedOptions, path: string, answer: unknown): unknown {
	const method = LIST_METHODS[path];
	if (!method || !answer || typeof answer !== 'object' || !Array.isArray((answer as { items?: unknown }).items))
		return answer;
	const { items, ...rest } = answer as { items: unknown[]; total?: unknown };
	if (options.omitTotal) delete rest.total;
	if (options.listShape === 'bare') return items;
	if (options.listShape === 'named') return { [method.name]: items, ...rest };
	return { items, ...rest };
}
