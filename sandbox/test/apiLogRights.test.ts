import type { ApiLogEntry } from '../src/domain/apiLog';
import { openSandbox, TestClient, type OpenSandbox } from './client';

type Seen = [method: string, path: string, status: number, keyId: string | null];

/**
 * Every entry `reader` sees, newest first, read page by page. Each read is logged itself, so a later page starts
 * one entry later: an entry met twice is kept once.
 */
async function logAs(reader: TestClient): Promise<{ entries: ApiLogEntry[]; total: number }> {
	const entries: ApiLogEntry[] = [];
	let total = -1;
	for (let offset = 0; total === -1 || offset < total; offset += 1000) {
		const page = await reader.post('/log/get', { limit: 1000, offset });
		if (page.status !== 200) throw new Error(`/log/get answered ${page.status}: ${JSON.stringify(page.body)}`);
		total = page.body.total;
		const known = new Set(entries.map((entry) => entry.id));
		entries.push(...(page.body.items as ApiLogEntry[]).filter((entry) => !known.has(entry.id)));
		if (page.body.items.length === 0) break;
	}
	return { entries, total };
}
const seen = (entries: ApiLogEntry[]): Seen[] =>
	entries.map((entry) => [entry.method, entry.path, entry.status, entry.keyId]);

describe('the API log shows a key only what its rights cover', () => {
	let open: OpenSandbox;
	beforeAll(async () => {
		open = await openSandbox();
	});
	afterAll(() => open.close());

	test('a bot-restricted key sees its own calls and those of the keys it created; other keys see every call', async () => {
		const { api } = open;
		const createKey = async (creator: TestClient, body: Record<string, unknown>) => {
			const response = await creator.post('/key/create', body);
			expect(response.status).toBe(200);
			return response.body.key as { id: string; key: string };
		};
		const tg = await createKey(api, {
			name: 'telegram',
			scopes: ['log:read', 'keys:write', 'bots:read', 'subscribers:read'],
			bots: ['bot_tg'],
		});
		const wa = await createKey(api, { name: 'whatsapp', scopes: ['log:read', 'bots:read'], bots: ['bot_wa'] });
		const watcher = await createKey(api, { name: 'log watcher', scopes: ['log:read'] });
		const asTg = api.withKey(tg.key);
		const asWa = api.withKey(wa.key);
		const tgChild = await createKey(asTg, {
			name: 'telegram child',
			scopes: ['bots:read', 'subscribers:read'],
			bots: 'bot_tg',
		});
		const asTgChild = api.withKey(tgChild.key);

		// One call of each kind, in this order (the log is newest first).
		expect((await api.get('/group/list')).status).toBe(200);
		expect((await asWa.get('/bot/list')).status).toBe(200);
		expect((await asTgChild.get('/bot/list')).status).toBe(200);
		expect((await asTgChild.get('/subscriber/list', { botid: 'bot_wa' })).status).toBe(403);
		expect((await asTg.post('/no/such/method')).status).toBe(404);
		expect((await asTg.postRaw('/bot/list', '{broken')).status).toBe(400);
		expect((await api.withKey(undefined).get('/bot/list')).status).toBe(401);
		expect((await api.withKey('mbb_unknown').get('/bot/list')).status).toBe(401);
		expect((await asTgChild.get('/log/get')).status).toBe(403);

		const tgView = await logAs(asTg);
		expect(seen(tgView.entries)).toEqual([
			['GET', '/log/get', 403, tgChild.id],
			['POST', '/bot/list', 400, tg.id],
			['POST', '/no/such/method', 404, tg.id],
			['GET', '/subscriber/list', 403, tgChild.id],
			['GET', '/bot/list', 200, tgChild.id],
			['POST', '/key/create', 200, tg.id],
		]);
		expect(tgView.total).toBe(6);
		const tgText = JSON.stringify(tgView.entries);
		for (const hidden of [wa.id, watcher.id, 'account']) expect(tgText).not.toContain(hidden);

		// The whatsapp key's own call, its first /log/get included once it is answered.
		const waView = await logAs(asWa);
		expect(seen(waView.entries)).toEqual([['GET', '/bot/list', 200, wa.id]]);
		expect(seen((await logAs(asWa)).entries)).toEqual([
			['POST', '/log/get', 200, wa.id],
			['GET', '/bot/list', 200, wa.id],
		]);

		// A key for every bot sees every call, calls without a valid key and the account's included: the same as the account.
		const watcherView = await logAs(api.withKey(watcher.key));
		const accountView = await logAs(api);
		expect(seen(accountView.entries).slice(1)).toEqual(seen(watcherView.entries));
		expect(seen(watcherView.entries).slice(0, 14)).toEqual([
			['POST', '/log/get', 200, wa.id],
			['POST', '/log/get', 200, wa.id],
			['POST', '/log/get', 200, tg.id],
			['GET', '/log/get', 403, tgChild.id],
			['GET', '/bot/list', 401, null],
			['GET', '/bot/list', 401, null],
			['POST', '/bot/list', 400, tg.id],
			['POST', '/no/such/method', 404, tg.id],
			['GET', '/subscriber/list', 403, tgChild.id],
			['GET', '/bot/list', 200, tgChild.id],
			['GET', '/bot/list', 200, wa.id],
			['GET', '/group/list', 200, 'account'],
			['POST', '/key/create', 200, tg.id],
			['POST', '/key/create', 200, 'account'],
		]);

		// Revoking the child leaves its past calls in its creator's view.
		expect((await api.post('/key/revoke', { id: tgChild.id })).body.revokedWith).toEqual([]);
		expect(seen((await logAs(asTg)).entries).filter(([, , , keyId]) => keyId === tgChild.id)).toHaveLength(3);
	});
});

describe('a flood of calls without a key', () => {
	test('cannot push out the entries of keyed calls; the log keeps 1,000 of them and cuts stored paths to 256 characters', async () => {
		const { sandbox, api, close } = await openSandbox({ seed: false });
		try {
			const restricted = (
				await api.post('/key/create', { name: 'restricted', scopes: ['bots:read', 'log:read'], bots: [] })
			).body.key;
			await api.get('/group/list');
			await api.withKey(restricted.key).get('/bot/list');
			// A keyed call with a long path: trailing slashes still reach /group/list.
			const longKeyedPath = `/group/list${'/'.repeat(8192)}`;
			expect((await api.get(longKeyedPath)).status).toBe(200);
			const keyedBefore = (await logAs(api)).entries;
			expect(seen(keyedBefore)).toEqual([
				['GET', `/group/list${'/'.repeat(256 - '/group/list'.length)}…`, 200, 'account'],
				['GET', '/bot/list', 200, restricted.id],
				['GET', '/group/list', 200, 'account'],
				['POST', '/key/create', 200, 'account'],
			]);

			// 1,100 calls with 8 KB paths and no key, an unknown key or a revoked one.
			const revoked = (await api.post('/key/create', { name: 'revoked', scopes: ['bots:read'] })).body.key;
			expect((await api.post('/key/revoke', { id: revoked.id })).status).toBe(200);
			const flood = 1100;
			const keyOf = (index: number) => [undefined, 'mbb_unknown', revoked.key][index % 3];
			const floodPath = (index: number) => `/flood/${String(index).padStart(5, '0')}/${'x'.repeat(8192)}`;
			const statuses: number[] = [];
			// The first 100 are answered before the other 1,000 are sent (8 at a time): those 1,000 are the newest.
			const send = async (from: number, to: number, concurrency: number) => {
				let next = from;
				await Promise.all(
					Array.from({ length: concurrency }, async () => {
						while (next < to) {
							const index = next++;
							statuses.push((await api.withKey(keyOf(index)).get(floodPath(index))).status);
						}
					}),
				);
			};
			await send(0, 100, 1);
			await send(100, flood, 8);
			expect(statuses.filter((status) => status === 404)).toHaveLength(flood);

			const after = (await logAs(api)).entries;
			// Newest first: the /log/get call and the two key calls before the flood, then the flood's entries, the keyed ones untouched.
			const keyed = after.filter((entry) => entry.keyId !== null);
			const unkeyed = after.filter((entry) => entry.keyId === null);
			expect(keyed.slice(-keyedBefore.length)).toEqual(keyedBefore);
			expect(seen(keyed.slice(0, -keyedBefore.length))).toEqual([
				['POST', '/key/revoke', 200, 'account'],
				['POST', '/key/create', 200, 'account'],
				['POST', '/log/get', 200, 'account'],
			]);
			expect(unkeyed).toHaveLength(1000);
			for (const entry of unkeyed) {
				expect(entry).toMatchObject({ method: 'GET', status: 404, failed: true, code: 'not_found', keyId: null });
				expect(entry.path).toHaveLength(257);
				expect(entry.path.endsWith('…')).toBe(true);
			}
			// The 1,000 kept are the newest: the 100 first sent are gone.
			const keptIndexes = unkeyed
				.map((entry) => Number(entry.path.slice('/flood/'.length, '/flood/'.length + 5)))
				.sort((a, b) => a - b);
			expect(keptIndexes).toEqual(Array.from({ length: 1000 }, (_, index) => 100 + index));
			// The database holds exactly the entries served, and the two reads of the log that served them.
			const stored = sandbox.context.store.records<ApiLogEntry>('log').map(([, entry]) => entry);
			const served = new Set(after.map((entry) => entry.id));
			expect(stored.filter((entry) => served.has(entry.id))).toHaveLength(after.length);
			expect(seen(stored.filter((entry) => !served.has(entry.id)))).toEqual([
				['POST', '/log/get', 200, 'account'],
				['POST', '/log/get', 200, 'account'],
			]);
			expect(Math.max(...stored.map((entry) => entry.path.length))).toBe(257);
		} finally {
			await close();
		}
	});
});
