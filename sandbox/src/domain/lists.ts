import { ApiError } from '../http/errors';
import type { Store } from '../store/store';

/** What a list cell holds. Missing cells are stored as "". */
export type CellValue = string | number | boolean;

export interface ListRow {
	id: number;
	/** Values in the order of the list's headers; always as long as the headers. */
	values: CellValue[];
	created: string;
}

export interface List {
	id: number;
	name: string;
	headers: string[];
	group: string | null;
	/** Ordered by id, oldest first (rows are only appended; deletions keep the order). */
	rows: ListRow[];
	nextRowId: number;
}

export interface ListsState {
	lists: List[];
}

const rowKind = (list: List) => `row/${list.id}`;

/** Lists with their rows in memory, read from the `list` and `row/<id>` records. */
export function listsState(store: Store): ListsState {
	return store.working<ListsState>('lists', () => {
		const lists = store.records<Omit<List, 'rows'>>('list').map(([, stored]) => {
			const list: List = { ...stored, rows: store.records<ListRow>(rowKind(stored as List)).map(([, row]) => row) };
			if (list.rows.some((row, index) => index > 0 && list.rows[index - 1].id >= row.id))
				list.rows.sort((a, b) => a.id - b.id);
			list.nextRowId = Math.max(list.nextRowId, (list.rows.at(-1)?.id ?? 0) + 1);
			store.reserveIds('lists', list.id);
			return list;
		});
		return { lists };
	});
}

/** Writes a list's own fields (not its rows) at commit. */
function saveList(store: Store, list: List): void {
	const { rows: _rows, ...stored } = list;
	store.put('list', list.id, stored);
}

export function saveRow(store: Store, list: List, row: ListRow): void {
	store.put(rowKind(list), row.id, row);
}

/** Deletes every row of the list; row numbers go on from where they were. */
export function clearRows(store: Store, list: List): number {
	const cleared = list.rows.length;
	list.rows = [];
	store.removeKind(rowKind(list));
	return cleared;
}

/** A list as /list/all and /account/summary show it. */
export function listSummary(list: List) {
	return { id: list.id, name: list.name, headers: list.headers, count: list.rows.length, group: list.group };
}

/** A row in both of its forms: `values` by column order and `row` by column name. */
export function renderRow(list: List, row: ListRow) {
	// fromEntries defines own properties, so even a column named "__proto__" is an ordinary key.
	const byName = Object.fromEntries(list.headers.map((header, index) => [header, row.values[index]]));
	return { id: row.id, values: row.values, row: byName, created: row.created };
}

export function findListById(store: Store, id: number): List | undefined {
	return listsState(store).lists.find((list) => list.id === id);
}

export function findListByName(store: Store, name: string): List | undefined {
	return listsState(store).lists.find((list) => list.name === name);
}

/** Creates a list; the name must be unused (422 list_exists). Headers are validated by the caller. */
export function createList(store: Store, spec: { name: string; headers: string[]; group: string | null }): List {
	if (findListByName(store, spec.name)) {
		throw new ApiError(422, 'list_exists', `A list named "${spec.name}" already exists`, { param: 'name' });
	}
	const state = listsState(store);
	const list: List = {
		id: store.nextId('lists'),
		name: spec.name,
		headers: spec.headers,
		group: spec.group,
		rows: [],
		nextRowId: 1,
	};
	state.lists.push(list);
	saveList(store, list);
	return list;
}

/**
 * Columns the service fills by itself when a row is added without them: the creation time in the
 * account's time zone and the subscriber the row was added for.
 */
export interface ServiceValues {
	CreationDate: string;
	ClientID?: string;
	Messenger?: string;
	BotID?: string;
}

/** A row as a caller wrote it, by column position; `undefined` marks a cell the caller did not pass. */
export type RowDraft = (CellValue | undefined)[];

/** Completes a draft: service columns the caller left empty are filled, other empty cells become "". */
export function completeRow(list: List, draft: RowDraft, service: ServiceValues): CellValue[] {
	return list.headers.map((header, index) => {
		const given = draft[index];
		if (given !== undefined && given !== '') return given;
		const filled = Object.hasOwn(service, header) ? service[header as keyof ServiceValues] : undefined;
		return filled ?? '';
	});
}

/**
 * Appends rows, then deletes the oldest rows beyond `rowCap`. Costs O(rows added), plus one
 * splice when the cap is passed. Returns the new rows that remain and how many rows were deleted.
 */
export function appendRows(
	store: Store,
	list: List,
	rows: CellValue[][],
	rowCap: number,
	created: string,
): { added: ListRow[]; removed: number } {
	const added = rows.map((values) => ({ id: list.nextRowId++, values, created }));
	for (const row of added) {
		list.rows.push(row);
		saveRow(store, list, row);
	}
	saveList(store, list);
	const removed = Math.max(0, list.rows.length - rowCap);
	if (removed > 0) {
		list.rows.splice(0, removed);
		store.removeBelow(rowKind(list), list.rows.length > 0 ? list.rows[0].id : list.nextRowId);
	}
	const firstKept = list.rows.length > 0 ? list.rows[0].id : Infinity;
	return { added: added.filter((row) => row.id >= firstKept), removed };
}

/** Position of a row by id, by binary search (rows are ordered by id); -1 when absent. */
export function rowIndex(list: List, rowid: number): number {
	let low = 0;
	let high = list.rows.length - 1;
	while (low <= high) {
		const middle = (low + high) >> 1;
		const id = list.rows[middle].id;
		if (id === rowid) return middle;
		if (id < rowid) low = middle + 1;
		else high = middle - 1;
	}
	return -1;
}

export function deleteRows(store: Store, list: List, rowids: number[]): void {
	for (const rowid of rowids) store.remove(rowKind(list), rowid);
	if (rowids.length === 1) {
		const index = rowIndex(list, rowids[0]);
		if (index >= 0) list.rows.splice(index, 1);
		return;
	}
	const doomed = new Set(rowids);
	list.rows = list.rows.filter((row) => !doomed.has(row.id));
}

export type RowOrder = 'old' | 'new';

/** One page of `rows` (oldest first) in the wanted order, copying only the page. */
export function pageRows<T>(rows: T[], order: RowOrder, offset: number, limit: number): T[] {
	if (order === 'old') return rows.slice(offset, offset + limit);
	const end = Math.max(0, rows.length - offset);
	return rows.slice(Math.max(0, end - limit), end).reverse();
}

export interface RowCondition {
	column: number;
	value: CellValue;
}

/**
 * Rows whose cells meet every condition. Exact: the text forms are equal. Otherwise the cell's
 * text contains the value's text, ignoring case.
 */
export function matchRows(list: List, conditions: RowCondition[], exact: boolean): ListRow[] {
	const wanted = conditions.map(({ column, value }) => ({
		column,
		text: exact ? String(value) : String(value).toLowerCase(),
	}));
	return list.rows.filter((row) =>
		wanted.every(({ column, text }) => {
			const cell = String(row.values[column]);
			return exact ? cell === text : cell.toLowerCase().includes(text);
		}),
	);
}

const creationDateFormats = new Map<string, Intl.DateTimeFormat>();

/** DD.MM.YYYY HH:MM in the given IANA time zone, as the service writes CreationDate. */
export function formatCreationDate(epochMs: number, timeZone: string): string {
	let format = creationDateFormats.get(timeZone);
	if (!format) {
		format = new Intl.DateTimeFormat('en-GB', {
			timeZone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
			hour: '2-digit',
			minute: '2-digit',
			hourCycle: 'h23',
		});
		creationDateFormats.set(timeZone, format);
	}
	const part = Object.fromEntries(format.formatToParts(epochMs).map(({ type, value }) => [type, value]));
	return `${part.day}.${part.month}.${part.year} ${part.hour}:${part.minute}`;
}
