import { ApiError, conflictingParam, invalidParam } from '../http/errors';
import type { CellValue, List, RowDraft } from './lists';

/** 422 for a column name the list does not have; names the parameter and the column. */
export const unknownColumn = (list: List, param: string, column: string) =>
	new ApiError(
		422,
		'unknown_column',
		`Parameter "${param}" names column "${column}", which list "${list.name}" does not have`,
		{
			param,
			column,
		},
	);

/** Column name to position, built once per request. */
export function columnIndex(list: List): Map<string, number> {
	return new Map(list.headers.map((header, index) => [header, index]));
}

/** A cell as the caller sent it: a string, number or boolean; null means an empty cell. */
export function cellOf(value: unknown, param: string, column: string): CellValue {
	if (value === null) return '';
	if (typeof value === 'string' || typeof value === 'boolean') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return value;
	throw invalidParam(param, `has a value for column "${column}" that is not a string, number or boolean`);
}

/** The `row` form: an object of column name to value; only the named columns are passed. */
export function draftFromObject(
	list: List,
	columns: Map<string, number>,
	object: Record<string, unknown>,
	param: string,
): RowDraft {
	const draft: RowDraft = new Array(list.headers.length).fill(undefined);
	for (const [name, value] of Object.entries(object)) {
		const index = columns.get(name);
		if (index === undefined) throw unknownColumn(list, param, name);
		draft[index] = cellOf(value, param, name);
	}
	return draft;
}

/**
 * The `values` form: values in column order. On add it may be shorter than the headers (the rest is
 * not passed); `wholeRow` (edit) requires exactly one value per column.
 */
export function draftFromValues(list: List, values: unknown[], param: string, wholeRow = false): RowDraft {
	const columns = list.headers.length;
	if (values.length > columns || (wholeRow && values.length !== columns)) {
		throw conflictingParam(param, `has ${values.length} values but list "${list.name}" has ${columns} columns`);
	}
	const draft: RowDraft = new Array(columns).fill(undefined);
	values.forEach((value, index) => {
		draft[index] = cellOf(value, param, list.headers[index]);
	});
	return draft;
}

/** One row in either form: an array is `values`, an object is `row`. */
export function draftFromEither(list: List, columns: Map<string, number>, input: unknown, param: string): RowDraft {
	if (Array.isArray(input)) return draftFromValues(list, input, param);
	if (typeof input === 'object' && input !== null)
		return draftFromObject(list, columns, input as Record<string, unknown>, param);
	throw invalidParam(param, 'must be an object of column name to value or an array of values');
}
