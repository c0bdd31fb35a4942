import { createHash, randomUUID } from 'node:crypto';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { Operation } from '../types';
import { listField } from '../common/fields';
import { runInBatches } from '../common/batches';
import { runOfNode } from '../common/runMemory';
import { columnsField, listIdOf, listShape, mappedRow } from '../common/listColumns';
import { apiRequest } from '../../transport/request';
import { requireConfirmed, statedCount } from '../../transport/errors';

/** The service takes at most 500 rows per /list/rows/add request. */
export const ROWS_PER_REQUEST = 500;

/** The service columns a parameter fills when the row does not give them (the documentation's spelling). */
const SERVICE_COLUMNS: Record<string, string> = { botid: 'BotID', clientid: 'ClientID', messenger: 'Messenger' };

/** A cell the service fills itself when a row leaves it so (CreationDate, the service columns). */
const isEmptyCell = (value: unknown) => value === undefined || value === '';

/**
 * The documentation names botid, clientid and messenger as parameters of /list/row/add only: rows sent in bulk carry
 * the Service Columns values themselves, in the columns the list has and the row leaves empty. A key that may not
 * read the lists (only `lists:write`) sends the rows as they are, with the parameters, as a single add does.
 */
async function fillServiceColumns(
	this: IExecuteFunctions,
	shared: IDataObject,
	rows: IDataObject[],
	itemIndex: number,
): Promise<void> {
	const given = Object.entries(SERVICE_COLUMNS).filter(([param]) => !isEmptyCell(shared[param]));
	if (given.length === 0) return;
	let headers: string[];
	try {
		headers = (await listShape.call(this, { listid: shared.listid }, itemIndex)).headers;
	} catch {
		return;
	}
	for (const row of rows)
		for (const [param, column] of given)
			if (headers.includes(column) && isEmptyCell(row[column])) row[column] = shared[param];
}

/**
 * Whether a row the service returned holds the values of the row sent (as text; empty cells the service fills are
 * not compared; a row without `row` cannot be told).
 */
function holdsSentValues(returned: IDataObject | undefined, sent: IDataObject): boolean {
	const stored = returned?.row;
	if (!stored || typeof stored !== 'object' || Array.isArray(stored)) return true;
	return Object.entries(sent).every(
		([column, value]) => isEmptyCell(value) || String((stored as IDataObject)[column]) === String(value),
	);
}

/** What to look at when an add may have taken effect without its answer arriving. */
const ROW_CHECK = 'Look for the row(s) in the list (List Row → Get Many, newest first)';

/**
 * Stable for one item of one run of the node in one execution, so a repeated request never adds
 * the row twice. The run index keeps a node that runs again in the same execution (a loop) from
 * reusing the keys of its earlier runs, which would drop or refuse its new rows.
 */
function idempotencyKey(this: IExecuteFunctions, itemIndex: number): string {
	// Without an execution id, a key of its own (still one for all repeats of this request), never another execution's.
	const source = `${runOfNode.call(this) ?? randomUUID()}:${itemIndex}`;
	return `n8n-${createHash('sha256').update(source).digest('hex').slice(0, 40)}`;
}

export const add: Operation = {
	value: 'add',
	name: 'Add',
	action: 'Add rows to a list',
	description:
		'Adds one row per input item. Many items go in bulk requests of up to 500 rows; a single item is sent with an Idempotency-Key.',
	properties: [
		listField(),
		columnsField,
		{
			displayName: 'Service Columns',
			name: 'service',
			type: 'collection',
			placeholder: 'Add Value',
			default: {},
			description: 'Values for the columns ClientID, Messenger and BotID when the row does not give them',
			options: [
				{
					displayName: 'Bot ID',
					name: 'botid',
					type: 'string',
					default: '',
					description: 'Fills the BotID column when the row does not give it',
				},
				{
					displayName: 'Client ID',
					name: 'clientid',
					type: 'string',
					default: '',
					description: 'Fills the ClientID column when the row does not give it',
				},
				{
					displayName: 'Messenger',
					name: 'messenger',
					type: 'string',
					default: '',
					description: 'Fills the Messenger column when the row does not give it',
				},
			],
		},
	],
	async executeAll(items) {
		return await runInBatches.call(this, items, {
			maxPerRequest: ROWS_PER_REQUEST,
			async prepare(itemIndex) {
				const listid = await listIdOf.call(this, itemIndex);
				const headersOf = async () => (await listShape.call(this, { listid }, itemIndex)).headers;
				const service = this.getNodeParameter('service', itemIndex, {}) as IDataObject;
				const shared: IDataObject = {
					listid,
					botid: service.botid,
					clientid: service.clientid,
					messenger: service.messenger,
				};
				return { key: JSON.stringify(shared), shared, entry: await mappedRow.call(this, itemIndex, headersOf) };
			},
			async single(prepared, itemIndex) {
				const answer = await apiRequest.call(this, {
					method: 'POST',
					path: '/list/row/add',
					params: { ...prepared.shared, row: prepared.entry },
					idempotencyKey: idempotencyKey.call(this, itemIndex),
					check: ROW_CHECK,
					itemIndex,
				});
				return { ...((answer.row as IDataObject) ?? prepared.entry), trimmed: answer.trimmed ?? false };
			},
			async many(shared, rows, itemIndexes) {
				await fillServiceColumns.call(this, shared, rows, itemIndexes[0]);
				const answer = await apiRequest.call(this, {
					method: 'POST',
					path: '/list/rows/add',
					params: { ...shared, rows },
					check: ROW_CHECK,
					itemIndex: itemIndexes[0],
				});
				// At the list's row cap the service deletes the oldest rows: each item of the request says so, as a single add does.
				const trimmed = answer.trimmed === true;
				const returned = Array.isArray(answer.rows) ? (answer.rows as IDataObject[]) : undefined;
				// What the answer confirms (the service's answer is not documented): a count, or the rows it returns
				// (fewer only when the row cap trimmed some of the new ones away at once).
				const confirmed = statedCount(answer, 'count', 'added') ?? (returned && !trimmed ? returned.length : undefined);
				requireConfirmed(this.getNode(), {
					path: '/list/rows/add',
					sent: rows.length,
					confirmed,
					check: ROW_CHECK,
					itemIndex: itemIndexes[0],
				});
				// Rows come back in the order sent; when the row cap removed the first of them at once, the rows returned
				// are the last ones, and the items before say `kept: false`. Without rows, the input row stands in.
				const firstReturned = returned ? rows.length - Math.min(returned.length, rows.length) : rows.length;
				// A returned row that does not hold the values sent at its place means another order (the answer is not
				// documented): no item takes another row's id, and every item says only that its row was added.
				const inOrder =
					returned === undefined ||
					returned
						.slice(0, rows.length - firstReturned)
						.every((back, at) => holdsSentValues(back, rows[firstReturned + at]));
				if (!inOrder) return rows.map((row) => ({ row, added: true, trimmed }));
				return rows.map((row, position) => {
					if (returned && position >= firstReturned) return { ...returned[position - firstReturned], trimmed };
					return returned && trimmed ? { row, added: true, trimmed, kept: false } : { row, added: true, trimmed };
				});
			},
		});
	},
};
