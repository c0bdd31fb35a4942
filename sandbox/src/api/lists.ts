import { directory, findBot } from '../domain/directory';
import { fingerprintOf, idempotencyKeyOf, once } from '../domain/idempotency';
import { cellOf, columnIndex, draftFromEither, draftFromObject, draftFromValues, unknownColumn } from '../domain/listInput';
import {
  appendRows,
  completeRow,
  createList,
  deleteRows,
  findListById,
  findListByName,
  formatCreationDate,
  listsState,
  listSummary,
  matchRows,
  pageRows,
  renderRow,
  rowIndex,
  type List,
  type RowCondition,
  type RowDraft,
  type ServiceValues,
} from '../domain/lists';
import { ApiError, invalidParam, missingParam, notFound } from '../http/errors';
import { pageOf, type Params } from '../http/params';
import type { ApiCall, SandboxContext, SandboxModule } from './endpoint';

/** Rows one /list/rows/add request may carry. */
export const MAX_ROWS_PER_REQUEST = 500;
const SORTS = ['old', 'new'] as const;

const eitherMissing = (first: string, second: string) =>
  new ApiError(422, 'missing_param', `Parameter "${first}" or "${second}" is required`, { param: first });

/** The list named by `listid` or by `list` (its name); when both are given they must agree. */
function targetList({ store, params }: ApiCall): List {
  const listid = params.int('listid', { min: 1 });
  const name = params.string('list');
  if (listid === undefined && name === undefined) throw eitherMissing('listid', 'list');
  const byId = listid === undefined ? undefined : findListById(store, listid);
  if (listid !== undefined && !byId) throw notFound(`List ${listid}`, 'listid');
  if (name === undefined) return byId!;
  const byName = findListByName(store, name);
  if (!byName) throw notFound(`List "${name}"`, 'list');
  if (byId && byId !== byName) throw invalidParam('list', `names list ${byName.id}, but listid is ${listid}`);
  return byName;
}

/** The row of a single-row write: `row` (by column name) or `values` (by order). */
function singleDraft(list: List, params: Params, wholeRow: boolean): RowDraft {
  const row = params.object('row');
  const values = params.array('values');
  if (row && values) throw invalidParam('values', 'cannot be given together with "row"');
  if (row) return draftFromObject(list, columnIndex(list), row, 'row');
  if (values) return draftFromValues(list, values, 'values', wholeRow);
  throw eitherMissing('row', 'values');
}

/** Values of the service columns for rows added by this call at `now` (epoch ms). */
function serviceValues(call: ApiCall, now: number): ServiceValues {
  const { params, store, options } = call;
  const botid = params.string('botid');
  if (botid !== undefined) {
    call.assertBot(botid);
    if (!findBot(store, botid)) throw notFound(`Bot ${botid}`, 'botid');
  }
  return {
    CreationDate: formatCreationDate(now, options.timezone),
    ClientID: params.string('clientid'),
    Messenger: params.string('messenger'),
    BotID: botid,
  };
}

const isoOf = (epochMs: number) => new Date(epochMs).toISOString();

function headersOf(params: Params): string[] {
  const headers = params.requiredArray('headers');
  if (headers.length === 0) throw invalidParam('headers', 'must name at least one column');
  const seen = new Set<string>();
  for (const header of headers) {
    if (typeof header !== 'string' || header.trim() === '') throw invalidParam('headers', 'must hold non-empty strings only');
    if (seen.has(header)) throw invalidParam('headers', `names column "${header}" twice`);
    seen.add(header);
  }
  return headers as string[];
}

function groupOf({ store, params }: ApiCall): string | undefined {
  const group = params.string('group');
  if (group !== undefined && !directory(store).groups.some((candidate) => candidate.code === group)) {
    throw notFound(`Project ${group}`, 'group');
  }
  return group;
}

/** The conditions of /list/rows/find: `where` (AND of columns) or one `column` + `value`. */
function conditionsOf(list: List, params: Params): RowCondition[] {
  const where = params.object('where');
  const column = params.string('column');
  if (where && column !== undefined) throw invalidParam('column', 'cannot be given together with "where"');
  const columns = columnIndex(list);
  if (where) {
    const entries = Object.entries(where);
    if (entries.length === 0) throw invalidParam('where', 'must name at least one column');
    return entries.map(([name, value]) => {
      const index = columns.get(name);
      if (index === undefined) throw unknownColumn(list, 'where', name);
      return { column: index, value: cellOf(value, 'where', name) };
    });
  }
  if (column === undefined) throw eitherMissing('where', 'column');
  const index = columns.get(column);
  if (index === undefined) throw unknownColumn(list, 'column', column);
  const value = params.raw('value');
  if (value === undefined) throw missingParam('value');
  return [{ column: index, value: cellOf(value, 'value', column) }];
}

/** Row numbers of /list/row/delete: `rowid` or `rowids`, each of an existing row; duplicates count once. */
function rowidsOf(list: List, params: Params): number[] {
  const single = params.int('rowid', { min: 1 });
  const many = params.array('rowids');
  if (single !== undefined && many) throw invalidParam('rowids', 'cannot be given together with "rowid"');
  if (single === undefined && !many) throw eitherMissing('rowid', 'rowids');
  if (many && many.length === 0) throw invalidParam('rowids', 'must hold at least one row number');
  const rowids = single !== undefined ? [single] : [...new Set(many!.map(rowNumber))];
  const absent = rowids.find((rowid) => rowIndex(list, rowid) < 0);
  if (absent !== undefined) throw notFound(`Row ${absent} of list "${list.name}"`, single !== undefined ? 'rowid' : 'rowids');
  return rowids;
}

function rowNumber(value: unknown): number {
  const parsed = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isInteger(parsed) || parsed < 1) throw invalidParam('rowids', 'must hold row numbers (positive integers)');
  return parsed;
}

/** The parameters that make two /list/row/add requests "the same" for Idempotency-Key. */
function rowAddFingerprint(params: Params): string {
  const names = ['listid', 'list', 'row', 'values', 'clientid', 'messenger', 'botid'];
  return fingerprintOf(Object.fromEntries(names.map((name) => [name, params.raw(name)])));
}

/** Demo rows for some of the seeded subscribers. */
function seedLeads({ store, clock, options }: SandboxContext): void {
  const list = createList(store, {
    name: 'Leads',
    headers: ['CreationDate', 'ClientID', 'Messenger', 'BotID', 'Name', 'Phone'],
    group: 'grp_sales',
  });
  const date = formatCreationDate(clock.now(), options.timezone);
  appendRows(
    list,
    [
      [date, '100001', 'telegram', 'bot_tg', 'Alice Smith', '+15550201'],
      [date, '100002', 'telegram', 'bot_tg', 'Bob Jones', '+15550202'],
      [date, '15550101', 'whatsapp', 'bot_wa', 'Eve Green', '+15550101'],
    ],
    options.rowCap,
    clock.iso(),
  );
  store.changed();
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
        store.changed();
        return { list: listSummary(list) };
      },
    },
    {
      path: '/list/clear',
      methods: 'POST',
      scope: 'lists:write',
      handle: (call) => {
        const list = targetList(call);
        const cleared = list.rows.length;
        list.rows = [];
        call.store.changed();
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
        const sort = call.params.choice('sort', SORTS) ?? 'old';
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
        const sort = params.choice('sort', SORTS) ?? 'old';
        const matched = matchRows(list, conditions, exact);
        return { items: pageRows(matched, sort, offset, limit).map((row) => renderRow(list, row)), total: matched.length };
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
          const { added, removed } = appendRows(list, [completeRow(list, draft, service)], options.rowCap, isoOf(now));
          store.changed();
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
        const rows = params.requiredArray('rows');
        if (rows.length === 0) throw invalidParam('rows', 'must hold at least one row');
        if (rows.length > MAX_ROWS_PER_REQUEST) {
          throw new ApiError(
            422,
            'too_many_rows',
            `Parameter "rows" holds ${rows.length} rows; at most ${MAX_ROWS_PER_REQUEST} are accepted per request, nothing was added`,
            { param: 'rows', max: MAX_ROWS_PER_REQUEST },
          );
        }
        const list = targetList(call);
        const columns = columnIndex(list);
        const now = clock.now();
        const service = serviceValues(call, now);
        const drafts = rows.map((input, index) => draftFromEither(list, columns, input, `rows[${index}]`));
        const completed = drafts.map((draft) => completeRow(list, draft, service));
        const { added, removed } = appendRows(list, completed, options.rowCap, isoOf(now));
        store.changed();
        return { rows: added.map((row) => renderRow(list, row)), count: completed.length, trimmed: removed > 0, removed };
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
        store.changed();
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
        deleteRows(list, rowids);
        call.store.changed();
        return { ok: true, deleted: rowids.length, rowids };
      },
    },
  ],
};
