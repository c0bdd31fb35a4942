import { openSandbox, TestClient } from './client';

/** Lists themselves: listing, creation, clearing, and who may do what. */
describe('sandbox lists: /list/all, /list/create, /list/clear, access', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox());
	});
	afterAll(() => close());

	const listNamed = async (name: string) => {
		const all = await api.get('/list/all');
		return (all.body.items as { id: number; name: string; count: number; headers: string[] }[]).find(
			(list) => list.name === name,
		);
	};

	test('the seeded Leads list has the service columns and a few rows', async () => {
		const leads = await listNamed('Leads');
		expect(leads).toEqual({
			id: expect.any(Number),
			name: 'Leads',
			headers: ['CreationDate', 'ClientID', 'Messenger', 'BotID', 'Name', 'Phone'],
			count: 3,
			group: 'grp_sales',
		});
		const rows = await api.get('/list/rows/get', { list: 'Leads' });
		expect(rows.body.total).toBe(3);
		expect(rows.body.items[0].row).toEqual(
			expect.objectContaining({ Name: 'Alice Smith', ClientID: '100001', BotID: 'bot_tg' }),
		);
	});

	test('/list/all filters by project; an unknown project is a 422 naming group', async () => {
		const sales = await api.post('/list/all', { group: 'grp_sales' });
		expect(sales.body.items.map((list: { name: string }) => list.name)).toContain('Leads');
		const support = await api.get('/list/all', { group: 'grp_support' });
		expect(support.body.items.map((list: { name: string }) => list.name)).not.toContain('Leads');
		const unknown = await api.get('/list/all', { group: 'grp_nope' });
		expect(unknown.status).toBe(422);
		expect(unknown.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'group' }));
	});

	test('/list/create makes an empty list with non-Latin headers in a project', async () => {
		const created = await api.post('/list/create', {
			name: 'Заявки',
			headers: ['Имя', 'Телефон', '备注'],
			group: 'grp_support',
		});
		expect(created.status).toBe(200);
		expect(created.body.list).toEqual({
			id: expect.any(Number),
			name: 'Заявки',
			headers: ['Имя', 'Телефон', '备注'],
			count: 0,
			group: 'grp_support',
		});
		expect(await listNamed('Заявки')).toEqual(created.body.list);
		const support = await api.get('/list/all', { group: 'grp_support' });
		expect(support.body.items).toEqual([created.body.list]);
		const added = await api.post('/list/row/add', { list: 'Заявки', row: { Имя: 'Ирина', 备注: 'звонить вечером' } });
		expect(added.body.row.values).toEqual(['Ирина', '', 'звонить вечером']);
	});

	test('a taken name is 422 list_exists and creates nothing', async () => {
		const before = (await api.get('/list/all')).body.items.length;
		const taken = await api.post('/list/create', { name: 'Leads', headers: ['A'] });
		expect(taken.status).toBe(422);
		expect(taken.body).toEqual({ code: 'list_exists', error: expect.stringContaining('Leads'), param: 'name' });
		expect((await api.get('/list/all')).body.items.length).toBe(before);
	});

	test.each([
		[{ headers: ['A'] }, 'missing_param', 'name'],
		[{ name: 'X1' }, 'missing_param', 'headers'],
		[{ name: 'X2', headers: [] }, 'invalid_param', 'headers'],
		[{ name: 'X3', headers: ['A', 'A'] }, 'invalid_param', 'headers'],
		[{ name: 'X4', headers: ['A', '  '] }, 'invalid_param', 'headers'],
		[{ name: 'X5', headers: ['A', 7] }, 'invalid_param', 'headers'],
		[{ name: 'X6', headers: 'A' }, 'invalid_param', 'headers'],
		[{ name: 'X7', headers: ['A'], group: 'grp_nope' }, 'not_found', 'group'],
	])('/list/create %j is a 422 %s naming %s, and nothing is created', async (body, code, param) => {
		const response = await api.post('/list/create', body);
		expect(response.status).toBe(422);
		expect(response.body).toEqual(expect.objectContaining({ code, param, error: expect.any(String) }));
		if ('name' in body) expect(await listNamed(body.name as string)).toBeUndefined();
	});

	test('/list/clear removes every row but keeps the list', async () => {
		const created = await api.post('/list/create', { name: 'To clear', headers: ['A', 'B'] });
		const listid = created.body.list.id;
		await api.post('/list/rows/add', {
			listid,
			rows: [
				['1', '2'],
				['3', '4'],
			],
		});
		const cleared = await api.post('/list/clear', { listid });
		expect(cleared.status).toBe(200);
		expect(cleared.body).toEqual({ ok: true, cleared: 2, list: expect.objectContaining({ id: listid, count: 0 }) });
		expect(await listNamed('To clear')).toEqual(expect.objectContaining({ count: 0, headers: ['A', 'B'] }));
		expect((await api.get('/list/rows/get', { listid })).body).toEqual({ items: [], total: 0 });
		// Row numbers are never reused after a clear.
		const next = await api.post('/list/row/add', { listid, values: ['5', '6'] });
		expect(next.body.row.id).toBe(3);
	});

	test('a list is named by listid or list; unknown or disagreeing ones are 422 naming the parameter', async () => {
		const leads = (await listNamed('Leads'))!;
		const missing = await api.post('/list/clear', {});
		expect(missing.body).toEqual(expect.objectContaining({ code: 'missing_param', param: 'listid' }));
		const unknownId = await api.post('/list/clear', { listid: 9999 });
		expect(unknownId.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'listid' }));
		const badId = await api.get('/list/rows/get', { listid: 'abc' });
		expect(badId.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'listid' }));
		const unknownName = await api.get('/list/rows/get', { list: 'Nope' });
		expect(unknownName.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'list' }));
		const other = await api.post('/list/create', { name: 'Other', headers: ['A'] });
		const disagree = await api.get('/list/rows/get', { listid: other.body.list.id, list: 'Leads' });
		expect(disagree.status).toBe(422);
		expect(disagree.body.param).toBe('list');
		const agree = await api.get('/list/rows/get', { listid: leads.id, list: 'Leads' });
		expect(agree.status).toBe(200);
	});

	test('without a key: 401', async () => {
		const anonymous = api.withKey(undefined);
		expect((await anonymous.get('/list/all')).status).toBe(401);
		expect((await anonymous.post('/list/row/add', { list: 'Leads', values: ['x'] })).status).toBe(401);
	});

	test('write methods refuse GET with 405', async () => {
		const writes = [
			'/list/create',
			'/list/clear',
			'/list/row/add',
			'/list/rows/add',
			'/list/row/edit',
			'/list/row/delete',
		];
		for (const path of writes) {
			const response = await api.get(path, { listid: 1 });
			expect({ path, status: response.status }).toEqual({ path, status: 405 });
		}
	});

	test('lists:read may read but not write (403 naming lists:write); other scopes may not read (403)', async () => {
		const reader = await api.withNewKey(['lists:read']);
		expect((await reader.get('/list/all')).status).toBe(200);
		expect((await reader.get('/list/rows/find', { list: 'Leads', column: 'Name', value: 'alice' })).status).toBe(200);
		const denied = await reader.post('/list/row/add', { list: 'Leads', row: { Name: 'Nobody' } });
		expect(denied.status).toBe(403);
		expect(denied.body).toEqual(expect.objectContaining({ code: 'forbidden', scope: 'lists:write' }));
		expect((await api.get('/list/rows/get', { list: 'Leads' })).body.total).toBe(3);
		const stranger = await api.withNewKey(['catalog:read']);
		const noRead = await stranger.get('/list/all');
		expect(noRead.status).toBe(403);
		expect(noRead.body.scope).toBe('lists:read');
	});

	test('lists are account-wide; a bot-restricted key is refused only for a botid of another bot', async () => {
		const restricted = await api.withNewKey(['lists:read', 'lists:write'], ['bot_wa']);
		const rows = await restricted.get('/list/rows/get', { list: 'Leads' });
		expect(rows.status).toBe(200);
		expect(rows.body.items.some((row) => row.row.BotID === 'bot_tg')).toBe(true);
		const other = await restricted.post('/list/row/add', {
			list: 'Leads',
			row: { Name: 'X' },
			botid: 'bot_tg',
			clientid: '1',
		});
		expect(other.status).toBe(403);
		expect(other.body).toEqual(expect.objectContaining({ code: 'bot_forbidden', param: 'botid' }));
		const own = await restricted.post('/list/row/add', {
			list: 'Leads',
			row: { Name: 'Y' },
			botid: 'bot_wa',
			clientid: '2',
		});
		expect(own.status).toBe(200);
		expect(own.body.row.row.BotID).toBe('bot_wa');
		const total = (await api.get('/list/rows/get', { list: 'Leads' })).body.total;
		expect(total).toBe(4);
		await api.post('/list/row/delete', { list: 'Leads', rowid: own.body.row.id });
	});
});
