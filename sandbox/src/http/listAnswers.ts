import type { ResolvedOptions } from '../config';
import { ApiError } from './errors';

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

/**
 * The parameters of a paged call as the configured service reads them: a `limit` above
 * `maxPage` is refused (422 on `limit`, naming the maximum) or silently lowered to it.
 */
export function applyPageLimit(options: ResolvedOptions, path: string, source: Record<string, unknown>): Record<string, unknown> {
  if (!LIST_METHODS[path]?.paged || source.limit === undefined || source.limit === '') return source;
  const limit = Number(source.limit);
  if (!Number.isFinite(limit) || limit <= options.maxPage) return source;
  if (options.maxPageMode === 'cap') return { ...source, limit: options.maxPage };
  throw new ApiError(422, 'invalid_param', `Parameter "limit" must be at most ${options.maxPage}`, { param: 'limit', max: options.maxPage });
}

/** A list answer in the configured shape: without `total`, a bare array, or records under the resource's name. */
export function shapeListAnswer(options: ResolvedOptions, path: string, answer: unknown): unknown {
  const method = LIST_METHODS[path];
  if (!method || !answer || typeof answer !== 'object' || !Array.isArray((answer as { items?: unknown }).items)) return answer;
  const { items, ...rest } = answer as { items: unknown[]; total?: unknown };
  if (options.omitTotal) delete rest.total;
  if (options.listShape === 'bare') return items;
  if (options.listShape === 'named') return { [method.name]: items, ...rest };
  return { items, ...rest };
}
