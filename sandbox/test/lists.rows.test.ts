import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSandbox, TestClient } from './client';

/** DD.MM.YYYY HH:MM of an instant in Asia/Kathmandu (UTC+05:45, no daylight saving), computed without Intl. */
function kathmanduTime(iso: string): string {
	const local = new Date(Date.parse(iso) + (5 * 60 + 45) * 60_000);
	const two = (value: number) => String(value).padStart(2, '0');
	return `${two(local.getUTCDate())}.${two(local.getUTCMonth() + 1)}.${local.getUTCFullYear()} ${two(local.getUTCHours())}:${two(local.getUTCMinutes())}`;
}

const HEADERS = ['CreationDate', 'ClientID', 'Messenger', 'BotID', 'Name', 'Phone'];

async function newList(api: TestClient, name: string, headers: string[] = HEADERS): Promise<number> {
	const created = await api.post('/list/create', { name, headers });
	expect(created.status).toBe(200);
	return created.body.list.id;
}

async function allRows(api: TestClient, listid: number) {
	const response = await api.get('/list/rows/get', { listid, limit: 1000 });
	expect(response.status).toBe(200);
	return response.body as {
		items: { id: number; values: unknown[]; row: Record<string, unknown>; created: string }[];
		total: number;
	};
}

describe('sandbox list rows: add, get, find, edit, delete', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox({ timezone: 'Asia/Kathmandu' }));
	});
	afterAll(() => close());

	test('/list/row/add by column names fills the service columns in the account time zone', async () => {
		const listid = await newList(api, 'Service columns');
		const added = await api.post('/list/row/add', {
			listid,
			row: { Name: 'Anna', Phone: '+1555' },
			clientid: '42',
			messenger: 'telegram',
			botid: 'bot_tg',
		});
		expect(added.status).toBe(200);
		const { row } = added.body;
		expect(added.body.trimmed).toBe(false);
		expect(Date.parse(row.created)).not.toBeNaN();
		expect(row.created).toMatch(/Z$/);
		expect(row).toEqual({
			id: 1,
			values: [kathmanduTime(row.created), '42', 'telegram', 'bot_tg', 'Anna', '+1555'],
			row: {
				CreationDate: kathmanduTime(row.created),
				ClientID: '42',
				Messenger: 'telegram',
				BotID: 'bot_tg',
				Name: 'Anna',
				Phone: '+1555',
			},
			created: row.created,
		});
		expect((await allRows(api, listid)).items).toEqual([row]);
	});

	test('service columns the caller passes are kept; empty ones are filled; without parameters they stay empty', async () => {
		const listid = await newList(api, 'Service columns given');
		const given = await api.post('/list/row/add', {
			listid,
			values: ['01.01.2020 10:00', 'own-client', '', null, 'Boris'],
			clientid: '7',
			messenger: 'whatsapp',
			botid: 'bot_wa',
		});
		expect(given.body.row.values).toEqual(['01.01.2020 10:00', 'own-client', 'whatsapp', 'bot_wa', 'Boris', '']);
		const bare = await api.post('/list/row/add', { listid, row: { Name: 'Clara' } });
		expect(bare.body.row.values).toEqual([kathmanduTime(bare.body.row.created), '', '', '', 'Clara', '']);
	});

	test('a list without service columns gets no extra values', async () => {
		const listid = await newList(api, 'Plain', ['Product', 'Qty']);
		const added = await api.post('/list/row/add', { listid, values: ['Tea', 3], clientid: '9', botid: 'bot_tg' });
		expect(added.body.row).toEqual(expect.objectContaining({ values: ['Tea', 3], row: { Product: 'Tea', Qty: 3 } }));
	});

	test.each([
		[{ row: { Name: 'x', Email: 'e' } }, 'unknown_column', 'row', 'Email'],
		[{ values: ['1', '2', '3', '4', '5', '6', '7'] }, 'param_conflict', 'values', undefined],
		[{ row: { Name: { first: 'x' } } }, 'invalid_param', 'row', undefined],
		[{ row: { Name: 'x' }, values: ['x'] }, 'invalid_param', 'values', undefined],
		[{}, 'missing_param', 'row', undefined],
		[{ row: 'Name=x' }, 'invalid_param', 'row', undefined],
		[{ row: { Name: 'x' }, botid: 'bot_nope' }, 'not_found', 'botid', undefined],
	])('/list/row/add %j is a 422 %s naming %s and adds nothing', async (body, code, param, column) => {
		const listid = await newList(api, `Bad add ${JSON.stringify(body)}`);
		const response = await api.post('/list/row/add', { listid, ...body });
		expect(response.status).toBe(422);
		expect(response.body).toEqual(expect.objectContaining({ code, param, error: expect.any(String) }));
		if (column) {
			expect(response.body.column).toBe(column);
			expect(response.body.error).toContain(column);
		}
		expect((await allRows(api, listid)).total).toBe(0);
	});

	test('/list/rows/add takes objects and arrays, fills service columns, and answers the new rows', async () => {
		const listid = await newList(api, 'Bulk');
		const response = await api.post('/list/rows/add', {
			listid,
			rows: [{ Name: 'A' }, ['', '', '', '', 'B', '+2']],
			clientid: '5',
			messenger: 'telegram',
			botid: 'bot_tg',
		});
		expect(response.status).toBe(200);
		const date = kathmanduTime(response.body.rows[0].created);
		expect(response.body).toEqual({
			rows: [
				expect.objectContaining({ id: 1, values: [date, '5', 'telegram', 'bot_tg', 'A', ''] }),
				expect.objectContaining({
					id: 2,
					values: [date, '5', 'telegram', 'bot_tg', 'B', '+2'],
					row: expect.objectContaining({ Phone: '+2' }),
				}),
			],
			count: 2,
			trimmed: false,
			removed: 0,
		});
		expect((await allRows(api, listid)).items).toEqual(response.body.rows);
	});

	test('/list/rows/add takes exactly 500 rows; 501 are refused whole with too_many_rows', async () => {
		const listid = await newList(api, 'Limit', ['N']);
		const rows = (count: number) => Array.from({ length: count }, (_, index) => [String(index)]);
		const tooMany = await api.post('/list/rows/add', { listid, rows: rows(501) });
		expect(tooMany.status).toBe(422);
		expect(tooMany.body).toEqual(expect.objectContaining({ code: 'too_many_rows', param: 'rows', max: 500 }));
		expect((await allRows(api, listid)).total).toBe(0);
		const exactly = await api.post('/list/rows/add', { listid, rows: rows(500) });
		expect(exactly.status).toBe(200);
		expect(exactly.body.count).toBe(500);
		expect((await allRows(api, listid)).total).toBe(500);
	});

	test('/list/rows/add validates every row before writing any', async () => {
		const listid = await newList(api, 'All or nothing', ['Name', 'Phone']);
		const rows: unknown[] = Array.from({ length: 300 }, (_, index) => ({ Name: `n${index}` }));
		rows[250] = { Name: 'bad', Fax: '1' };
		const badColumn = await api.post('/list/rows/add', { listid, rows });
		expect(badColumn.status).toBe(422);
		expect(badColumn.body).toEqual(
			expect.objectContaining({ code: 'unknown_column', param: 'rows[250]', column: 'Fax' }),
		);
		const tooLong = await api.post('/list/rows/add', {
			listid,
			rows: [
				['a', 'b'],
				['a', 'b', 'c'],
			],
		});
		expect(tooLong.body).toEqual(expect.objectContaining({ code: 'param_conflict', param: 'rows[1]' }));
		const notRow = await api.post('/list/rows/add', { listid, rows: [['a'], 5] });
		expect(notRow.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'rows[1]' }));
		const empty = await api.post('/list/rows/add', { listid, rows: [] });
		expect(empty.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'rows' }));
		const missing = await api.post('/list/rows/add', { listid });
		expect(missing.body).toEqual(expect.objectContaining({ code: 'missing_param', param: 'rows' }));
		expect((await allRows(api, listid)).total).toBe(0);
	});

	describe('reading pages', () => {
		let listid: number;
		beforeAll(async () => {
			listid = await newList(api, 'Pages', ['N']);
			await api.post('/list/rows/add', { listid, rows: Array.from({ length: 25 }, (_, index) => [index + 1]) });
		});

		test('the default order is oldest first, 20 per page, with the total', async () => {
			const first = await api.get('/list/rows/get', { listid });
			expect(first.body.total).toBe(25);
			expect(first.body.items.map((row) => row.values[0])).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
			const rest = await api.post('/list/rows/get', { listid, offset: 20, limit: 10 });
			expect(rest.body.items.map((row: { id: number }) => row.id)).toEqual([21, 22, 23, 24, 25]);
			const beyond = await api.get('/list/rows/get', { listid, offset: 30 });
			expect(beyond.body).toEqual({ items: [], total: 25 });
		});

		test('sort=new pages from the newest row', async () => {
			const newest = await api.get('/list/rows/get', { listid, sort: 'new', limit: 3 });
			expect(newest.body.items.map((row: { id: number }) => row.id)).toEqual([25, 24, 23]);
			const tail = await api.get('/list/rows/get', { listid, sort: 'new', limit: 10, offset: 20 });
			expect(tail.body.items.map((row: { id: number }) => row.id)).toEqual([5, 4, 3, 2, 1]);
		});

		test.each([
			[{ sort: 'newest' }, 'sort'],
			[{ limit: 1001 }, 'limit'],
			[{ limit: 0 }, 'limit'],
			[{ offset: -1 }, 'offset'],
		])('%j is a 422 naming %s', async (query, param) => {
			const response = await api.get('/list/rows/get', { listid, ...query });
			expect(response.status).toBe(422);
			expect(response.body.param).toBe(param);
		});
	});

	describe('/list/rows/find', () => {
		let listid: number;
		beforeAll(async () => {
			listid = await newList(api, 'Find', ['Name', 'City', 'Score']);
			await api.post('/list/rows/add', {
				listid,
				rows: [
					['Anna Smith', 'Berlin', 5],
					['ANNA Lee', 'Paris', 7],
					['Bob', 'Berlin', 5],
					['Анна', 'Москва', 9],
				],
			});
		});
		const names = (body: { items: { row: Record<string, unknown> }[] }) => body.items.map((item) => item.row.Name);

		test('the default is a case-insensitive substring match; exact=true compares whole values', async () => {
			const loose = await api.post('/list/rows/find', { listid, column: 'Name', value: 'anna' });
			expect(loose.status).toBe(200);
			expect(names(loose.body)).toEqual(['Anna Smith', 'ANNA Lee']);
			expect(loose.body.total).toBe(2);
			expect(loose.body.items[0]).toEqual({
				id: 1,
				values: ['Anna Smith', 'Berlin', 5],
				row: { Name: 'Anna Smith', City: 'Berlin', Score: 5 },
				created: expect.any(String),
			});
			const exact = await api.post('/list/rows/find', { listid, column: 'Name', value: 'anna', exact: true });
			expect(exact.body).toEqual({ items: [], total: 0 });
			const whole = await api.post('/list/rows/find', { listid, column: 'Name', value: 'Bob', exact: true });
			expect(names(whole.body)).toEqual(['Bob']);
			const cyrillic = await api.post('/list/rows/find', { listid, column: 'City', value: 'МОСК' });
			expect(names(cyrillic.body)).toEqual(['Анна']);
		});

		test('where combines conditions with AND; numbers match their text', async () => {
			const both = await api.post('/list/rows/find', { listid, where: { City: 'berlin', Score: 5 } });
			expect(names(both.body)).toEqual(['Anna Smith', 'Bob']);
			const narrower = await api.post('/list/rows/find', { listid, where: { City: 'Berlin', Name: 'ann' } });
			expect(names(narrower.body)).toEqual(['Anna Smith']);
			const exactScore = await api.post('/list/rows/find', { list: 'Find', where: { Score: '9' }, exact: true });
			expect(names(exactScore.body)).toEqual(['Анна']);
		});

		test('the GET form takes column and value in the query, with paging and order', async () => {
			const viaGet = await api.get('/list/rows/find', { list: 'Find', column: 'City', value: 'Berlin', exact: 'true' });
			expect(names(viaGet.body)).toEqual(['Anna Smith', 'Bob']);
			const paged = await api.get('/list/rows/find', { listid, column: 'City', value: 'r', sort: 'new', limit: 2 });
			expect(paged.body.total).toBe(3);
			expect(names(paged.body)).toEqual(['Bob', 'ANNA Lee']);
		});

		test.each([
			[{ column: 'Town', value: 'x' }, 'unknown_column', 'column'],
			[{ where: { Name: 'a', Town: 'x' } }, 'unknown_column', 'where'],
			[{ column: 'Name' }, 'missing_param', 'value'],
			[{}, 'missing_param', 'where'],
			[{ where: {} }, 'invalid_param', 'where'],
			[{ where: { Name: 'a' }, column: 'Name', value: 'a' }, 'invalid_param', 'column'],
			[{ where: { Name: ['a'] } }, 'invalid_param', 'where'],
			[{ column: 'Name', value: 'a', exact: 'maybe' }, 'invalid_param', 'exact'],
		])('%j is a 422 %s naming %s', async (body, code, param) => {
			const response = await api.post('/list/rows/find', { listid, ...body });
			expect(response.status).toBe(422);
			expect(response.body).toEqual(expect.objectContaining({ code, param }));
			if (code === 'unknown_column') expect(response.body.error).toContain('Town');
		});
	});

	describe('/list/row/edit and /list/row/delete', () => {
		let listid: number;
		beforeEach(async () => {
			listid = await newList(api, `Edit ${Date.now()} ${Math.random()}`, ['Name', 'Phone', 'Note']);
			await api.post('/list/rows/add', {
				listid,
				rows: [
					['A', '1', 'a'],
					['B', '2', 'b'],
					['C', '3', 'c'],
					['D', '4', 'd'],
				],
			});
		});

		test('a row object changes only the named columns', async () => {
			const edited = await api.post('/list/row/edit', { listid, rowid: 2, row: { Phone: '+22', Note: null } });
			expect(edited.status).toBe(200);
			expect(edited.body.row).toEqual(
				expect.objectContaining({ id: 2, values: ['B', '+22', ''], row: { Name: 'B', Phone: '+22', Note: '' } }),
			);
			const rows = await allRows(api, listid);
			expect(rows.items.map((row) => row.values)).toEqual([
				['A', '1', 'a'],
				['B', '+22', ''],
				['C', '3', 'c'],
				['D', '4', 'd'],
			]);
		});

		test('a values array replaces the whole row and must have one value per column', async () => {
			const replaced = await api.post('/list/row/edit', { listid, rowid: 3, values: ['Z', '9', 'z'] });
			expect(replaced.body.row.values).toEqual(['Z', '9', 'z']);
			const short = await api.post('/list/row/edit', { listid, rowid: 3, values: ['only'] });
			expect(short.status).toBe(422);
			expect(short.body).toEqual(
				expect.objectContaining({
					code: 'param_conflict',
					param: 'values',
					error: expect.stringContaining('3 columns'),
				}),
			);
			expect((await allRows(api, listid)).items[2].values).toEqual(['Z', '9', 'z']);
		});

		test.each([
			[{ rowid: 2, row: { Fax: '1' } }, 'unknown_column', 'row'],
			[{ rowid: 99, row: { Name: 'x' } }, 'not_found', 'rowid'],
			[{ row: { Name: 'x' } }, 'missing_param', 'rowid'],
			[{ rowid: 2 }, 'missing_param', 'row'],
			[{ rowid: 2, values: ['a', 'b', 'c', 'd'] }, 'param_conflict', 'values'],
		])('/list/row/edit %j is a 422 %s naming %s and changes nothing', async (body, code, param) => {
			const response = await api.post('/list/row/edit', { listid, ...body });
			expect(response.status).toBe(422);
			expect(response.body).toEqual(expect.objectContaining({ code, param }));
			expect((await allRows(api, listid)).items.map((row) => row.values[0])).toEqual(['A', 'B', 'C', 'D']);
		});

		test('rowid deletes one row, rowids several', async () => {
			const one = await api.post('/list/row/delete', { listid, rowid: 2 });
			expect(one.body).toEqual({ ok: true, deleted: 1, rowids: [2] });
			const many = await api.post('/list/row/delete', { listid, rowids: [4, 1, 4] });
			expect(many.body).toEqual({ ok: true, deleted: 2, rowids: [4, 1] });
			expect((await allRows(api, listid)).items.map((row) => row.id)).toEqual([3]);
		});

		test.each([
			[{ rowids: [1, 99] }, 'not_found', 'rowids'],
			[{ rowid: 99 }, 'not_found', 'rowid'],
			[{ rowids: [1, 'x'] }, 'invalid_param', 'rowids'],
			[{ rowids: [] }, 'invalid_param', 'rowids'],
			[{ rowid: 1, rowids: [2] }, 'invalid_param', 'rowids'],
			[{}, 'missing_param', 'rowid'],
		])('/list/row/delete %j is a 422 %s naming %s and deletes nothing', async (body, code, param) => {
			const response = await api.post('/list/row/delete', { listid, ...body });
			expect(response.status).toBe(422);
			expect(response.body).toEqual(expect.objectContaining({ code, param }));
			expect((await allRows(api, listid)).total).toBe(4);
		});
	});

	describe('Idempotency-Key on /list/row/add', () => {
		let listid: number;
		beforeAll(async () => {
			listid = await newList(api, 'Idempotent', ['Name']);
		});

		test('the same key and body answer the first response again without a second row', async () => {
			const body = { listid, row: { Name: 'Once' } };
			const first = await api.post('/list/row/add', body, { 'Idempotency-Key': 'item-1' });
			const again = await api.post('/list/row/add', body, { 'Idempotency-Key': 'item-1' });
			expect(first.status).toBe(200);
			expect(again.status).toBe(200);
			expect(again.body).toEqual(first.body);
			expect((await allRows(api, listid)).total).toBe(1);
			// Key order in the body does not matter; it is the same request.
			const reordered = await api.post(
				'/list/row/add',
				{ row: { Name: 'Once' }, listid },
				{ 'Idempotency-Key': 'item-1' },
			);
			expect(reordered.body).toEqual(first.body);
			expect((await allRows(api, listid)).total).toBe(1);
		});

		test('the same key with another body is 422 idempotency_mismatch and adds nothing', async () => {
			await api.post('/list/row/add', { listid, row: { Name: 'First' } }, { 'Idempotency-Key': 'item-2' });
			const before = (await allRows(api, listid)).total;
			const other = await api.post(
				'/list/row/add',
				{ listid, row: { Name: 'Second' } },
				{ 'Idempotency-Key': 'item-2' },
			);
			expect(other.status).toBe(422);
			expect(other.body).toEqual(expect.objectContaining({ code: 'idempotency_mismatch', param: 'Idempotency-Key' }));
			expect((await allRows(api, listid)).total).toBe(before);
		});

		test('a failed request is not remembered, and a blank key is refused', async () => {
			const failed = await api.post(
				'/list/row/add',
				{ listid, row: { Nmae: 'typo' } },
				{ 'Idempotency-Key': 'item-3' },
			);
			expect(failed.status).toBe(422);
			const fixed = await api.post('/list/row/add', { listid, row: { Nmae: 'typo' } }, { 'Idempotency-Key': 'item-3' });
			expect(fixed.body.code).toBe('unknown_column');
			const blank = await api.post('/list/row/add', { listid, row: { Name: 'x' } }, { 'Idempotency-Key': ' ' });
			expect(blank.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'Idempotency-Key' }));
		});

		test('without the header every call adds a row', async () => {
			const before = (await allRows(api, listid)).total;
			await api.post('/list/row/add', { listid, row: { Name: 'Twice' } });
			await api.post('/list/row/add', { listid, row: { Name: 'Twice' } });
			expect((await allRows(api, listid)).total).toBe(before + 2);
		});

		test('another API key using the same Idempotency-Key value gets its own row', async () => {
			const created = await api.post('/key/create', { name: 'second writer', scopes: ['lists:write', 'lists:read'] });
			const second = api.withKey(created.body.key.key);
			const body = { listid, row: { Name: 'Shared key value' } };
			const mine = await api.post('/list/row/add', body, { 'Idempotency-Key': 'shared' });
			const theirs = await second.post('/list/row/add', body, { 'Idempotency-Key': 'shared' });
			expect(theirs.body.row.id).not.toBe(mine.body.row.id);
		});
	});
});

describe('sandbox list rows: the row cap', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox({ rowCap: 3, seed: false }));
	});
	afterAll(() => close());

	test('/list/row/add at the cap deletes the oldest row and answers trimmed: true', async () => {
		const listid = await newList(api, 'Capped', ['N']);
		for (const n of ['1', '2', '3']) {
			const added = await api.post('/list/row/add', { listid, values: [n] });
			expect(added.body.trimmed).toBe(false);
		}
		const fourth = await api.post('/list/row/add', { listid, values: ['4'] });
		expect(fourth.body).toEqual({ row: expect.objectContaining({ id: 4, values: ['4'] }), trimmed: true });
		const rows = await allRows(api, listid);
		expect(rows.total).toBe(3);
		expect(rows.items.map((row) => row.values[0])).toEqual(['2', '3', '4']);
		const all = await api.get('/list/all');
		expect(all.body.items[0].count).toBe(3);
	});

	test('/list/rows/add past the cap trims the oldest rows, reporting how many', async () => {
		const listid = await newList(api, 'Capped bulk', ['N']);
		await api.post('/list/rows/add', { listid, rows: [['a'], ['b']] });
		const more = await api.post('/list/rows/add', { listid, rows: [['c'], ['d']] });
		expect(more.body).toEqual({
			rows: [expect.objectContaining({ values: ['c'] }), expect.objectContaining({ values: ['d'] })],
			count: 2,
			trimmed: true,
			removed: 1,
		});
		expect((await allRows(api, listid)).items.map((row) => row.values[0])).toEqual(['b', 'c', 'd']);
		// More rows than the cap in one request: only the newest stay, and only they are answered.
		const flood = await api.post('/list/rows/add', { listid, rows: [['e'], ['f'], ['g'], ['h'], ['i']] });
		expect(flood.body.count).toBe(5);
		expect(flood.body.removed).toBe(5);
		expect(flood.body.rows.map((row) => row.values[0])).toEqual(['g', 'h', 'i']);
		expect((await allRows(api, listid)).items.map((row) => row.values[0])).toEqual(['g', 'h', 'i']);
	});
});

describe('sandbox list rows: Idempotency-Key over time and restarts', () => {
	let directory: string;
	beforeAll(() => {
		directory = mkdtempSync(join(tmpdir(), 'sandbox-lists-'));
	});
	afterAll(() => rmSync(directory, { recursive: true, force: true }));

	test('a remembered key survives a restart and is forgotten after 24 hours of business time', async () => {
		const options = { dataFile: join(directory, 'state.db'), adminKey: 'mbb_lists_test_account_key' };
		const first = await openSandbox(options);
		const listid = await newList(first.api, 'Durable', ['Name']);
		const body = { listid, row: { Name: 'Kept' } };
		const original = await first.api.post('/list/row/add', body, { 'Idempotency-Key': 'durable-1' });
		expect(original.status).toBe(200);
		await first.close();

		const second = await openSandbox(options);
		const sandboxRoutes = new TestClient(second.sandbox.url, second.sandbox.adminKey);
		const advance = async (advanceSeconds: number) => {
			expect((await sandboxRoutes.post('/sandbox/clock', { advanceSeconds })).status).toBe(200);
		};
		try {
			const replay = await second.api.post('/list/row/add', body, { 'Idempotency-Key': 'durable-1' });
			expect(replay.body).toEqual(original.body);
			expect((await allRows(second.api, listid)).total).toBe(1);
			await advance(23 * 3600);
			const stillRemembered = await second.api.post('/list/row/add', body, { 'Idempotency-Key': 'durable-1' });
			expect(stillRemembered.body).toEqual(original.body);
			await advance(3601);
			const afterDay = await second.api.post('/list/row/add', body, { 'Idempotency-Key': 'durable-1' });
			expect(afterDay.status).toBe(200);
			expect(afterDay.body.row.id).toBe(2);
			expect((await allRows(second.api, listid)).total).toBe(2);
		} finally {
			await second.close();
		}
	});
});
