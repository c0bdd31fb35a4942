import { idempotencyKeyOf, once } from '../domain/idempotency';
import { columnIndex, draftFromEither } from '../domain/listInput';
import {
	conditionsOf,
	groupOf,
	headersOf,
	ROW_ORDERS,
	rowAddFingerprint,
	rowidsOf,
	rowsToAdd,
	serviceValues,
	singleDraft,
	targetList,
} from '../domain/listParams';
import {
	appendRows,
	clearRows,
	completeRow,
	createList,
	deleteRows,
	formatCreationDate,
	listsState,
	listSummary,
	matchRows,
	pageRows,
	renderRow,
	rowIndex,
	saveRow,
} from '../domain/lists';
import { notFound } from '../http/errors';
import { pageOf } from '../http/params';
import type { SandboxContext, SandboxModule } from './endpoint';

const isoOf = (epochMs: number) => new Date(epochMs).toISOString();

/** Demo rows for some of the seeded subscribers. */
function seedLeads({ store, clock, options }: SandboxContext): void {
	const list = createList(store, {
		name: 'Leads',
		headers: ['CreationDate', 'ClientID', 'Messenger', 'BotID', 'Name', 'Phone'],
		group: 'grp_sales',
	});
	const date = formatCreationDate(clock.now(), options.timezone);
	appendRows(
		store,
		list,
		[
			[date, '100001', 'telegram', 'bot_tg', 'Alice Smith', '+15550201'],
			[date, '100002', 'telegram', 'bot_tg', 'Bob Jones', '+15550202'],
			[date, '15550101', 'whatsapp', 'bot_wa', 'Eve Green', '+15550101'],
		],
		options.rowCap,
		clock.iso(),
	);
}

/**
 * Lists and their rows. Lists belong to the account, not to a bot: a bot-restricted key sees and
 * changes every list; only a `botid` it passes is checked against its bots.
 */
export const listsModule: SandboxModule = {
	name: 'lists',
	seed: seedLeads,
	endpoints: [
		{
			path: '/list/all',
			methods: 'GET or POST',
			scope: 'lists:read',
			handle: (call) => {
				const group = groupOf(call);
				const lists = listsState(call.store).lists.filter((list) => group === undefined || list.group === group);
				return { items: lists.map(listSummary) };
			},
		},
		{
			path: '/list/create',
			methods: 'POST',
			scope: 'lists:write',
			handle: (call) => {
				const { store, params } = call;
				const name = params.requiredString('name');
				const headers = headersOf(params);
				const group = groupOf(call) ?? null;
				const list = createList(store, { name, headers, group });
				return { list: listSummary(list) };
			},
		},
		{
			path: '/list/clear',
			methods: 'POST',
			scope: 'lists:write',
			handle: (call) => {
				const list = targetList(call);
				const cleared = clearRows(call.store, list);
				return { ok: true, cleared, list: listSummary(list) };
			},
		},
		{
			path: '/list/rows/get',
			methods: 'GET or POST',
			scope: 'lists:read',
			handle: (call) => {
				const list = targetList(call);
				const { limit, offset } = pageOf(call.params);
				const sort = call.params.choice('sort', ROW_ORDERS) ?? 'old';
				const page = pageRows(list.rows, sort, offset, limit);
				return { items: page.map((row) => renderRow(list, row)), total: list.rows.length };
			},
		},
		{
			path: '/list/rows/find',
			methods: 'GET or POST',
			scope: 'lists:read',
			handle: (call) => {
				const { params } = call;
				const list = targetList(call);
				const conditions = conditionsOf(list, params);
				const exact = params.bool('exact') ?? false;
				const { limit, offset } = pageOf(params);
				const sort = params.choice('sort', ROW_ORDERS) ?? 'old';
				const matched = matchRows(list, conditions, exact);
				return {
					items: pageRows(matched, sort, offset, limit).map((row) => renderRow(list, row)),
					total: matched.length,
				};
			},
		},
		{
			path: '/list/row/add',
			methods: 'POST',
			scope: 'lists:write',
			handle: (call) => {
				const { store, clock, params, options } = call;
				const request = {
					method: '/list/row/add',
					apiKeyId: call.key.id,
					key: idempotencyKeyOf(call.headers),
					fingerprint: rowAddFingerprint(params),
				};
				const now = clock.now();
				return once(store, now, request, () => {
					const list = targetList(call);
					const draft = singleDraft(list, params, false);
					const service = serviceValues(call, now);
					const { added, removed } = appendRows(
						store,
						list,
						[completeRow(list, draft, service)],
						options.rowCap,
						isoOf(now),
					);
					return { row: renderRow(list, added[0]), trimmed: removed > 0 };
				});
			},
		},
		{
			path: '/list/rows/add',
			methods: 'POST',
			scope: 'lists:write',
			handle: (call) => {
				const { store, clock, params, options } = call;
				const rows = rowsToAdd(params);
				const list = targetList(call);
				const columns = columnIndex(list);
				const now = clock.now();
				const service = serviceValues(call, now);
				const drafts = rows.map((input, index) => draftFromEither(list, columns, input, `rows[${index}]`));
				const completed = drafts.map((draft) => completeRow(list, draft, service));
				const { added, removed } = appendRows(store, list, completed, options.rowCap, isoOf(now));
				return {
					rows: added.map((row) => renderRow(list, row)),
					count: completed.length,
					trimmed: removed > 0,
					removed,
				};
			},
		},
		{
			path: '/list/row/edit',
			methods: 'POST',
			scope: 'lists:write',
			handle: (call) => {
				const { store, params } = call;
				const list = targetList(call);
				const rowid = params.requiredInt('rowid', { min: 1 });
				const index = rowIndex(list, rowid);
				if (index < 0) throw notFound(`Row ${rowid} of list "${list.name}"`, 'rowid');
				const draft = singleDraft(list, params, true);
				const row = list.rows[index];
				row.values = row.values.map((old, column) => draft[column] ?? old);
				saveRow(store, list, row);
				return { row: renderRow(list, row) };
			},
		},
		{
			path: '/list/row/delete',
			methods: 'POST',
			scope: 'lists:write',
			handle: (call) => {
				const list = targetList(call);
				const rowids = rowidsOf(list, call.params);
				deleteRows(call.store, list, rowids);
				return { ok: true, deleted: rowids.length, rowids };
			},
		},
	],
};
