import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { openSandbox, TestClient } from './client';

const DAY_MS = 86_400_000;
const utcDay = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

describe('sandbox statistics by day', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox({ broadcastIntervalMs: 20 }));
	});
	afterAll(() => close());

	const stats = async (query: Record<string, string>) => {
		const response = await api.get('/stat/get', query);
		expect(response.status).toBe(200);
		return response.body;
	};
	const today = async () => (await stats({ from: utcDay(0), to: utcDay(0) })).items[0];

	test('every day of the range is present, with the seeded subscribers and messages', async () => {
		const body = await stats({ from: utcDay(10), to: utcDay(0) });
		expect(body.from).toBe(utcDay(10));
		expect(body.to).toBe(utcDay(0));
		expect(body.timezone).toBe('UTC');
		expect(body.items.map((day) => day.date)).toEqual(Array.from({ length: 11 }, (_, index) => utcDay(10 - index)));
		// Demo cards subscribed 9, 6, 5, 3, 2 and 1 days ago; four bot messages in their chats.
		const subscribersByDay = Object.fromEntries(body.items.map((day) => [day.date, day.subscribers]));
		for (const daysAgo of [9, 6, 5, 3, 2, 1]) expect(subscribersByDay[utcDay(daysAgo)]).toBe(1);
		expect(body.total).toEqual({ subscribers: 6, messages: 4 });
		expect(body.items.every((day) => Number.isInteger(day.messages) && Number.isInteger(day.subscribers))).toBe(true);
	});

	test('a single day and a range in the future are answered with zeros', async () => {
		const future = await stats({ from: '2099-01-30', to: '2099-02-02' });
		expect(future.items).toEqual([
			{ date: '2099-01-30', subscribers: 0, messages: 0 },
			{ date: '2099-01-31', subscribers: 0, messages: 0 },
			{ date: '2099-02-01', subscribers: 0, messages: 0 },
			{ date: '2099-02-02', subscribers: 0, messages: 0 },
		]);
		expect((await api.post('/stat/get', { from: '2024-02-29', to: '2024-02-29' })).body.items).toHaveLength(1);
	});

	test('messages sent through the API, chains and broadcasts are counted on the day they leave', async () => {
		const before = await today();
		await api.post('/message/send', { botid: 'bot_tg', clientid: '100001', text: 'one' });
		await api.post('/message/send', { botid: 'bot_wa', clientid: '15550101', text: 'two' });
		expect(await today()).toEqual({ ...before, messages: before.messages + 2 });
		// Chain 1001 sends the two blocks of its first step.
		await api.post('/chain/start', { botid: 'bot_tg', clientid: '100002', chaincode: '1001' });
		expect((await today()).messages).toBe(before.messages + 4);
		// A refused message (blocked subscriber) is not counted.
		expect((await api.post('/message/send', { botid: 'bot_tg', clientid: '100004', text: 'no' })).status).toBe(422);
		const broadcast = await api.post('/broadcast/send', { botid: 'bot_wa', text: 'news' });
		expect(broadcast.body.planned).toBe(2);
		const deadline = Date.now() + 5000;
		while ((await today()).messages < before.messages + 6 && Date.now() < deadline)
			await new Promise((resolve) => setTimeout(resolve, 20));
		expect((await today()).messages).toBe(before.messages + 6);
	});

	test('new subscribers are counted when created, and stay counted after deletion', async () => {
		const before = await today();
		await api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'stat-1' });
		await api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'stat-1', name: 'updated, not new' });
		expect((await today()).subscribers).toBe(before.subscribers + 1);
		await api.post('/subscriber/delete', { botid: 'bot_tg', clientid: 'stat-1', messenger: 'telegram' });
		expect((await today()).subscribers).toBe(before.subscribers + 1);
	});

	test('botid narrows to one bot; a bot-restricted key sees only its bots', async () => {
		const range = { from: utcDay(10), to: utcDay(0) };
		const all = (await stats(range)).total;
		const tg = (await stats({ ...range, botid: 'bot_tg' })).total;
		const wa = (await stats({ ...range, botid: 'bot_wa' })).total;
		expect(tg.subscribers + wa.subscribers).toBe(all.subscribers);
		expect(tg.messages + wa.messages).toBe(all.messages);
		expect(wa).toEqual({ subscribers: 2, messages: 4 });
		const key = await api.post('/key/create', { name: 'stats wa', scopes: ['stats:read'], bots: ['bot_wa'] });
		const waOnly = api.withKey(key.body.key.key);
		expect((await waOnly.get('/stat/get', range)).body.total).toEqual(wa);
		expect((await waOnly.get('/stat/get', { ...range, botid: 'bot_tg' })).status).toBe(403);
	});

	test('the range is validated, naming the parameter', async () => {
		const cases: [Record<string, string>, string, string][] = [
			[{ to: '2026-01-01' }, 'missing_param', 'from'],
			[{ from: '2026-01-01' }, 'missing_param', 'to'],
			[{ from: '2026-13-01', to: '2026-12-31' }, 'invalid_param', 'from'],
			[{ from: '2026-02-29', to: '2026-03-01' }, 'invalid_param', 'from'],
			[{ from: '2026-01-01', to: '01.02.2026' }, 'invalid_param', 'to'],
			[{ from: '2026-01-01T00:00:00Z', to: '2026-01-02' }, 'invalid_param', 'from'],
			[{ from: '2026-03-02', to: '2026-03-01' }, 'invalid_range', 'to'],
			[{ from: '2024-01-01', to: '2025-01-02' }, 'invalid_range', 'to'],
			[{ from: '2026-01-01', to: '2026-01-02', botid: 'bot_none' }, 'not_found', 'botid'],
		];
		for (const [query, code, param] of cases) {
			const response = await api.get('/stat/get', query);
			expect([query, response.status, response.body.code, response.body.param]).toEqual([query, 422, code, param]);
		}
		expect((await api.get('/stat/get', { from: '2024-01-01', to: '2024-12-31' })).body.items).toHaveLength(366);
	});

	test('a key is required, with stats:read', async () => {
		expect((await api.withKey(undefined).get('/stat/get', { from: utcDay(1), to: utcDay(0) })).status).toBe(401);
		const key = await api.post('/key/create', { name: 'no stats', scopes: ['subscribers:read'] });
		const denied = await api.withKey(key.body.key.key).get('/stat/get', { from: utcDay(1), to: utcDay(0) });
		expect(denied.status).toBe(403);
		expect(denied.body).toMatchObject({ code: 'forbidden', scope: 'stats:read' });
	});
});

describe('sandbox statistics in the account time zone', () => {
	let api: TestClient;
	let close: () => Promise<void>;
	const timezone = 'Pacific/Kiritimati';

	beforeAll(async () => {
		({ api, close } = await openSandbox({ timezone, seed: true }));
	});
	afterAll(() => close());

	test('days are calendar days of the configured time zone', async () => {
		const localToday = new Intl.DateTimeFormat('en-CA', {
			timeZone: timezone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
		}).format(Date.now());
		const before = await api.get('/stat/get', { from: localToday, to: localToday });
		await api.post('/message/send', { botid: 'bot_tg', clientid: '100001', text: 'local time' });
		const after = await api.get('/stat/get', { from: localToday, to: localToday });
		expect(after.body.timezone).toBe(timezone);
		expect(after.body.items[0].messages).toBe(before.body.items[0].messages + 1);
	});
});
