import type { IDataObject, IExecuteFunctions, INodeProperties, ResourceMapperValue } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { apiRequest } from '../../transport/request';
import { listRef, recordsOf } from './params';

interface ListShape {
	listid: number;
	headers: string[];
}

/** Lists read once per node run (the run's context object is the cache's key). */
const listsByRun = new WeakMap<object, Map<string, ListShape>>();

/** The number and columns of a list given by `{ listid }` or `{ list }` (name). */
export async function listShape(this: IExecuteFunctions, ref: IDataObject, itemIndex: number): Promise<ListShape> {
	const cacheKey = ref.listid !== undefined ? `#${String(ref.listid)}` : `name:${String(ref.list)}`;
	let cache = listsByRun.get(this);
	if (!cache) listsByRun.set(this, (cache = new Map()));
	if (!cache.has(cacheKey)) {
		const lists = recordsOf(await apiRequest.call(this, { method: 'GET', path: '/list/all', itemIndex }), 'lists');
		for (const list of lists) {
			const shape = {
				listid: Number(list.id),
				headers: Array.isArray(list.headers) ? (list.headers as unknown[]).map(String) : [],
			};
			cache.set(`#${String(list.id)}`, shape);
			cache.set(`name:${String(list.name)}`, shape);
		}
	}
	const shape = cache.get(cacheKey);
	if (!shape) {
		const what = ref.listid !== undefined ? `number ${String(ref.listid)}` : `"${String(ref.list)}"`;
		throw new NodeOperationError(this.getNode(), `There is no list ${what}`, {
			itemIndex,
			description: 'Check the list parameter ("listId"); List → Get Many shows the lists.',
		});
	}
	return shape;
}

/**
 * The row an item maps to, by column name: the values mapped in the node, or the item's own
 * fields that are named like columns ("Map Automatically"). Only the latter needs the list's
 * columns (`headersOf`), to leave out the fields that are not columns: a single mapped row then
 * costs one request, not a list lookup as well.
 */
export async function mappedRow(
	this: IExecuteFunctions,
	itemIndex: number,
	headersOf: () => Promise<string[]>,
): Promise<IDataObject> {
	const mapper = this.getNodeParameter('columns', itemIndex, {
		mappingMode: 'defineBelow',
		value: {},
	}) as ResourceMapperValue;
	const automatic = mapper.mappingMode === 'autoMapInputData';
	const source: IDataObject = automatic ? this.getInputData()[itemIndex].json : ((mapper.value ?? {}) as IDataObject);
	const columns = automatic ? await headersOf() : Object.keys(source);
	const row: IDataObject = {};
	for (const column of columns) {
		const value = source[column];
		if (value === undefined || value === null) continue;
		row[column] = typeof value === 'object' ? JSON.stringify(value) : value;
	}
	if (!Object.keys(row).length) {
		// An empty row would be written (or a row "updated") with none of the item's data: a silent loss.
		throw new NodeOperationError(this.getNode(), 'The row is empty: no value was mapped to a column of the list', {
			itemIndex,
			description: automatic
				? `No field of the input item is named like a column of the list (${columns.join(', ')}). Rename the fields, or map the columns by hand.`
				: 'Every mapped value came out empty. Check the expressions and the input item.',
		});
	}
	return row;
}

/**
 * The resource mapper of list columns, for adding and editing rows. Its mode is "add" for both:
 * the row to edit is chosen by Row ID, not by matching a column, and n8n's "update" mode would
 * ask for a column to match on (none can be) before it shows the columns to fill.
 */
export const columnsField: INodeProperties = {
	displayName: 'Columns',
	name: 'columns',
	type: 'resourceMapper',
	noDataExpression: true,
	default: { mappingMode: 'defineBelow', value: null },
	required: true,
	typeOptions: {
		loadOptionsDependsOn: ['listId.value'],
		resourceMapper: {
			resourceMapperMethod: 'getListColumns',
			mode: 'add',
			fieldWords: { singular: 'column', plural: 'columns' },
			addAllFields: true,
			multiKeyMatch: false,
			supportAutoMap: true,
		},
	},
	description: 'Values by column name. "Map Automatically" takes the input fields named like the columns.',
	hint: 'Columns named CreationDate, ClientID, Messenger and BotID are filled by the service when left empty',
};

/** The list's number; a list given by name is looked up (for methods that take `listid` only). */
export async function listIdOf(this: IExecuteFunctions, itemIndex: number): Promise<number> {
	const ref = listRef.call(this, itemIndex);
	if (typeof ref.listid === 'number') return ref.listid;
	return (await listShape.call(this, ref, itemIndex)).listid;
}
