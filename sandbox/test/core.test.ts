import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApiLogEntry } from '../src/domain/apiLog';
import { openSandbox, TestClient } from './client';

describe('sandbox core: authentication, scopes, methods, errors', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox());
	});
	afterAll(() => close());

	const createKey = async (body: Record<string, unknown>) => {
		const response = await api.post('/key/create', body);
		expect(response.status).toBe(200);
		return response.body.key as { id: string; key: string; scopes: string[]; bots: string[]; expires: string | null };
	};

	test('a missing or unknown key is answered 401 with code and error', async () => {
		const missing = await api.withKey(undefined).get('/account/balance/get');
		expect(missing.status).toBe(401);
		expect(missing.body).toEqual({ code: 'unauthorized', error: expect.stringContaining('missing') });
		const unknown = await api.withKey('mbb_not_a_key').post('/account/balance/get');
		expect(unknown.status).toBe(401);
		expect(unknown.body.code).toBe('unauthorized');
	});

	test('read methods answer GET and POST alike; write methods refuse GET with 405', async () => {
		const viaGet = await api.get('/account/balance/get');
		const viaPost = await api.post('/account/balance/get');
		expect(viaGet.status).toBe(200);
		expect(viaPost.body).toEqual(viaGet.body);
		expect(typeof viaGet.body.balance).toBe('number');
		const wrong = await api.get('/key/create', { name: 'x', scopes: 'lists:read' });
		expect(wrong.status).toBe(405);
		expect(wrong.headers.get('allow')).toBe('POST');
		expect(wrong.body.code).toBe('method_not_allowed');
	});

	test('an unknown method is 404 not_found; a malformed body is a JSON error', async () => {
		const unknown = await api.post('/nothing/here');
		expect(unknown.status).toBe(404);
		expect(unknown.body.code).toBe('not_found');
		const response = await api.postRaw('/account/get', '{"broken":');
		expect(response.status).toBe(400);
		expect(response.body).toEqual({ code: 'invalid_json', error: expect.any(String) });
	});

	test('account, summary, bots and projects describe the seeded account', async () => {
		const account = await api.get('/account/get');
		expect(account.body).toEqual({
			account: expect.objectContaining({ timezone: 'UTC' }),
			tariff: expect.objectContaining({ rowCap: 10000, rateLimit: 0 }),
			used: expect.objectContaining({ bots: 2 }),
		});
		const summary = await api.post('/account/summary');
		expect(Object.keys(summary.body).sort()).toEqual(['bots', 'chains', 'groups', 'lists']);
		expect(summary.body.bots.map((bot: { id: string }) => bot.id)).toEqual(['bot_tg', 'bot_wa']);
		const bots = await api.post('/bot/list');
		expect(bots.body.items.map((bot: { messenger: string }) => bot.messenger)).toEqual(['telegram', 'whatsapp']);
		const groups = await api.get('/group/list');
		expect(groups.body.items.map((group: { code: string }) => group.code)).toEqual(['grp_sales', 'grp_support']);
	});

	test('a key without the needed scope gets 403 naming the scope', async () => {
		const reader = await createKey({ name: 'lists only', scopes: ['lists:read'] });
		const response = await api.withKey(reader.key).get('/account/get');
		expect(response.status).toBe(403);
		expect(response.body).toEqual({
			code: 'forbidden',
			error: expect.stringContaining('account:read'),
			scope: 'account:read',
		});
	});

	test('a key restricted to bots sees only those bots', async () => {
		const restricted = await createKey({
			name: 'telegram only',
			scopes: ['bots:read', 'account:read'],
			bots: ['bot_tg'],
		});
		const bots = await api.withKey(restricted.key).get('/bot/list');
		expect(bots.body.items.map((bot: { id: string }) => bot.id)).toEqual(['bot_tg']);
		const summary = await api.withKey(restricted.key).get('/account/summary');
		expect(summary.body.chains.every((chain: { botid: string }) => chain.botid === 'bot_tg')).toBe(true);
	});

	test('key creation validates its parameters by name and changes nothing on error', async () => {
		const before = (await api.get('/account/get')).body.used.keys;
		const cases: [Record<string, unknown>, string][] = [
			[{ scopes: ['lists:read'] }, 'name'],
			[{ name: 'k' }, 'scopes'],
			[{ name: 'k', scopes: ['lists:read', 'everything:write'] }, 'scopes'],
			[{ name: 'k', scopes: ['lists:read'], bots: ['bot_nope'] }, 'bots'],
			[{ name: 'k', scopes: ['lists:read'], days: 0 }, 'days'],
			[{ name: 'k', scopes: ['lists:read'], days: 'soon' }, 'days'],
		];
		for (const [body, param] of cases) {
			const response = await api.post('/key/create', body);
			expect(response.status).toBe(422);
			expect(response.body.param).toBe(param);
			expect(response.body.error).toContain(param);
		}
		expect((await api.get('/account/get')).body.used.keys).toBe(before);
	});

	test('an empty bots array creates a key for every bot, as an absent one does', async () => {
		const unrestricted = await createKey({ name: 'all bots', scopes: ['bots:read'], bots: [] });
		expect(unrestricted).toMatchObject({ bots: [] });
		const bots = await api.withKey(unrestricted.key).get('/bot/list');
		expect(bots.body.items).toHaveLength(2);
	});

	test('a key cannot grant scopes it lacks', async () => {
		const keyMaker = await createKey({ name: 'key maker', scopes: ['keys:write', 'lists:read'] });
		const response = await api
			.withKey(keyMaker.key)
			.post('/key/create', { name: 'escalate', scopes: ['account:read'] });
		expect(response.status).toBe(403);
		expect(response.body.scope).toBe('account:read');
	});

	test('a key stops working after its days, and when revoked', async () => {
		const shortLived = await createKey({ name: 'one day', scopes: ['account:read'], days: 1 });
		const revocable = await createKey({ name: 'revocable', scopes: ['account:read'] });
		expect((await api.withKey(shortLived.key).get('/account/balance/get')).status).toBe(200);

		const revoke = await api.post('/key/revoke', { id: revocable.id });
		expect(revoke.body).toEqual({
			ok: true,
			key: expect.objectContaining({ id: revocable.id, revoked: true }),
			revokedWith: [],
		});
		expect(JSON.stringify(revoke.body)).not.toContain(revocable.key);
		const revoked = await api.withKey(revocable.key).get('/account/balance/get');
		expect(revoked.status).toBe(401);
		expect(revoked.body.error).toContain('revoked');

		const advance = await fetch(`${api.baseUrl.replace(/\/api$/, '')}/sandbox/clock`, {
			method: 'POST',
			headers: { authorization: api.key!, 'content-type': 'application/json' },
			body: JSON.stringify({ advanceSeconds: 86_401 }),
		});
		expect(advance.status).toBe(200);
		const expired = await api.withKey(shortLived.key).get('/account/balance/get');
		expect(expired.status).toBe(401);
		expect(expired.body.error).toContain('expired');
	});

	test('revoking an unknown key or the account key is a parameter error', async () => {
		expect((await api.post('/key/revoke', { id: 'key_missing' })).body).toMatchObject({
			code: 'not_found',
			param: 'id',
		});
		expect((await api.post('/key/revoke', { id: 'account' })).body).toMatchObject({
			code: 'invalid_param',
			param: 'id',
		});
		expect((await api.post('/key/revoke', {})).body).toMatchObject({ code: 'missing_param', param: 'id' });
	});

	test('the API log records calls and filters by path, status, failure and date, newest first', async () => {
		await api.get('/group/list');
		await api.post('/nothing/here');
		const failed = await api.get('/log/get', { failed: true, limit: 1000 });
		expect(failed.status).toBe(200);
		expect(failed.body.items.length).toBeGreaterThan(0);
		expect(failed.body.items.every((entry: { failed: boolean }) => entry.failed)).toBe(true);
		const byPath = await api.post('/log/get', { path: 'group/list' });
		expect(byPath.body.items[0]).toMatchObject({ path: '/group/list', status: 200, method: 'GET', failed: false });
		const byStatus = await api.post('/log/get', { status: 405 });
		expect(byStatus.body.items.every((entry: { status: number }) => entry.status === 405)).toBe(true);
		const paged = await api.post('/log/get', { limit: 2, offset: 1 });
		expect(paged.body.items).toHaveLength(2);
		expect(paged.body.total).toBeGreaterThan(3);
		const future = await api.post('/log/get', { from: '2999-01-01' });
		expect(future.body).toEqual({ items: [], total: 0 });
		const bad = await api.post('/log/get', { from: 'yesterday' });
		expect(bad.body).toMatchObject({ code: 'invalid_param', param: 'from' });
		expect(JSON.stringify((await api.get('/log/get', { limit: 1000 })).body)).not.toContain(api.key!);
	});
});

describe('sandbox core: rate limit', () => {
	test('more than 10 requests per second per key are answered 429 with Retry-After, then served again', async () => {
		const { api, close } = await openSandbox({ rateLimit: 10, seed: false });
		try {
			const statuses = await Promise.all(Array.from({ length: 15 }, () => api.get('/account/balance/get')));
			const limited = statuses.filter((response) => response.status === 429);
			expect(statuses.filter((response) => response.status === 200).length).toBeGreaterThanOrEqual(10);
			expect(limited.length).toBeGreaterThan(0);
			expect(limited[0].body.code).toBe('rate_limited');
			const retryAfter = Number(limited[0].headers.get('retry-after'));
			expect(retryAfter).toBeGreaterThanOrEqual(1);
			await new Promise((resolve) => setTimeout(resolve, retryAfter * 1000));
			expect((await api.get('/account/balance/get')).status).toBe(200);
		} finally {
			await close();
		}
	});
});

describe('sandbox core: persistence with a data file', () => {
	test('keys and state survive a restart; demo data is not seeded twice', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-data-'));
		const dataFile = join(dir, 'state.sqlite');
		try {
			const first = await openSandbox({ dataFile });
			const created = (await first.api.post('/key/create', { name: 'kept', scopes: ['bots:read'] })).body.key;
			await first.close();

			const second = await openSandbox({ dataFile });
			try {
				expect(second.sandbox.adminKey).toBe(first.sandbox.adminKey);
				const again = second.api.withKey(created.key);
				const bots = await again.get('/bot/list');
				expect(bots.status).toBe(200);
				expect(bots.body.items).toHaveLength(2);
			} finally {
				await second.close();
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe('sandbox core: the API log in the account time zone', () => {
	test('/log/get from=<day> starts at midnight of that day in the account time zone', async () => {
		// A zone whose calendar day differs from UTC's right now, so a UTC reading of the day would fail.
		const timezone = new Date().getUTCHours() < 12 ? 'Etc/GMT+12' : 'Pacific/Kiritimati';
		const { api, close } = await openSandbox({ timezone, seed: false });
		try {
			await api.get('/group/list');
			const localDay = new Intl.DateTimeFormat('en-CA', { timeZone: timezone }).format(Date.now());
			const nextDay = new Date(Date.parse(`${localDay}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
			const sameDay = await api.get('/log/get', { path: '/group/list', from: localDay });
			expect(sameDay.body.total).toBe(1);
			const fromNextDay = await api.get('/log/get', { path: '/group/list', from: nextDay });
			expect(fromNextDay.body.total).toBe(0);
		} finally {
			await close();
		}
	});
});

describe('sandbox core: the API log entry is committed before the answer', () => {
	test('when an answer is sent, the database already holds its call in the API log, refused calls included', async () => {
		const { sandbox, api, close } = await openSandbox({ seed: false });
		const seen: { path: string; status: number; logged: ApiLogEntry | undefined }[] = [];
		sandbox.observeAnswers((answer) => {
			// Read from the database, not from the working set.
			const logged = sandbox.context.store.records<ApiLogEntry>('log').at(-1)?.[1];
			seen.push({ path: answer.path, status: answer.status, logged });
		});
		try {
			expect((await api.post('/key/create', { name: 'logged', scopes: ['bots:read'] })).status).toBe(200);
			await api.get('/group/list');
			await api.withKey(undefined).get('/group/list');
			await api.postRaw('/list/create', '{not json');
			await api.get('/no/such/method');
			expect(seen).toEqual([
				{
					path: '/api/key/create',
					status: 200,
					logged: expect.objectContaining({
						id: 1,
						method: 'POST',
						path: '/key/create',
						status: 200,
						failed: false,
						code: null,
						keyId: 'account',
					}),
				},
				{
					path: '/api/group/list',
					status: 200,
					logged: expect.objectContaining({ id: 2, method: 'GET', path: '/group/list', status: 200, code: null }),
				},
				{
					path: '/api/group/list',
					status: 401,
					logged: expect.objectContaining({
						id: 3,
						path: '/group/list',
						status: 401,
						failed: true,
						code: 'unauthorized',
						keyId: null,
					}),
				},
				{
					path: '/api/list/create',
					status: 400,
					logged: expect.objectContaining({ id: 4, path: '/list/create', status: 400, code: 'invalid_json' }),
				},
				{
					path: '/api/no/such/method',
					status: 404,
					logged: expect.objectContaining({ id: 5, path: '/no/such/method', status: 404, code: 'not_found' }),
				},
			]);
			const log = await api.get('/log/get', { limit: 10 });
			expect(log.body.items.map((entry: ApiLogEntry) => [entry.id, entry.status])).toEqual([
				[5, 404],
				[4, 400],
				[3, 401],
				[2, 200],
				[1, 200],
			]);
		} finally {
			await close();
		}
	});
});
