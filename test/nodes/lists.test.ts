import type { IDataObject } from 'n8n-workflow';
import { autoMapColumns, byId, mapColumns, NODE_NAME } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

const byName = (name: string) => ({ __rl: true, mode: 'name', value: name });
const defineBelow = mapColumns;
const autoMap = autoMapColumns;

describe('List and List Row operations', () => {
	let bed: NodeTestBed;
	let listid: number;
	const rows = async (id: number) => (await bed.api.call('/list/rows/get', { listid: id, limit: 1000 })).items;
	const apiLog = (path: string) => bed.api.logOf(path);
	/** A new list with one column N and these values; returns its number and its row IDs. */
	const listWith = async (name: string, values: string[]) => {
		const { list } = await bed.api.call('/list/create', { name, headers: ['N'] });
		await bed.api.call('/list/rows/add', { listid: list.id, rows: values.map((N) => ({ N })) });
		return { id: list.id as number, rowIds: (await rows(list.id)).map((row) => row.id as number) };
	};
	const deleteRowsOf = (id: number) => ({
		resource: 'listRow',
		operation: 'delete',
		listId: byId(id),
		rowIds: '={{ $json.id }}',
	});

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	it('create a list with non-Latin column names; get many shows it', async () => {
		const [created] = await bed.node.json({
			resource: 'list',
			operation: 'create',
			name: 'Заказы',
			headers: 'CreationDate, Имя, Телефон, Город',
			group: byId('grp_sales'),
		});
		expect(created).toMatchObject({ name: 'Заказы', headers: ['CreationDate', 'Имя', 'Телефон', 'Город'] });
		listid = Number(created.id);

		const lists = await bed.node.json({ resource: 'list', operation: 'getMany', group: byId('grp_sales') });
		expect(lists.map((list) => list.name)).toEqual(expect.arrayContaining(['Leads', 'Заказы']));
	});

	it('creating a list with a taken name fails with list_exists', async () => {
		const error = await bed.node.failure({ resource: 'list', operation: 'create', name: 'Leads', headers: 'A' });
		expect(error.context.code).toBe('list_exists');
	});

	it('one item: /list/row/add with an Idempotency-Key; service columns filled', async () => {
		const listLookups = (await apiLog('/list/all')).length;
		const [row] = await bed.node.json(
			{
				resource: 'listRow',
				operation: 'add',
				listId: byId(listid),
				columns: defineBelow({ Имя: '={{ $json.name }}', Телефон: '+7 900' }),
			},
			{ items: [{ name: 'Иван' }] },
		);
		expect(row.row).toMatchObject({ Имя: 'Иван', Телефон: '+7 900', Город: '' });
		expect(String((row.row as IDataObject).CreationDate)).toMatch(/^\d\d\.\d\d\.\d{4} \d\d:\d\d$/);
		expect(row.trimmed).toBe(false);
		expect(await apiLog('/list/row/add')).toHaveLength(1);
		expect((await apiLog('/list/all')).length).toBe(listLookups); // mapped columns need no lookup of the list: one request
	});

	it('1,200 items: bulk requests of at most 500 rows, results paired with their items', async () => {
		const before = (await rows(listid)).length;
		const items = Array.from({ length: 1200 }, (_, n) => ({
			Имя: `name ${n}`,
			Город: `city ${n % 7}`,
			extra: 'ignored',
		}));
		const output = await bed.node.items(
			{ resource: 'listRow', operation: 'add', listId: byId(listid), columns: autoMap },
			{ items },
		);
		expect(output).toHaveLength(1200);
		output.forEach((item, n) => {
			expect(item.pairedItem).toEqual({ item: n });
			expect((item.json.row as IDataObject).Имя).toBe(`name ${n}`);
		});
		expect(await apiLog('/list/rows/add')).toHaveLength(3); // 500 + 500 + 200
		const stored = await bed.api.call('/list/rows/get', { listid, limit: 1 });
		expect(stored.total).toBe(before + 1200);
	});

	it('bulk add with continueOnFail: an item naming a missing list fails alone, the rest are added', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Partial', headers: ['N'] });
		const output = await bed.node.items(
			{ resource: 'listRow', operation: 'add', listId: byId('={{ $json.list }}'), columns: autoMap },
			{
				items: [
					{ list: list.id, N: 'a' },
					{ list: 99999, N: 'b' },
					{ list: list.id, N: 'c' },
				],
				continueOnFail: true,
			},
		);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[1].json.error).toContain('There is no list number 99999');
		expect((output[2].json.row as IDataObject).N).toBe('c');
		const stored = await rows(list.id);
		expect(stored.map((row) => row.row.N)).toEqual(['a', 'c']);
	});

	it('get many: Return All over more than three pages, sorted, by list name', async () => {
		const pagesRead = async (read: () => Promise<unknown>) => {
			const before = (await apiLog('/list/rows/get')).length;
			await read();
			return (await apiLog('/list/rows/get')).length - before;
		};
		let all: IDataObject[] = [];
		const allPages = await pagesRead(async () => {
			all = await bed.node.json({
				resource: 'listRow',
				operation: 'getMany',
				listId: byName('Заказы'),
				returnAll: true,
				sort: 'new',
			});
		});
		expect(all).toHaveLength(1201);
		expect(allPages).toBe(2); // pages of 1,000: every page once, no extra request after the total
		expect(new Set(all.map((row) => row.id)).size).toBe(1201);
		expect((all[0].row as IDataObject).Имя).toBe('name 1199');
		expect((all[1200].row as IDataObject).Имя).toBe('Иван');

		let some: IDataObject[] = [];
		const limitedPages = await pagesRead(async () => {
			some = await bed.node.json({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(listid),
				returnAll: false,
				limit: 5,
			});
		});
		expect(some.map((row) => (row.row as IDataObject).Имя)).toEqual(['Иван', 'name 0', 'name 1', 'name 2', 'name 3']);
		expect(limitedPages).toBe(1); // Limit stops early
	});

	it('a list number the node cannot send exactly (past 2^53) or that is not digits fails naming the field; nothing is asked', async () => {
		const before = (await bed.api.call('/log/get', { limit: 1 })).total as number;
		for (const value of ['9007199254740993', '12abc', '0x1f']) {
			const error = await bed.node.failure({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(value),
				returnAll: true,
			});
			expect(error.message).toBe(`The field "List" must be a list number, got "${value}"`);
		}
		expect((await bed.api.call('/log/get', { limit: 1 })).total).toBe(before + 1);
	});

	it('find: exact and substring conditions', async () => {
		const exact = await bed.node.json({
			resource: 'listRow',
			operation: 'find',
			listId: byId(listid),
			conditions: { values: [{ column: 'Имя', value: 'name 7' }] },
			exact: true,
			returnAll: true,
		});
		expect(exact.map((row) => (row.row as IDataObject).Имя)).toEqual(['name 7']);

		const partial = await bed.node.json({
			resource: 'listRow',
			operation: 'find',
			listId: byId(listid),
			conditions: {
				values: [
					{ column: 'Имя', value: 'NAME 11' },
					{ column: 'Город', value: 'city 0' },
				],
			},
			exact: false,
			returnAll: true,
		});
		const expected = Array.from({ length: 1200 }, (_, n) => n).filter(
			(n) => `name ${n}`.includes('name 11') && n % 7 === 0,
		);
		expect(partial.map((row) => (row.row as IDataObject).Имя).sort()).toEqual(expected.map((n) => `name ${n}`).sort());
	});

	it('update: only mapped columns, or the whole row', async () => {
		const [first] = await rows(listid);
		await bed.node.json({
			resource: 'listRow',
			operation: 'update',
			listId: byId(listid),
			rowId: String(first.id),
			change: 'partial',
			columns: defineBelow({ Город: 'Казань' }),
		});
		let [stored] = await rows(listid);
		expect(stored.row).toMatchObject({ Имя: 'Иван', Город: 'Казань', Телефон: '+7 900' });

		await bed.node.json({
			resource: 'listRow',
			operation: 'update',
			listId: byId(listid),
			rowId: String(first.id),
			change: 'whole',
			columns: defineBelow({ Имя: 'Пётр' }),
		});
		[stored] = await rows(listid);
		expect(stored.values).toEqual(['', 'Пётр', '', '']);
	});

	it('delete: many items in one request', async () => {
		const current = await rows(listid);
		const ids = current.slice(0, 4).map((row) => row.id);
		const before = (await apiLog('/list/row/delete')).length;
		const output = await bed.node.items(
			{ resource: 'listRow', operation: 'delete', listId: byId(listid), rowIds: '={{ $json.ids }}' },
			{ items: [{ ids: [ids[0], ids[1]] }, { ids: String(ids[2]) }, { ids: [ids[3]] }] },
		);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect((await apiLog('/list/row/delete')).length - before).toBe(1);
		const remaining = new Set((await rows(listid)).map((row) => row.id));
		for (const id of ids) expect(remaining.has(id)).toBe(false);
	});

	it('delete with continueOnFail: a row that is gone fails alone, the other rows are deleted', async () => {
		const list = await listWith('Stale rows', ['0', '1', '2', '3', '4', '5']);
		const ids = list.rowIds;
		const items = [...ids.slice(0, 3), 999999, ...ids.slice(3)].map((id) => ({ id }));
		const before = (await apiLog('/list/row/delete')).length;
		const output = await bed.node.items(deleteRowsOf(list.id), { items, continueOnFail: true });
		expect(output.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		expect(output[3].json.details).toMatchObject({ code: 'not_found', status: 422, param: 'rowids' });
		output.forEach((item, n) => n !== 3 && expect(item.json).toMatchObject({ deleted: true, rowids: [items[n].id] }));
		expect(await rows(list.id)).toEqual([]);
		// The refused request is halved until the stale row is alone: at most two requests per halving.
		expect((await apiLog('/list/row/delete')).length - before).toBeLessThanOrEqual(
			1 + 2 * Math.ceil(Math.log2(items.length)),
		);
	});

	it('"Continue (using error output)": the failed item of a bulk request goes to the error output', async () => {
		const list = await listWith('Error output', ['a', 'b']);
		const ids = list.rowIds;
		const result = await bed.node.execute(deleteRowsOf(list.id), {
			items: [{ id: ids[0] }, { id: 999999 }, { id: ids[1] }],
			errorOutput: true,
		});
		expect(result.output(NODE_NAME, 0).map((item) => item.json.rowids)).toEqual([[ids[0]], [ids[1]]]);
		const failed = result.output(NODE_NAME, 1);
		expect(failed.map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
		expect(failed[0].json).toMatchObject({ id: 999999, details: { code: 'not_found', status: 422 } }); // the input item's fields and the failure
	});

	it('"Continue (using error output)": a failed item of a per-item operation goes to the error output', async () => {
		const result = await bed.node.execute(
			{ resource: 'listRow', operation: 'getMany', listId: byId('={{ $json.list }}'), returnAll: false, limit: 1 },
			{ items: [{ list: listid }, { list: 999999 }], errorOutput: true },
		);
		expect(result.output(NODE_NAME, 0).map((item) => item.pairedItem)).toEqual([{ item: 0 }]);
		expect(result.output(NODE_NAME, 1).map((item) => item.pairedItem)).toEqual([{ item: 1 }]);
		expect(result.output(NODE_NAME, 1)[0].json).toMatchObject({ list: 999999, details: { code: 'not_found' } });
	});

	it('delete without continueOnFail: a row that is gone fails the node and nothing is deleted', async () => {
		const list = await listWith('Stale rows strict', ['a', 'b']);
		const ids = list.rowIds;
		const error = await bed.node.failure(deleteRowsOf(list.id), {
			items: [{ id: ids[0] }, { id: 999999 }, { id: ids[1] }],
		});
		expect(error.context).toMatchObject({ code: 'not_found', param: 'rowids' });
		expect(await rows(list.id)).toHaveLength(2);
	});

	it('clear empties the list, which stays', async () => {
		await bed.node.json({ resource: 'list', operation: 'clear', listId: byName('Заказы') });
		const after = await bed.api.call('/list/rows/get', { listid, limit: 1 });
		expect(after.total).toBe(0);
		const lists = await bed.api.call('/list/all');
		expect(lists.items.map((list: { id: number }) => list.id)).toContain(listid);
	});
});

describe("List Row → Add at the list's row cap", () => {
	let bed: NodeTestBed;
	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0, rowCap: 3 });
	});
	afterAll(async () => bed.close());

	it('a bulk add that makes the service delete the oldest rows says so on its items, like a single add', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Capped', headers: ['N'] });
		await bed.api.call('/list/rows/add', { listid: list.id, rows: [{ N: 'old 1' }, { N: 'old 2' }] });
		const output = await bed.node.json(
			{
				resource: 'listRow',
				operation: 'add',
				listId: { __rl: true, mode: 'id', value: String(list.id) },
				columns: autoMapColumns,
			},
			{ items: [{ N: 'new 1' }, { N: 'new 2' }] },
		);
		const stored = (await bed.api.call('/list/rows/get', { listid: list.id, limit: 100 })).items;
		// Cap 3, 2 + 2 rows: the service deleted "old 1" to make room.
		expect(stored.map((row) => row.row?.N ?? row.N)).toEqual(['old 2', 'new 1', 'new 2']);
		expect(output.map((item) => item.trimmed)).toEqual([true, true]);
	});

	it('a bulk add below the cap reports trimmed false', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Roomy', headers: ['N'] });
		const output = await bed.node.json(
			{
				resource: 'listRow',
				operation: 'add',
				listId: { __rl: true, mode: 'id', value: String(list.id) },
				columns: autoMapColumns,
			},
			{ items: [{ N: 'a' }, { N: 'b' }] },
		);
		expect(output.map((item) => item.trimmed)).toEqual([false, false]);
	});
});
