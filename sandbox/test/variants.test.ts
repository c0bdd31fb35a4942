import { startSandbox, type SandboxOptions } from '../src';
import { playsVariant, resolveOptions } from '../src/config';
import { TestClient } from './client';

/** The variant options play the service's undocumented behaviour differently, over real HTTP. */
async function withSandbox(options: SandboxOptions, use: (api: TestClient) => Promise<void>): Promise<void> {
	const sandbox = await startSandbox({ port: 0, rateLimit: 0, ...options });
	try {
		await use(new TestClient(sandbox.baseUrl, sandbox.adminKey));
	} finally {
		await sandbox.close();
	}
}

/** A list of `count` rows with N = 0..count-1; returns its number. */
async function listOf(api: TestClient, count: number): Promise<number> {
	const created = await api.post('/list/create', { name: `Rows ${count}`, headers: ['N'] });
	await api.post('/list/rows/add', {
		listid: created.body.list.id,
		rows: Array.from({ length: count }, (_, n) => [String(n)]),
	});
	return created.body.list.id;
}

describe('sandbox variants', () => {
	test("a variant is any flag off the sandbox's own reading (those answers are not held to the OpenAPI document)", () => {
		expect(playsVariant(resolveOptions({}))).toBe(false);
		expect(
			playsVariant(resolveOptions({ maxPage: 1000, maxPageMode: 'reject', listShape: 'items', failReads: 0 })),
		).toBe(false);
		const variants: SandboxOptions[] = [
			{ maxPage: 999 },
			{ maxPageMode: 'cap' },
			{ omitTotal: true },
			{ retryAfter: 'none' },
			{ failReads: 0.1 },
			{ listShape: 'bare' },
			{ listShape: 'named' },
		];
		expect(variants.map((options) => playsVariant(resolveOptions(options)))).toEqual(variants.map(() => true));
	});

	test('default: pages up to 1000; above that a 422 on limit that names the maximum; answers carry items and total', async () => {
		await withSandbox({}, async (api) => {
			const listid = await listOf(api, 30);
			const page = await api.get('/list/rows/get', { listid, limit: 1000, offset: 25 });
			expect(page.body.items.map((row) => row.values[0])).toEqual(['25', '26', '27', '28', '29']);
			expect(page.body.total).toBe(30);
			const refused = await api.get('/list/rows/get', { listid, limit: 1001 });
			expect(refused.status).toBe(422);
			expect(refused.body).toMatchObject({ code: 'invalid_param', param: 'limit' });
			expect(refused.body.error).toContain('at most 1000');
		});
	});

	test('maxPage with cap: any larger limit is served silently at the cap', async () => {
		await withSandbox({ maxPage: 7, maxPageMode: 'cap' }, async (api) => {
			const listid = await listOf(api, 30);
			const page = await api.post('/list/rows/get', { listid, limit: 1000, offset: 3 });
			expect(page.status).toBe(200);
			expect(page.body.items.map((row) => row.values[0])).toEqual(['3', '4', '5', '6', '7', '8', '9']);
			const subscribers = await api.get('/subscriber/list', { limit: 500 });
			expect(subscribers.body.items.length).toBeLessThanOrEqual(7);
			expect((await api.get('/list/rows/get', { listid, limit: 2 })).body.items).toHaveLength(2);
		});
	});

	test('maxPage with reject: above it a 422 with param limit and max; at it, served', async () => {
		await withSandbox({ maxPage: 10, maxPageMode: 'reject' }, async (api) => {
			const listid = await listOf(api, 30);
			const refused = await api.get('/list/rows/get', { listid, limit: 11 });
			expect(refused.status).toBe(422);
			expect(refused.body).toEqual({
				code: 'invalid_param',
				error: 'Parameter "limit" must be an integer of at least 1 and at most 10',
				param: 'limit',
				max: 10,
			});
			expect((await api.get('/list/rows/get', { listid, limit: 10 })).body.items).toHaveLength(10);
			expect((await api.get('/log/get', { limit: 11 })).status).toBe(422);
		});
	});

	test('omitTotal: list answers without total', async () => {
		await withSandbox({ omitTotal: true }, async (api) => {
			const listid = await listOf(api, 3);
			const page = await api.get('/list/rows/get', { listid });
			expect(page.body).toEqual({ items: expect.any(Array) });
			expect(page.body.items).toHaveLength(3);
			expect(Object.keys((await api.get('/subscriber/list')).body)).toEqual(['items']);
		});
	});

	test('listShape bare and named', async () => {
		await withSandbox({ listShape: 'bare' }, async (api) => {
			const listid = await listOf(api, 3);
			// Bare: the records without an envelope.
			const page = await api.get<{ values: string[] }[]>('/list/rows/get', { listid });
			expect(Array.isArray(page.body)).toBe(true);
			expect(page.body.map((row) => row.values[0])).toEqual(['0', '1', '2']);
			expect(Array.isArray((await api.post('/bot/list')).body)).toBe(true);
		});
		await withSandbox({ listShape: 'named' }, async (api) => {
			const listid = await listOf(api, 3);
			// Named: the records under the resource's name.
			const page = await api.get<{ rows: unknown[]; total: number }>('/list/rows/get', { listid });
			expect(Object.keys(page.body).sort()).toEqual(['rows', 'total']);
			expect(page.body.total).toBe(3);
			expect((await api.get<{ subscribers: unknown[] }>('/subscriber/list')).body.subscribers.length).toBeGreaterThan(
				0,
			);
			expect((await api.get<{ entries: unknown[] }>('/log/get')).body.entries.length).toBeGreaterThan(0);
			expect((await api.get<{ lists: { name: string }[] }>('/list/all')).body.lists.map((list) => list.name)).toContain(
				'Rows 3',
			);
			expect((await api.post<{ bots: unknown[] }>('/bot/list')).body.bots.length).toBeGreaterThan(0);
		});
	});

	test('retryAfter none: a 429 without the header; the default sends it', async () => {
		for (const [retryAfter, header] of [
			['none', null],
			['seconds', '1'],
		] as const) {
			await withSandbox({ rateLimit: 1, retryAfter }, async (api) => {
				await api.get('/account/balance/get');
				const refused = await api.get('/account/balance/get');
				expect(refused.status).toBe(429);
				expect(refused.body.code).toBe('rate_limited');
				expect(refused.headers.get('retry-after')).toBe(header);
			});
		}
	});

	test('failReads: reads fail with a transient 503 at about the rate given; changes never do', async () => {
		await withSandbox({ failReads: 0.5 }, async (api) => {
			const reads = await Promise.all(Array.from({ length: 200 }, () => api.get('/account/balance/get')));
			const failed = reads.filter((answer) => answer.status === 503);
			expect(failed.length).toBeGreaterThan(60);
			expect(failed.length).toBeLessThan(140);
			expect(failed[0].body.code).toBe('unavailable');
			expect(reads.filter((answer) => answer.status === 200)).toHaveLength(200 - failed.length);
			const writes = await Promise.all(
				Array.from({ length: 40 }, (_, n) => api.post('/list/create', { name: `Write ${n}`, headers: ['A'] })),
			);
			expect(writes.map((answer) => answer.status)).toEqual(Array.from({ length: 40 }, () => 200));
		});
	});

	test('bad options are refused, naming them', async () => {
		await expect(startSandbox({ port: 0, maxPage: 0 })).rejects.toThrow('maxPage');
		await expect(startSandbox({ port: 0, maxPage: 1001 })).rejects.toThrow('maxPage');
		await expect(startSandbox({ port: 0, failReads: 2 })).rejects.toThrow('failReads');
	});
});
