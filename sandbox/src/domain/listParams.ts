import type { ApiCall } from '../api/endpoint';
import { ApiError, conflictingParam, invalidParam, missingParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import { directory, findBot } from './directory';
import { fingerprintOf } from './idempotency';
import { cellOf, columnIndex, draftFromObject, draftFromValues, unknownColumn } from './listInput';
import { findListById, findListByName, formatCreationDate, rowIndex, type List, type RowCondition, type RowDraft, type ServiceValues } from './lists';
import { LIMITS } from '../openapi/limits';

/**
 * Reading and checking the parameters of the list methods. Each reader throws a 422 naming the
 * parameter before any state is touched.
 */

/** Rows one /list/rows/add request may carry. */
export const MAX_ROWS_PER_REQUEST = LIMITS.rowsPerRequest;
export const ROW_ORDERS = ['old', 'new'] as const;

/** The rows of /list/rows/add: 1 to 500, else the whole request is refused (422 too_many_rows). */
export function rowsToAdd(params: Params): unknown[] {
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
  return rows;
}

const eitherMissing = (first: string, second: string) =>
  new ApiError(422, 'missing_param', `Parameter "${first}" or "${second}" is required`, { param: first });

/** The list named by `listid` or by `list` (its name); when both are given they must agree. */
export function targetList({ store, params }: ApiCall): List {
  const listid = params.int('listid', { min: 1 });
  const name = params.string('list');
  if (listid === undefined && name === undefined) throw eitherMissing('listid', 'list');
  const byId = listid === undefined ? undefined : findListById(store, listid);
  if (listid !== undefined && !byId) throw notFound(`List ${listid}`, 'listid');
  if (name === undefined) return byId!;
  const byName = findListByName(store, name);
  if (!byName) throw notFound(`List "${name}"`, 'list');
  if (byId && byId !== byName) throw conflictingParam('list', `names list ${byName.id}, but listid is ${listid}`);
  return byName;
}

/** The row of a single-row write: `row` (by column name) or `values` (by order). */
export function singleDraft(list: List, params: Params, wholeRow: boolean): RowDraft {
  const row = params.object('row');
  const values = params.array('values');
  if (row && values) throw invalidParam('values', 'cannot be given together with "row"');
  if (row) return draftFromObject(list, columnIndex(list), row, 'row');
  if (values) return draftFromValues(list, values, 'values', wholeRow);
  throw eitherMissing('row', 'values');
}

/** Values of the service columns for rows added by this call at `now` (epoch ms). */
export function serviceValues(call: ApiCall, now: number): ServiceValues {
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

export function headersOf(params: Params): string[] {
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

export function groupOf({ store, params }: ApiCall): string | undefined {
  const group = params.string('group');
  if (group !== undefined && !directory(store).groups.some((candidate) => candidate.code === group)) {
    throw notFound(`Project ${group}`, 'group');
  }
  return group;
}

/** The conditions of /list/rows/find: `where` (AND of columns) or one `column` + `value`. */
export function conditionsOf(list: List, params: Params): RowCondition[] {
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
export function rowidsOf(list: List, params: Params): number[] {
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
export function rowAddFingerprint(params: Params): string {
  const names = ['listid', 'list', 'row', 'values', 'clientid', 'messenger', 'botid'];
  return fingerprintOf(Object.fromEntries(names.map((name) => [name, params.raw(name)])));
}
