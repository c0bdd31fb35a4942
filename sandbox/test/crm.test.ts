import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { openSandbox, TestClient, type AnswerOf, type RecordedEvent } from './client';

describe('sandbox CRM funnel: stage set and board', () => {
	let api: TestClient;
	let events: RecordedEvent[];
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, events, close } = await openSandbox());
	});
	afterAll(() => close());

	const counts = (board: AnswerOf<'/crm/board', 'get'>) => [
		...board.stages.map((stage) => [stage.name, stage.count]),
		[null, board.none.count],
	];

	test('/crm/board shows the seeded distribution in stage order, with those in no stage', async () => {
		const board = await api.get('/crm/board');
		expect(board.status).toBe(200);
		expect(board.body.stages.map((stage) => [stage.name, stage.tag, stage.order])).toEqual([
			['New', 'stage:new', 1],
			['Qualified', 'stage:qualified', 2],
			['Won', 'stage:won', 3],
			['Lost', 'stage:lost', 4],
		]);
		expect(counts(board.body)).toEqual([
			['New', 1],
			['Qualified', 1],
			['Won', 1],
			['Lost', 0],
			[null, 3],
		]);
		expect(board.body.total).toBe(6);
		expect(board.body.stages[1].subscribers).toEqual([
			{ id: expect.any(Number), botid: 'bot_tg', clientid: '100001', messenger: 'telegram', name: 'Alice Smith' },
		]);
		expect((await api.post('/crm/board', {})).body).toEqual(board.body);
		const waOnly = await api.get('/crm/board', { botid: 'bot_wa' });
		expect(counts(waOnly.body)).toEqual([
			['New', 0],
			['Qualified', 0],
			['Won', 1],
			['Lost', 0],
			[null, 1],
		]);
	});

	test('/crm/stage/set moves a subscriber: stage tag swapped, event emitted', async () => {
		events.length = 0;
		const first = await api.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100003', stage: 'New' });
		expect(first.status).toBe(200);
		expect(first.body).toMatchObject({ ok: true, stage: 'New', previous: null, chains: false });
		expect(first.body.subscriber).toMatchObject({ clientid: '100003', stage: 'New', tags: ['stage:new'] });
		expect(events).toEqual([
			{ type: 'subscriber.stage', data: { subscriber: first.body.subscriber, stage: 'New', previous: null } },
		]);

		const card = await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100003' });
		expect(card.body.subscriber).toMatchObject({ stage: 'New', tags: ['stage:new'] });
		expect(counts((await api.get('/crm/board')).body)).toEqual([
			['New', 2],
			['Qualified', 1],
			['Won', 1],
			['Lost', 0],
			[null, 2],
		]);
	});

	test('entering a stage whose tag triggers a chain starts that chain by itself', async () => {
		events.length = 0;
		const moved = await api.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100003', stage: 'Qualified' });
		expect(moved.body).toMatchObject({ ok: true, stage: 'Qualified', previous: 'New', chains: true });
		expect(events).toEqual([
			{ type: 'subscriber.stage', data: { subscriber: moved.body.subscriber, stage: 'Qualified', previous: 'New' } },
		]);
		expect((await api.get('/subscriber/tag/list', { botid: 'bot_tg', clientid: '100003' })).body.tags).toEqual([
			'stage:qualified',
		]);
		const running = await api.get('/subscriber/chains/get', { botid: 'bot_tg', clientid: '100003' });
		expect(running.body.chains).toEqual([expect.objectContaining({ chaincode: '1002', by: 'tag', step: '1' })]);
		const [latest] = (await api.get('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100003' })).body.items;
		expect(latest).toMatchObject({ text: 'When can we call you?', source: 'chain', origin: '1002' });
	});

	test('setting the current stage again changes nothing and emits nothing', async () => {
		events.length = 0;
		const same = await api.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100003', stage: 'Qualified' });
		expect(same.body).toMatchObject({ ok: true, stage: 'Qualified', previous: 'Qualified', chains: false });
		expect(events).toEqual([]);
	});

	test("a chain of another bot does not start; a blocked subscriber's stage changes but no chain starts", async () => {
		const wa = await api.post('/crm/stage/set', { botid: 'bot_wa', clientid: '15550102', stage: 'Qualified' });
		expect(wa.body).toMatchObject({ stage: 'Qualified', previous: null, chains: false });
		expect((await api.get('/subscriber/chains/get', { botid: 'bot_wa', clientid: '15550102' })).body.chains).toEqual(
			[],
		);
		const blocked = await api.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100004', stage: 'Qualified' });
		expect(blocked.body).toMatchObject({ stage: 'Qualified', chains: false });
		expect(blocked.body.subscriber.tags).toEqual(['spam', 'stage:qualified']);
		expect((await api.get('/subscriber/chains/get', { botid: 'bot_tg', clientid: '100004' })).body.chains).toEqual([]);
		const board = await api.get('/crm/board');
		expect(counts(board.body)).toEqual([
			['New', 1],
			['Qualified', 4],
			['Won', 1],
			['Lost', 0],
			[null, 0],
		]);
	});

	test('stage errors name the parameter and change nothing', async () => {
		events.length = 0;
		const missing = await api.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100002' });
		expect(missing.status).toBe(422);
		expect(missing.body).toMatchObject({ code: 'missing_param', param: 'stage' });
		const unknown = await api.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100002', stage: 'Paying' });
		expect(unknown.body).toMatchObject({
			code: 'not_found',
			param: 'stage',
			error: expect.stringContaining('New, Qualified, Won, Lost'),
		});
		const ghost = await api.post('/crm/stage/set', { botid: 'bot_tg', clientid: 'ghost', stage: 'Won' });
		expect(ghost.body).toMatchObject({ code: 'not_found', param: 'clientid' });
		expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100002' })).body.subscriber.stage).toBe(
			'New',
		);
		expect(events).toEqual([]);
	});

	test('methods, keys, scopes and bot restriction', async () => {
		expect((await api.get('/crm/stage/set', { botid: 'bot_tg', clientid: '100002', stage: 'Won' })).status).toBe(405);
		expect((await api.withKey(undefined).get('/crm/board')).status).toBe(401);
		expect((await api.withKey(undefined).post('/crm/stage/set', {})).status).toBe(401);
		const reader = await api.withNewKey(['crm:read']);
		const refused = await reader.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100002', stage: 'Won' });
		expect(refused.body).toMatchObject({ code: 'forbidden', scope: 'crm:write' });
		const writer = await api.withNewKey(['crm:write']);
		expect((await writer.get('/crm/board')).body).toMatchObject({ code: 'forbidden', scope: 'crm:read' });
		const waOnly = await api.withNewKey(['crm:read', 'crm:write'], ['bot_wa']);
		const board = await waOnly.get('/crm/board');
		expect(board.body.total).toBe(2);
		expect((await waOnly.get('/crm/board', { botid: 'bot_tg' })).status).toBe(403);
		const foreign = await waOnly.post('/crm/stage/set', { botid: 'bot_tg', clientid: '100002', stage: 'Won' });
		expect(foreign.body).toMatchObject({ code: 'bot_forbidden' });
		expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100002' })).body.subscriber.stage).toBe(
			'New',
		);
	});
});
