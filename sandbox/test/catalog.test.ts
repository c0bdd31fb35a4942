import type { RunningSandbox } from '../src';
import { openSandbox, TestClient } from './client';

interface CatalogFile {
	webapp: { id: string; name: string };
	generated: string;
	items: Record<string, unknown>[];
}

describe('sandbox catalog: items, bulk operations, download links, web apps', () => {
	let sandbox: RunningSandbox;
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ sandbox, api, close } = await openSandbox());
	});
	afterAll(() => close());

	/** The catalog as its download link serves it right now. */
	const catalog = async (webappid: string | number = 1): Promise<CatalogFile> => {
		const link = await api.get('/catalog/get', { webappid });
		expect(link.status).toBe(200);
		const file = await fetch(link.body.link);
		expect(file.status).toBe(200);
		return (await file.json()) as CatalogFile;
	};
	const itemById = async (id: number) => (await catalog()).items.find((item) => item.id === id);
	const advanceClock = async (advanceSeconds: number) => {
		const response = await new TestClient(sandbox.url, sandbox.adminKey).post('/sandbox/clock', { advanceSeconds });
		expect(response.status).toBe(200);
	};

	test('the seeded Demo shop serves its items through a download link outside /api', async () => {
		const response = await api.post('/catalog/get', { webappid: '1' });
		expect(response.status).toBe(200);
		expect(response.body).toEqual({
			link: expect.any(String),
			notice: expect.stringContaining('2 minutes'),
			expires: expect.any(String),
		});
		const link = new URL(response.body.link);
		expect(link.origin).toBe(sandbox.url);
		expect(link.pathname.startsWith('/api/')).toBe(false);
		const file = await fetch(link);
		expect(file.status).toBe(200);
		expect(file.headers.get('content-type')).toContain('application/json');
		expect(file.headers.get('content-disposition')).toContain('catalog-1.json');
		const body = (await file.json()) as CatalogFile;
		expect(body.webapp).toEqual({ id: '1', name: 'Demo shop' });
		expect(body.items).toHaveLength(5);
		expect(body.items[0]).toEqual(
			expect.objectContaining({ id: 1, title: 'Classic T-shirt', price: 19.9, szpieces: 'S:10,M:20,L:10' }),
		);
		expect(body.items.filter((item) => item.hide)).toHaveLength(1);
	});

	test('a link serves the catalog for 2 minutes of business time, then answers 410', async () => {
		const response = await api.get('/catalog/get', { webappid: 1 });
		const link = response.body.link as string;
		await advanceClock(119);
		expect((await fetch(link)).status).toBe(200);
		await advanceClock(2);
		const expired = await fetch(link);
		expect(expired.status).toBe(410);
		expect(await expired.json()).toEqual({ code: 'link_expired', error: expect.any(String) });
		const unknown = await fetch(`${sandbox.url}/files/catalog/not-a-token`);
		expect(unknown.status).toBe(404);
		expect(await unknown.json()).toEqual({ code: 'not_found', error: expect.any(String) });
		// A fresh link works again.
		expect((await catalog()).items.length).toBeGreaterThan(0);
	});

	test('/catalog/item/create takes webappid as number or string and stores typed fields', async () => {
		const created = await api.post('/catalog/item/create', {
			webappid: 1,
			title: 'Scarf',
			description: 'Wool',
			price: '12.50',
			oldprice: '15',
			hide: 'false',
			pieces: 7,
			code: 'SC-1',
			rubric: 'Accessories',
			szpieces: 'S:1, M:2',
			sizes: 'S,M',
			colors: 'red',
			order: '6',
		});
		expect(created.status).toBe(200);
		expect(created.body).toEqual({ id: expect.any(Number), result: 'ok' });
		expect(await itemById(created.body.id)).toEqual(
			expect.objectContaining({
				id: created.body.id,
				webappid: '1',
				title: 'Scarf',
				description: 'Wool',
				price: '12.50',
				oldprice: '15',
				hide: false,
				pieces: '7',
				code: 'SC-1',
				rubric: 'Accessories',
				szpieces: 'S:1, M:2',
				sizes: 'S,M',
				colors: 'red',
				order: '6',
			}),
		);
		const minimal = await api.post('/catalog/item/create', { webappid: '1' });
		expect(await itemById(minimal.body.id)).toEqual(
			expect.objectContaining({ title: '', price: null, hide: false, order: null }),
		);
	});

	test.each([
		[{ title: 'x' }, 'missing_param', 'webappid'],
		[{ webappid: 77, title: 'x' }, 'not_found', 'webappid'],
		[{ webappid: 1, price: { amount: 1 } }, 'invalid_param', 'price'],
		[{ webappid: 1, price: true }, 'invalid_param', 'price'],
		[{ webappid: 1, hide: 'maybe' }, 'invalid_param', 'hide'],
		[{ webappid: 1, title: ['a'] }, 'invalid_param', 'title'],
		[{ webappid: 1, oldprice: false }, 'invalid_param', 'oldprice'],
		[{ webappid: 1, szpieces: 'S-1,M:2' }, 'invalid_param', 'szpieces'],
		[{ webappid: 1, order: {} }, 'invalid_param', 'order'],
	])('/catalog/item/create %j is a 422 %s naming %s and creates nothing', async (body, code, param) => {
		const before = (await catalog()).items.length;
		const response = await api.post('/catalog/item/create', body);
		expect(response.status).toBe(422);
		expect(response.body).toEqual(expect.objectContaining({ code, param, error: expect.any(String) }));
		expect((await catalog()).items.length).toBe(before);
	});

	test('/catalog/item/edit changes the given fields; hide keeps the item stored', async () => {
		const created = await api.post('/catalog/item/create', { webappid: 1, title: 'Belt', price: 20, colors: 'brown' });
		const itemid = created.body.id;
		const edited = await api.post('/catalog/item/edit', {
			webappid: '1',
			itemid: String(itemid),
			price: 18,
			hide: true,
		});
		expect(edited.body).toEqual({ result: 'ok' });
		expect(await itemById(itemid)).toEqual(
			expect.objectContaining({ title: 'Belt', price: 18, colors: 'brown', hide: true }),
		);
		const errors = [
			[{ webappid: 1, price: 1 }, 'missing_param', 'itemid'],
			[{ webappid: 1, itemid: 9999 }, 'not_found', 'itemid'],
			[{ webappid: 1, itemid, hide: 'no way' }, 'invalid_param', 'hide'],
			[{ itemid, price: 1 }, 'missing_param', 'webappid'],
		] as const;
		for (const [body, code, param] of errors) {
			const response = await api.post('/catalog/item/edit', body);
			expect({ body, status: response.status, code: response.body.code, param: response.body.param }).toEqual({
				body,
				status: 422,
				code,
				param,
			});
		}
		expect(await itemById(itemid)).toEqual(expect.objectContaining({ price: 18, hide: true }));
	});

	test('/catalog/item/delete removes one item; an unknown item is a 422', async () => {
		const created = await api.post('/catalog/item/create', { webappid: 1, title: 'Temporary' });
		const deleted = await api.post('/catalog/item/delete', { itemid: created.body.id });
		expect(deleted.body).toEqual({ result: 'ok' });
		expect(await itemById(created.body.id)).toBeUndefined();
		const again = await api.post('/catalog/item/delete', { itemid: created.body.id });
		expect(again.status).toBe(422);
		expect(again.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'itemid' }));
	});

	test('bulk create answers every new id; one bad item rejects the whole request', async () => {
		const before = (await catalog()).items.length;
		const bad = await api.post('/catalog/item/bulk/create', {
			webappid: 1,
			items: [{ title: 'ok' }, { title: 'bad', price: [] }],
		});
		expect(bad.status).toBe(422);
		expect(bad.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'items[1].price' }));
		const typo = await api.post('/catalog/item/bulk/create', { webappid: 1, items: [{ title: 'ok', colour: 'red' }] });
		expect(typo.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'items[0].colour' }));
		const notObject = await api.post('/catalog/item/bulk/create', { webappid: 1, items: ['title'] });
		expect(notObject.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'items[0]' }));
		const empty = await api.post('/catalog/item/bulk/create', { webappid: 1, items: [] });
		expect(empty.body).toEqual(expect.objectContaining({ code: 'invalid_param', param: 'items' }));
		const tooMany = await api.post('/catalog/item/bulk/create', {
			webappid: 1,
			items: Array.from({ length: 501 }, () => ({ title: 't' })),
		});
		expect(tooMany.body).toEqual(expect.objectContaining({ code: 'too_many_items', param: 'items' }));
		expect((await catalog()).items.length).toBe(before);

		const created = await api.post('/catalog/item/bulk/create', {
			webappid: '1',
			items: [
				{ title: 'Bulk A', price: 1 },
				{ title: 'Bulk B', hide: true },
			],
		});
		expect(created.status).toBe(200);
		expect(created.body).toEqual({ id: [expect.any(Number), expect.any(Number)], result: 'ok' });
		const items = (await catalog()).items;
		expect(items.length).toBe(before + 2);
		expect(items.find((item) => item.id === created.body.id[1])).toEqual(
			expect.objectContaining({ title: 'Bulk B', hide: true }),
		);
	});

	test('bulk edit changes every listed item, or none when one is wrong', async () => {
		const created = await api.post('/catalog/item/bulk/create', {
			webappid: 1,
			items: [
				{ title: 'E1', price: 1 },
				{ title: 'E2', price: 2 },
			],
		});
		const [first, second] = created.body.id as number[];
		const failures = [
			[
				[
					{ itemid: first, price: 10 },
					{ itemid: 9999, price: 20 },
				],
				'not_found',
				'items[1].itemid',
			],
			[[{ itemid: first, price: 10 }, { price: 20 }], 'missing_param', 'items[1].itemid'],
			[
				[
					{ itemid: first, price: 10 },
					{ itemid: first, price: 20 },
				],
				'param_conflict',
				'items[1].itemid',
			],
			[
				[
					{ itemid: first, price: 10 },
					{ itemid: second, hide: 'x' },
				],
				'invalid_param',
				'items[1].hide',
			],
		] as const;
		for (const [items, code, param] of failures) {
			const response = await api.post('/catalog/item/bulk/edit', { webappid: 1, items });
			expect({ status: response.status, code: response.body.code, param: response.body.param }).toEqual({
				status: 422,
				code,
				param,
			});
		}
		expect(await itemById(first)).toEqual(expect.objectContaining({ price: 1 }));
		const edited = await api.post('/catalog/item/bulk/edit', {
			webappid: 1,
			items: [
				{ itemid: first, price: 10 },
				{ itemid: String(second), title: 'E2+' },
			],
		});
		expect(edited.body).toEqual(expect.objectContaining({ result: 'ok' }));
		expect(await itemById(first)).toEqual(expect.objectContaining({ title: 'E1', price: 10 }));
		expect(await itemById(second)).toEqual(expect.objectContaining({ title: 'E2+', price: 2 }));
	});

	test('bulk delete removes every listed item, or none when one is unknown', async () => {
		const created = await api.post('/catalog/item/bulk/create', {
			webappid: 1,
			items: [{ title: 'D1' }, { title: 'D2' }],
		});
		const [first, second] = created.body.id as number[];
		const unknown = await api.post('/catalog/item/bulk/delete', { items: [{ itemid: first }, { itemid: 9999 }] });
		expect(unknown.status).toBe(422);
		expect(unknown.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'items[1].itemid' }));
		expect(await itemById(first)).toBeDefined();
		const deleted = await api.post('/catalog/item/bulk/delete', { items: [{ itemid: first }, { itemid: second }] });
		expect(deleted.body).toEqual(expect.objectContaining({ result: 'ok', deleted: 2 }));
		expect(await itemById(first)).toBeUndefined();
		expect(await itemById(second)).toBeUndefined();
	});

	test('without a key 401; catalog:read may get a link but not write (403); write methods refuse GET (405)', async () => {
		expect((await api.withKey(undefined).get('/catalog/get', { webappid: 1 })).status).toBe(401);
		expect((await api.withKey(undefined).post('/catalog/item/create', { webappid: 1 })).status).toBe(401);
		const key = await api.post('/key/create', { name: 'catalog reader', scopes: ['catalog:read'] });
		const reader = api.withKey(key.body.key.key);
		expect((await reader.get('/catalog/get', { webappid: 1 })).status).toBe(200);
		const denied = await reader.post('/catalog/item/create', { webappid: 1, title: 'nope' });
		expect(denied.status).toBe(403);
		expect(denied.body).toEqual(expect.objectContaining({ code: 'forbidden', scope: 'catalog:write' }));
		const lists = await api.post('/key/create', { name: 'lists only', scopes: ['lists:read'] });
		expect((await api.withKey(lists.body.key.key).get('/catalog/get', { webappid: 1 })).status).toBe(403);
		const writes = [
			'/catalog/item/create',
			'/catalog/item/edit',
			'/catalog/item/delete',
			'/catalog/item/bulk/create',
			'/catalog/item/bulk/edit',
			'/catalog/item/bulk/delete',
			'/catalog/items/delete',
		];
		for (const path of writes) {
			expect({ path, status: (await api.get(path, { webappid: 1, id: 1 })).status }).toEqual({ path, status: 405 });
		}
		const missing = await api.get('/catalog/get');
		expect(missing.body).toEqual(expect.objectContaining({ code: 'missing_param', param: 'webappid' }));
	});

	test('/catalog/items/delete empties an app; /webapp/delete removes it and its links', async () => {
		const link = (await api.get('/catalog/get', { webappid: 1 })).body.link as string;
		const emptied = await api.post('/catalog/items/delete', { webappid: 1 });
		expect(emptied.status).toBe(200);
		expect(emptied.body).toEqual(expect.objectContaining({ result: 'ok', deleted: expect.any(Number) }));
		expect((await catalog()).items).toEqual([]);
		const unknownApp = await api.post('/catalog/items/delete', { webappid: 'shop-2' });
		expect(unknownApp.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'webappid' }));

		const missing = await api.post('/webapp/delete', {});
		expect(missing.body).toEqual(expect.objectContaining({ code: 'missing_param', param: 'id' }));
		const deleted = await api.post('/webapp/delete', { id: 1 });
		expect(deleted.body).toEqual(expect.objectContaining({ result: 'ok' }));
		expect((await fetch(link)).status).toBe(404);
		const gone = await api.get('/catalog/get', { webappid: 1 });
		expect(gone.status).toBe(422);
		expect(gone.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'webappid' }));
		const again = await api.get('/webapp/delete', { id: '1' });
		expect(again.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'id' }));
		const orphan = await api.post('/catalog/item/create', { webappid: 1, title: 'x' });
		expect(orphan.body.param).toBe('webappid');
	});
});
