import { LIMITS } from '../limits';
import {
	CELL,
	choice,
	dictionary,
	flag,
	integer,
	list,
	needsNote,
	NOT_BLANK_NOTE,
	nonBlank,
	optional,
	requiredBySandbox,
	sandboxLimit,
	text,
} from '../params';
import { arrayOf, bool, int, object, oneOf, ref, sandbox, sandboxObject, type Schema } from '../schema';
import type { EndpointContract } from './contract';
import { ALL_OR_NOTHING, documentedPage, ID, LIST_ERRORS, ok, page, PAGE_PARAMS } from './shared';

/** Values for the service columns ClientID, Messenger and BotID when the row leaves them out. */
const SERVICE_VALUES = {
	clientid: optional(ID, 'Fills ClientID.'),
	messenger: optional(ID, 'Fills Messenger.'),
	botid: optional(ID, 'Fills BotID.'),
};

/** The same for many rows at once: the documentation names them for /list/row/add only. */
const SERVICE_VALUES_OF_ROWS = Object.fromEntries(
	Object.entries(SERVICE_VALUES).map(([name, spec]) => [
		name,
		{
			...spec,
			sandbox: `The documentation names \`${name}\` for /list/row/add only; the sandbox also takes it here, for every row. ${spec.sandbox}`,
		},
	]),
) as typeof SERVICE_VALUES;

const SAME_LIST =
	'When both `listid` and `list` are given they must name the same list (otherwise 422 param_conflict).';

/** Why the sandbox checks that two parameters agree: the documentation does not say which one wins. */
const AGREEMENT = 'The documentation does not say what happens when they disagree.';

const LIST_TARGET = {
	listid: optional(integer(1), 'List number; give it or `list`.', `${SAME_LIST} ${AGREEMENT}`),
	list: optional(ID, 'List name, instead of `listid`.', `${SAME_LIST} ${AGREEMENT}`),
};

/** A method for which the documentation names only `listid`: the sandbox takes the list's name as well. */
const LIST_TARGET_BY_NUMBER = {
	...LIST_TARGET,
	list: {
		...LIST_TARGET.list,
		sandbox: `The documentation names only \`listid\` for this method; the sandbox also takes the list's name. ${LIST_TARGET.list.sandbox}`,
	},
};

const LIST_TARGET_RULE: string[][] = [['listid'], ['list']];

/** `row` or `values`: the documentation names them for /list/row/add and /list/row/edit without starring either. */
const ROW_RULE: string[][] = [['row'], ['values']];

/** `values` in column order: the documentation does not say what happens with more values than columns. */
const VALUES_PER_COLUMN = 'the documentation does not say what happens with more values than the list has columns.';

/** The rules of a method that names a list, and its own. */
const listRules = (own?: string) => [SAME_LIST, own].filter(Boolean).join(' ');

const ROW_OBJECT: Schema = { type: 'object', additionalProperties: CELL };

const ROW_VALUES: Schema = { type: 'array', items: CELL };

const ROW_ORDER = choice(['old', 'new']);

/** The contracts of the methods for lists and their rows, in the order the document lists them. */
export const listsContracts: Record<string, EndpointContract> = {
	'/list/all': {
		tag: 'Lists',
		summary: 'Every list',
		description: 'Every list of the account, or of one project.',
		params: { group: optional(ID, 'Project code.') },
		errors: LIST_ERRORS,
		answer: object({ items: arrayOf(ref('List')) }),
	},
	'/list/create': {
		tag: 'Lists',
		summary: 'Create a list',
		description: 'Creates an empty list with its columns; a name already taken is refused with `list_exists`.',
		params: {
			name: requiredBySandbox(text(), 'Unused name.'),
			headers: requiredBySandbox(
				list(nonBlank(), 'must be a non-empty array of distinct, non-blank column names', { min: 1, unique: true }),
				'Column names.',
				'At least one column, each named once (otherwise 422 invalid_param): the documentation says "array of strings" without saying whether it may be empty or repeat a name.',
			),
			group: optional(ID, 'Project code.'),
		},
		errors: { 422: ['not_found', 'list_exists'] },
		answer: sandboxObject({ list: ref('List') }),
	},
	'/list/clear': {
		tag: 'Lists',
		summary: 'Remove every row of a list',
		description: 'Removes every row; the list stays.',
		params: LIST_TARGET_BY_NUMBER,
		needs: [LIST_TARGET_RULE],
		needsNotes: [needsNote(LIST_TARGET_RULE)],
		errors: LIST_ERRORS,
		rules: listRules(),
		answer: ok({ cleared: int, list: ref('List') }),
	},
	'/list/rows/get': {
		tag: 'Lists',
		summary: 'Rows of a list',
		description: "A page of a list's rows, oldest or newest first. `listid` or `list` is required.",
		params: { ...LIST_TARGET, ...PAGE_PARAMS, sort: optional(ROW_ORDER, '`old` (default) or `new`.') },
		needs: [LIST_TARGET_RULE],
		errors: LIST_ERRORS,
		rules: listRules(),
		answer: documentedPage(ref('Row')),
	},
	'/list/rows/find': {
		tag: 'Lists',
		summary: 'Rows matching conditions (a scan of the whole list)',
		description:
			'The rows matching `where` (columns combine with AND) or one `column` + `value`, compared in memory across the whole list. Sandbox: the sandbox answers them a page at a time (`limit`, default 20, and `offset`; the documentation names no paging for this method, so a service may answer every match at once): read on until `offset` reaches `total`, or a page comes back empty.',
		methodsNote: {
			method: 'get',
			note: 'The documentation lists /list/rows/find as POST but speaks of its GET form; being a read, the sandbox takes both. The GET form takes `column` and `value` (`where`, an object, goes in the JSON body of POST).',
		},
		params: {
			...LIST_TARGET,
			where: optional(
				dictionary(CELL, 'must be an object of column name to value, with at least one column', { min: 1 }),
				'Column to value; conditions combine with AND.',
			),
			column: optional(ID, 'One condition: column.'),
			value: optional(
				{ schema: CELL, expect: 'must be a string, number, boolean or null' },
				'One condition: value (with `column`).',
			),
			exact: optional(flag, 'False: case-insensitive substring match.', 'Default false.'),
			sort: optional(
				ROW_ORDER,
				'`old` or `new`.',
				'The documentation names no order for /list/rows/find; the sandbox takes `old` (the default) or `new`.',
			),
			limit: PAGE_PARAMS.limit,
			offset: optional(
				integer(0),
				'Items to skip.',
				'The documentation names no paging for /list/rows/find; the sandbox answers a page of `limit` rows (20 by default) from `offset`.',
			),
		},
		exclusive: [['where', 'column']],
		needs: [LIST_TARGET_RULE, [['where'], ['column', 'value']]],
		needsNotes: [needsNote(LIST_TARGET_RULE), needsNote([['where'], ['column', 'value']])],
		dependent: { column: ['value'] },
		errors: { 422: ['not_found', 'unknown_column'] },
		rules: listRules('Give `where` or `column` (one of them); a column the list does not have is 422 unknown_column.'),
		answer: sandbox(
			oneOf(arrayOf(ref('Row')), page(ref('Row'))),
			'The documentation says "rows": the rows as a bare array, or under `items`. The sandbox answers them under `items`, with `total`.',
		),
	},
	'/list/row/add': {
		tag: 'Lists',
		summary: 'Add a row (honours Idempotency-Key)',
		description:
			'Adds one row, given by column name (`row`) or in column order (`values`); at the row cap the oldest row is removed (`trimmed`). Repeating a request with the same Idempotency-Key answers the first answer again and adds nothing.',
		params: {
			...LIST_TARGET_BY_NUMBER,
			row: optional(
				{ schema: ROW_OBJECT, expect: 'must be an object of column name to a string, number, boolean or null' },
				'Column name to value.',
			),
			values: optional(
				{ schema: ROW_VALUES, expect: 'must be an array of strings, numbers, booleans or nulls' },
				'Values in column order.',
				`At most one value per column of the list (otherwise 422 param_conflict): ${VALUES_PER_COLUMN}`,
			),
			...SERVICE_VALUES,
		},
		headers: {
			'Idempotency-Key': optional(
				sandboxLimit(
					{
						schema: { type: 'string', minLength: 1, maxLength: LIMITS.idempotencyKey, pattern: '\\S' },
						expect: `must be a non-empty string of at most ${LIMITS.idempotencyKey} characters`,
						sandbox: NOT_BLANK_NOTE,
					},
					`At most ${LIMITS.idempotencyKey} characters`,
				),
				'A client-chosen unique value: a repeat with the same value (after a network failure) adds no second row.',
				'The sandbox remembers a value for 24 hours of business time, per API key; the same value with another body is 422 idempotency_mismatch.',
			),
		},
		needs: [LIST_TARGET_RULE, ROW_RULE],
		needsNotes: [needsNote(LIST_TARGET_RULE), needsNote(ROW_RULE)],
		exclusive: [['row', 'values']],
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'unknown_column', 'idempotency_mismatch'] },
		rules: listRules('`values` holds at most one value per column of the list (otherwise 422 param_conflict).'),
		answer: object({ row: ref('Row'), trimmed: bool }),
	},
	'/list/rows/add': {
		tag: 'Lists',
		summary: 'Add up to 500 rows at once (all or nothing)',
		description: `Adds 1 to ${LIMITS.rowsPerRequest} rows, each an object (column name to value) or an array (column order); more is refused whole with \`too_many_rows\`.`,
		params: {
			...LIST_TARGET_BY_NUMBER,
			rows: requiredBySandbox(
				list(
					{ anyOf: [ROW_OBJECT, ROW_VALUES] },
					`must be an array of 1 to ${LIMITS.rowsPerRequest} rows, each an object of column name to value or an array of values`,
					{
						min: 1,
						max: LIMITS.rowsPerRequest,
						tooManyCode: 'too_many_rows',
					},
				),
				'Objects or arrays.',
				`More than ${LIMITS.rowsPerRequest} rows are refused whole (422 too_many_rows, nothing added): the documentation states the limit but not what happens beyond it. A row in column order holds at most one value per column (otherwise 422 param_conflict): ${VALUES_PER_COLUMN} ${ALL_OR_NOTHING}`,
			),
			...SERVICE_VALUES_OF_ROWS,
		},
		needs: [LIST_TARGET_RULE],
		needsNotes: [needsNote(LIST_TARGET_RULE)],
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'unknown_column', 'too_many_rows'] },
		rules: listRules(
			'A row in column order holds at most one value per column of the list (otherwise 422 param_conflict).',
		),
		answer: sandboxObject({ rows: arrayOf(ref('Row')), count: int, trimmed: bool, removed: int }),
	},
	'/list/row/edit': {
		tag: 'Lists',
		summary: 'Change a row',
		description: 'Changes the columns given in `row`, or replaces the whole row with `values`.',
		params: {
			...LIST_TARGET_BY_NUMBER,
			rowid: requiredBySandbox(integer(1), 'Row number.'),
			row: optional(
				{ schema: ROW_OBJECT, expect: 'must be an object of column name to a string, number, boolean or null' },
				'Only these columns change.',
			),
			values: optional(
				{ schema: ROW_VALUES, expect: 'must be an array of strings, numbers, booleans or nulls' },
				'The whole row.',
				`Exactly one value per column of the list (otherwise 422 param_conflict): ${VALUES_PER_COLUMN}`,
			),
		},
		needs: [LIST_TARGET_RULE, ROW_RULE],
		needsNotes: [needsNote(LIST_TARGET_RULE), needsNote(ROW_RULE)],
		exclusive: [['row', 'values']],
		errors: { 422: ['not_found', 'unknown_column'] },
		rules: listRules('`values` holds exactly one value per column of the list (otherwise 422 param_conflict).'),
		answer: sandboxObject({ row: ref('Row') }),
	},
	'/list/row/delete': {
		tag: 'Lists',
		summary: 'Delete rows',
		description: 'Deletes one row (`rowid`) or several (`rowids`); every row must exist, or nothing is deleted.',
		params: {
			...LIST_TARGET_BY_NUMBER,
			rowid: optional(integer(1), 'One row.'),
			rowids: optional(
				list({ type: 'integer', minimum: 1 }, 'must be a non-empty array of row numbers (positive integers)', {
					min: 1,
				}),
				'Several rows: JSON integers.',
				ALL_OR_NOTHING,
			),
		},
		needs: [LIST_TARGET_RULE, [['rowid'], ['rowids']]],
		needsNotes: [needsNote(LIST_TARGET_RULE), needsNote([['rowid'], ['rowids']])],
		exclusive: [['rowid', 'rowids']],
		errors: LIST_ERRORS,
		rules: listRules(),
		answer: ok({ deleted: int, rowids: arrayOf(int) }),
	},
};
