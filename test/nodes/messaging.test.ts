import type { IDataObject } from 'n8n-workflow';
import { broadcastsState } from '../../sandbox/src/domain/messagingBroadcasts';
import { byId } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

const BOT = byId('bot_tg');
const ALICE = { botId: BOT, clientId: '100001' };

describe('Message, Chain, Block, Broadcast and CRM operations', () => {
	let bed: NodeTestBed;
	const chat = async (clientid: string) =>
		(await bed.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid, limit: 5 })).items;
	const runs = async (clientid: string) =>
		(await bed.api.call('/subscriber/chains/get', { botid: 'bot_tg', clientid })).chains as IDataObject[];

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0, broadcastIntervalMs: 60_000 });
	});
	afterAll(async () => bed.close());

	it('message send puts the text and link buttons into the chat', async () => {
		const [answer] = await bed.node.json(
			{
				resource: 'message',
				operation: 'send',
				...ALICE,
				text: 'Your order {{ $json.order }} is ready',
				buttons: { values: [{ name: 'Track', url: 'https://example.com/track' }] },
			},
			{ items: [{ order: 'A-17' }] },
		);
		expect(answer).toMatchObject({ ok: true, sent: 1 });
		const [latest] = await chat('100001');
		expect(latest).toMatchObject({
			text: 'Your order {{ $json.order }} is ready',
			buttons: [{ name: 'Track', url: 'https://example.com/track' }],
		});
	});

	it('message text from an expression is resolved per item', async () => {
		await bed.node.json(
			{ resource: 'message', operation: 'send', ...ALICE, text: '=Order {{ $json.order }}' },
			{ items: [{ order: 'B-1' }, { order: 'B-2' }] },
		);
		const [last, previous] = await chat('100001');
		expect([previous.text, last.text]).toEqual(['Order B-1', 'Order B-2']);
	});

	it('chain start with variables runs the chain and stores the variables', async () => {
		await bed.node.json({
			resource: 'chain',
			operation: 'start',
			...ALICE,
			chainCode: byId('1001'),
			variables: { values: [{ name: 'promo', value: 'N8N' }] },
		});
		expect((await runs('100001')).map((run) => run.chaincode)).toContain('1001');
		const data = await bed.api.call('/subscriber/data/get', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' });
		expect(data.chains[0].variables.promo).toBe('N8N');
	});

	it('clear scheduled next message cancels the deferred step', async () => {
		expect((await runs('100001')).find((run) => run.chaincode === '1001')?.next).not.toBeNull();
		await bed.node.json({ resource: 'message', operation: 'clearNext', ...ALICE });
		expect((await runs('100001')).find((run) => run.chaincode === '1001')?.next).toBeNull();
	});

	it('block start runs a chain from a given step and block', async () => {
		const [answer] = await bed.node.json({
			resource: 'block',
			operation: 'start',
			botId: BOT,
			clientId: '100003',
			chainCode: byId('1001'),
			stepCode: '1',
			block: '2',
		});
		expect(answer.ok).toBe(true);
		const run = (await runs('100003')).find((candidate) => candidate.chaincode === '1001');
		expect(run).toMatchObject({ step: '1' });
		expect((await chat('100003'))[0].text).toBe('Here is our menu.');
	});

	it('chain stop: one chain, then all', async () => {
		await bed.api.call('/chain/start', { botid: 'bot_tg', clientid: '100003', chaincode: '1002' });
		const [one] = await bed.node.json({
			resource: 'chain',
			operation: 'stop',
			botId: BOT,
			clientId: '100003',
			scope: 'one',
			chainCode: byId('1002'),
		});
		expect(one.stopped).toBe(1);
		expect((await runs('100003')).map((run) => run.chaincode)).toEqual(['1001']);
		const [all] = await bed.node.json({
			resource: 'chain',
			operation: 'stop',
			botId: BOT,
			clientId: '100003',
			scope: 'all',
		});
		expect(all.stopped).toBe(1);
		expect(await runs('100003')).toEqual([]);
	});

	it('broadcast send to a segment, then stop', async () => {
		const [planned] = await bed.node.json({
			resource: 'broadcast',
			operation: 'send',
			text: 'Sale starts now',
			options: { botid: byId('bot_tg'), tags: 'newsletter, vip', name: 'Spring sale' },
		});
		expect(planned).toMatchObject({ ok: true, planned: 2 });
		const stored = broadcastsState(bed.sandbox.context.store).broadcasts.find((entry) => entry.code === planned.code);
		expect(stored).toMatchObject({ name: 'Spring sale', planned: 2, text: 'Sale starts now' });

		const [stopped] = await bed.node.json({ resource: 'broadcast', operation: 'stop', code: String(planned.code) });
		expect(stopped.ok).toBe(true);
		expect(stored?.status).toBe('stopped');
		expect(stopped.cleared).toBe(stored!.planned - stored!.sent);
	});

	it('broadcast only to those who started a dialog', async () => {
		const [planned] = await bed.node.json({
			resource: 'broadcast',
			operation: 'send',
			text: 'Hi',
			options: { botid: 'bot_tg', dialog: true },
		});
		const everyone = await bed.api.call('/subscriber/list', {
			botid: 'bot_tg',
			dialog: true,
			blocked: false,
			limit: 1000,
		});
		expect(planned.planned).toBe(everyone.total);
	});

	it('CRM: set stage moves the subscriber and starts the stage chain; board shows it', async () => {
		const [answer] = await bed.node.json({
			resource: 'crm',
			operation: 'setStage',
			botId: BOT,
			clientId: '100003',
			stage: byId('Qualified'),
		});
		expect(answer.ok).toBe(true);
		const card = (await bed.api.call('/subscriber/get', { botid: 'bot_tg', clientid: '100003' })).subscriber;
		expect(card.stage).toBe('Qualified');
		expect((await runs('100003')).map((run) => run.chaincode)).toContain('1002');

		const [board] = await bed.node.json({ resource: 'crm', operation: 'getBoard' });
		const stages = board.stages as Array<{ name: string; subscribers: Array<{ clientid: string }> }>;
		const qualified = stages.find((stage) => stage.name === 'Qualified');
		expect(qualified?.subscribers.map((entry) => entry.clientid)).toContain('100003');
	});

	it('statistics by date range', async () => {
		const today = new Date().toISOString().slice(0, 10);
		const [stats] = await bed.node.json({
			resource: 'statistics',
			operation: 'get',
			from: '2026-01-01T00:00:00',
			to: today,
		});
		expect(stats).toEqual(await bed.api.call('/stat/get', { from: '2026-01-01', to: today }));
		expect((stats.total as { messages: number }).messages).toBeGreaterThan(0);
	});

	it('a day filter takes a day or midnight; a time of day is refused, never widened to its whole day', async () => {
		const today = new Date().toISOString().slice(0, 10);
		const subscribers = (from: string, to: string) =>
			bed.node.json({
				resource: 'subscriber',
				operation: 'getMany',
				returnAll: true,
				filters: { botid: BOT, from, to },
			});
		const expected = (
			await bed.api.call<{ items: Array<{ clientid: string }> }>('/subscriber/list', {
				botid: 'bot_tg',
				from: '2026-01-01',
				to: today,
				limit: 1000,
			})
		).items.map((card) => card.clientid);
		expect(expected.length).toBeGreaterThan(0);
		for (const midnight of [`${today}T00:00:00`, `${today}T00:00:00.000+03:00`, `${today} 00:00`, today]) {
			const found = await subscribers('2026-01-01T00:00:00Z', midnight);
			expect(found.map((card) => card.clientid)).toEqual(expected);
		}
		for (const [field, from, to, written] of [
			['Subscribed To', '2026-01-01', `${today}T12:30:00.000+00:00`, `${today}T12:30:00.000+00:00`],
			['Subscribed From', '2026-01-01T00:00:01Z', today, '2026-01-01T00:00:01Z'],
			['Subscribed From', '2026-02-30', today, '2026-02-30'],
		]) {
			const refused = await bed.node.failure({
				resource: 'subscriber',
				operation: 'getMany',
				returnAll: true,
				filters: { botid: BOT, from, to },
			});
			expect(refused.message).toBe(`The field "${field}" takes a day, got "${written}"`);
		}
		const log = await bed.node.failure({
			resource: 'account',
			operation: 'getApiLog',
			returnAll: true,
			filters: { from: `${today}T08:15:00` },
		});
		expect(log.message).toBe(`The field "From" takes a day, got "${today}T08:15:00"`);
		const stats = await bed.node.failure({
			resource: 'statistics',
			operation: 'get',
			from: '2026-01-01',
			to: `${today}T23:59:59`,
		});
		expect(stats.message).toBe(`The field "To" takes a day, got "${today}T23:59:59"`);
	});
});
