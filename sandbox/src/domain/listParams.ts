import type { ApiCall } from '../api/endpoint';
import { ApiError, conflictingParam, missingParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import { directory, findBot } from './directory';
import { fingerprintOf } from './idempotency';
import { cellOf, columnIndex, draftFromObject, draftFromValues, unknownColumn } from './listInput';
import {
	findListById,
	findListByName,
	formatCreationDate,
	rowIndex,
	type List,
	type RowCondition,
	type RowDraft,
	type ServiceValues,
} from './lists';

/**
 * Reading and checking the parameters of the list methods. Each reader throws a 422 naming the
 * parameter before any state is touched.
 */

export const ROW_ORDERS = ['old', 'new'] as const;

/*
 * The readers below take values the request validation has let through (src/openapi/endpoints/lists.ts: 1 to 500 rows,
 * distinct non-blank headers, `row` or `values` and not both, `where` or `column` with `value`, row numbers): they
 * resolve them against the stored lists, where the rules a schema cannot state are checked.
 */

/** The rows of /list/rows/add. */
export function rowsToAdd(params: Params): unknown[] {
	return params.requiredArray('rows');
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
	return params.requiredArray('headers') as string[];
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
	const columns = columnIndex(list);
	if (where) {
		return Object.entries(where).map(([name, value]) => {
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
	const many = params.array('rowids') as number[] | undefined;
	if (single === undefined && !many) throw eitherMissing('rowid', 'rowids');
	const rowids = single !== undefined ? [single] : [...new Set(many!)];
	const absent = rowids.find((rowid) => rowIndex(list, rowid) < 0);
	if (absent !== undefined)
		throw notFound(`Row ${absent} of list "${list.name}"`, single !== undefined ? 'rowid' : 'rowids');
	return rowids;
}

/** The parameters that make two /list/row/add requests "the same" for Idempotency-Key. */
export function rowAddFingerprint(params: Params): string {
	const names = ['listid', 'list', 'row', 'values', 'clientid', 'messenger', 'botid'];
	return fingerprintOf(Object.fromEntries(names.map((name) => [name, params.raw(name)])));
}
