import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { RunningSandbox } from '../src';
import { openSandbox, TestClient } from './client';

const BROADCAST_INTERVAL_MS = 100;

/** Polls until `check` returns a value other than undefined, or fails after `timeoutMs`. */
async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error('condition not reached in time');
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

describe('sandbox messaging: messages, chains, blocks, deferred steps, broadcasts', () => {
	let api: TestClient;
	let sandbox: RunningSandbox;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, sandbox, close } = await openSandbox({ broadcastIntervalMs: BROADCAST_INTERVAL_MS }));
	});
	afterAll(() => close());

	const chat = async (botid: string, clientid: string) =>
		(await api.get('/subscriber/chat/get', { botid, clientid, limit: 100 })).body.items;
	const chains = async (botid: string, clientid: string) =>
		(await api.get('/subscriber/chains/get', { botid, clientid })).body.chains;
	const advanceClock = async (seconds: number) => {
		const response = await new TestClient(sandbox.url, api.key).post('/sandbox/clock', { advanceSeconds: seconds });
		expect(response.status).toBe(200);
	};

	describe('/message/send', () => {
		test('sends text with link buttons; the message appears in the chat', async () => {
			const buttons = [{ name: 'Open shop', url: 'https://shop.example/catalog' }];
			const sent = await api.post('/message/send', {
				botid: 'bot_tg',
				clientid: '100002',
				text: 'Your order shipped',
				buttons,
			});
			expect(sent.status).toBe(200);
			expect(sent.body).toEqual({ ok: true, sent: 1 });
			const [latest] = await chat('bot_tg', '100002');
			expect(latest).toEqual({
				id: expect.any(Number),
				direction: 'out',
				text: 'Your order shipped',
				buttons,
				source: 'api',
				origin: null,
				time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
			});
		});

		test('a blocked subscriber gets a clear 422 and nothing is sent', async () => {
			const before = await chat('bot_tg', '100004');
			const refused = await api.post('/message/send', { botid: 'bot_tg', clientid: '100004', text: 'hello?' });
			expect(refused.status).toBe(422);
			expect(refused.body).toEqual({
				code: 'subscriber_blocked',
				error: expect.stringContaining('blocked'),
				param: 'clientid',
			});
			expect(await chat('bot_tg', '100004')).toEqual(before);
		});

		test('text and buttons are validated, naming the parameter', async () => {
			const base = { botid: 'bot_tg', clientid: '100002' };
			const before = await chat('bot_tg', '100002');
			expect((await api.post('/message/send', base)).body).toMatchObject({ code: 'missing_param', param: 'text' });
			expect((await api.post('/message/send', { ...base, text: 'x'.repeat(4097) })).body).toMatchObject({
				code: 'invalid_param',
				param: 'text',
			});
			const cases = [
				{ name: 'x', url: 'x' },
				'not an array',
				[{ url: 'https://a.example' }],
				[{ name: 'Pay', url: 'ftp://files.example' }],
				[{ name: 'Pay', url: 'not a url' }],
				[{ name: '', url: 'https://a.example' }],
			];
			for (const buttons of cases) {
				const response = await api.post('/message/send', { ...base, text: 'hi', buttons });
				expect(response.status).toBe(422);
				expect(response.body).toMatchObject({ code: 'invalid_param', param: 'buttons' });
			}
			expect((await api.post('/message/send', { botid: 'bot_tg', clientid: 'ghost', text: 'hi' })).body).toMatchObject({
				code: 'not_found',
				param: 'clientid',
			});
			expect((await api.post('/message/send', { clientid: '100002', text: 'hi' })).body).toMatchObject({
				code: 'missing_param',
				param: 'botid',
			});
			expect(await chat('bot_tg', '100002')).toEqual(before);
		});
	});

	describe('chains and blocks', () => {
		test('/chain/start runs from the first step with data as chain variables; the next step is deferred', async () => {
			const started = await api.post('/chain/start', {
				botid: 'bot_tg',
				clientid: '100002',
				chaincode: '1001',
				data: { promo: 'SPRING' },
			});
			expect(started.body).toEqual({ ok: true });
			const variables = await api.get('/subscriber/data/get', {
				botid: 'bot_tg',
				clientid: '100002',
				chaincode: '1001',
			});
			expect(variables.body.chains[0].variables).toEqual({ promo: 'SPRING' });
			const running = await chains('bot_tg', '100002');
			expect(running).toEqual([
				{
					chaincode: '1001',
					name: 'Welcome',
					step: '1',
					block: 'blk_hello',
					started: expect.any(String),
					by: 'chain',
					next: { step: '2', at: expect.any(String) },
				},
			]);
			expect(
				(await chat('bot_tg', '100002')).slice(0, 2).map((message) => [message.text, message.source, message.origin]),
			).toEqual([
				['Here is our menu.', 'chain', '1001'],
				['Hello, Bob Jones!', 'chain', '1001'],
			]);

			await advanceClock(3601);
			const [offer] = await chat('bot_tg', '100002');
			expect(offer.text).toBe('Today: -10% with code SPRING.');
			expect(await chains('bot_tg', '100002')).toEqual([
				expect.objectContaining({ chaincode: '1001', step: '2', block: 'blk_offer', next: null }),
			]);
		});

		test('starting a running chain again restarts it instead of running it twice', async () => {
			await api.post('/chain/start', { botid: 'bot_tg', clientid: '100002', chaincode: '1001' });
			const running = await chains('bot_tg', '100002');
			expect(running).toEqual([expect.objectContaining({ chaincode: '1001', step: '1' })]);
		});

		test('/message/next/clear cancels the deferred next message; the chain keeps running', async () => {
			await api.post('/chain/start', { botid: 'bot_tg', clientid: '100003', chaincode: '1001' });
			expect((await chains('bot_tg', '100003'))[0].next).not.toBeNull();
			const cleared = await api.post('/message/next/clear', { botid: 'bot_tg', clientid: '100003' });
			expect(cleared.body).toEqual({ result: 'cleared', cleared: 1 });
			expect(await chains('bot_tg', '100003')).toEqual([
				expect.objectContaining({ chaincode: '1001', step: '1', next: null }),
			]);
			await advanceClock(7200);
			expect((await chat('bot_tg', '100003')).map((message) => message.text)).toEqual([
				'Here is our menu.',
				'Hello, Carol White!',
			]);
			const again = await api.post('/message/next/clear', { botid: 'bot_tg', clientid: '100003' });
			expect(again.body).toEqual({ result: 'cleared', cleared: 0 });
			expect((await api.post('/message/next/clear', { botid: 'bot_tg' })).body).toMatchObject({
				code: 'missing_param',
				param: 'clientid',
			});
		});

		test('/block/start starts a block by number from 1 or by ID, with data as variables', async () => {
			const byNumber = await api.post('/block/start', {
				botid: 'bot_tg',
				clientid: '100001',
				chaincode: '1001',
				stepcode: '1',
				block: 2,
			});
			expect(byNumber.body).toEqual({ ok: true, block: 'blk_menu' });
			expect((await chat('bot_tg', '100001'))[0].text).toBe('Here is our menu.');
			const byId = await api.post('/block/start', {
				botid: 'bot_tg',
				clientid: '100001',
				chaincode: '1001',
				stepcode: '2',
				block: 'blk_offer',
				data: { promo: 'VIP20' },
			});
			expect(byId.body).toEqual({ ok: true, block: 'blk_offer' });
			expect((await chat('bot_tg', '100001'))[0].text).toBe('Today: -10% with code VIP20.');
			expect(
				(await api.get('/subscriber/data/get', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' })).body
					.chains[0].variables,
			).toEqual({
				promo: 'VIP20',
				city: 'Berlin',
			});
			expect(await chains('bot_tg', '100001')).toEqual([
				expect.objectContaining({ chaincode: '1001', step: '2', block: 'blk_offer', by: 'block' }),
			]);
			const firstBlock = await api.post('/block/start', {
				botid: 'bot_wa',
				clientid: '15550101',
				chaincode: '2001',
				stepcode: '1',
			});
			expect(firstBlock.body).toEqual({ ok: true, block: 'blk_triage' });
		});

		test('/block/start errors: chain, step and block must exist; a blocked subscriber is refused', async () => {
			const base = { botid: 'bot_tg', clientid: '100001', chaincode: '1001' };
			const before = await chat('bot_tg', '100001');
			expect((await api.post('/block/start', base)).body).toMatchObject({ code: 'missing_param', param: 'stepcode' });
			expect((await api.post('/block/start', { ...base, stepcode: '9' })).body).toMatchObject({
				code: 'not_found',
				param: 'stepcode',
			});
			expect((await api.post('/block/start', { ...base, stepcode: '1', block: 3 })).body).toMatchObject({
				code: 'not_found',
				param: 'block',
			});
			expect((await api.post('/block/start', { ...base, stepcode: '1', block: 'blk_offer' })).body).toMatchObject({
				code: 'not_found',
				param: 'block',
			});
			expect((await api.post('/block/start', { ...base, stepcode: '1', data: 'x' })).body).toMatchObject({
				code: 'invalid_param',
				param: 'data',
			});
			expect((await api.post('/block/start', { ...base, chaincode: undefined, stepcode: '1' })).body).toMatchObject({
				code: 'missing_param',
				param: 'chaincode',
			});
			const blocked = await api.post('/block/start', {
				botid: 'bot_tg',
				clientid: '100004',
				chaincode: '1001',
				stepcode: '1',
			});
			expect(blocked.body).toMatchObject({ code: 'subscriber_blocked' });
			expect(await chat('bot_tg', '100001')).toEqual(before);
		});

		test('/chain/start errors: chain of this bot, data an object, subscriber not blocked', async () => {
			const base = { botid: 'bot_tg', clientid: '100001' };
			expect((await api.post('/chain/start', base)).body).toMatchObject({ code: 'missing_param', param: 'chaincode' });
			expect((await api.post('/chain/start', { ...base, chaincode: '2001' })).body).toMatchObject({
				code: 'param_conflict',
				param: 'chaincode',
			});
			expect((await api.post('/chain/start', { ...base, chaincode: '4040' })).body).toMatchObject({
				code: 'not_found',
				param: 'chaincode',
			});
			expect((await api.post('/chain/start', { ...base, chaincode: '1001', data: { a: [1] } })).body).toMatchObject({
				code: 'invalid_param',
				param: 'data',
			});
			expect(
				(await api.post('/chain/start', { botid: 'bot_tg', clientid: '100004', chaincode: '1001' })).body,
			).toMatchObject({ code: 'subscriber_blocked' });
			expect(await chains('bot_tg', '100004')).toEqual([]);
		});

		test('/chain/stop stops one chain or all, counting them', async () => {
			await api.post('/chain/start', { botid: 'bot_tg', clientid: '100001', chaincode: '1002' });
			expect((await chains('bot_tg', '100001')).map((run) => run.chaincode).sort()).toEqual(['1001', '1002']);
			const one = await api.post('/chain/stop', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' });
			expect(one.body).toEqual({ ok: true, stopped: 1 });
			expect((await chains('bot_tg', '100001')).map((run) => run.chaincode)).toEqual(['1002']);
			await api.post('/chain/start', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' });
			const all = await api.post('/chain/stop', { botid: 'bot_tg', clientid: '100001', chaincode: '' });
			expect(all.body).toEqual({ ok: true, stopped: 2 });
			expect(await chains('bot_tg', '100001')).toEqual([]);
			expect((await api.post('/chain/stop', { botid: 'bot_tg', clientid: '100001' })).body).toEqual({
				ok: true,
				stopped: 0,
			});
			expect(
				(await api.post('/chain/stop', { botid: 'bot_tg', clientid: '100001', chaincode: '777' })).body,
			).toMatchObject({ code: 'not_found', param: 'chaincode' });
		});
	});

	describe('/broadcast/send and /broadcast/stop', () => {
		test('plans one message per recipient of the segment, excluding blocked subscribers', async () => {
			const segment = async (body: Record<string, unknown>) => {
				const response = await api.post('/broadcast/send', { text: 'probe', ...body });
				expect(response.status).toBe(200);
				await api.post('/broadcast/stop', { code: response.body.code });
				return response.body.planned;
			};
			expect(await segment({ botid: 'bot_tg' })).toBe(3);
			expect(await segment({})).toBe(5);
			expect(await segment({ botid: 'bot_tg', dialog: true })).toBe(2);
			expect(await segment({ tag: 'newsletter' })).toBe(2);
			expect(await segment({ tag: ['vip', 'spam', 'support'] })).toBe(2);
			expect(await segment({ botid: 'bot_wa', tag: 'vip' })).toBe(0);
		});

		test('messages leave the queue one per interval into the chats', async () => {
			const sent = await api.post('/broadcast/send', {
				botid: 'bot_tg',
				text: 'Weekend sale',
				name: 'Weekend',
				buttons: [{ name: 'Shop', url: 'https://shop.example' }],
			});
			expect(sent.body).toEqual({ ok: true, planned: 3, code: expect.stringMatching(/^brd_/) });
			const recipients = ['100001', '100002', '100003'];
			const delivered = await waitFor(async () => {
				const messages = await Promise.all(
					recipients.map(async (clientid) =>
						(await chat('bot_tg', clientid)).find((message) => message.text === 'Weekend sale'),
					),
				);
				const found = messages.filter((message) => message !== undefined);
				return found.length === messages.length ? found : undefined;
			});
			for (const message of delivered) {
				expect(message).toMatchObject({
					source: 'broadcast',
					origin: sent.body.code,
					buttons: [{ name: 'Shop', url: 'https://shop.example' }],
				});
			}
			const times = delivered.map((message) => Date.parse(message.time)).sort((a, b) => a - b);
			for (let index = 1; index < times.length; index++) {
				expect(times[index] - times[index - 1]).toBeGreaterThanOrEqual(BROADCAST_INTERVAL_MS * 0.8);
			}
			expect((await chat('bot_tg', '100004')).some((message) => message.text === 'Weekend sale')).toBe(false);
			const stopped = await api.post('/broadcast/stop', { code: sent.body.code });
			expect(stopped.body).toEqual({ ok: true, cleared: 0 });
		});

		test('a recipient blocked before its turn is skipped', async () => {
			const sent = await api.post('/broadcast/send', { botid: 'bot_tg', text: 'Flash sale' });
			expect(sent.body.planned).toBe(3);
			// 100003 is last in the queue: its turn comes three intervals from now.
			await api.post('/subscriber/block', { botid: 'bot_tg', clientid: '100003' });
			const got = (clientid: string) => async () =>
				(await chat('bot_tg', clientid)).some((message) => message.text === 'Flash sale') ? true : undefined;
			await waitFor(got('100001'));
			await waitFor(got('100002'));
			await new Promise((resolve) => setTimeout(resolve, BROADCAST_INTERVAL_MS * 3));
			expect(await got('100003')()).toBeUndefined();
			expect((await api.post('/broadcast/stop', { code: sent.body.code })).body.cleared).toBe(0);
			await api.post('/subscriber/unblock', { botid: 'bot_tg', clientid: '100003' });
		});

		test('broadcast parameters are validated and nothing is queued on error', async () => {
			expect((await api.post('/broadcast/send', {})).body).toMatchObject({ code: 'missing_param', param: 'text' });
			expect((await api.post('/broadcast/send', { text: 'x', botid: 'bot_zz' })).body).toMatchObject({
				code: 'not_found',
				param: 'botid',
			});
			expect((await api.post('/broadcast/send', { text: 'x', tag: [1] })).body).toMatchObject({
				code: 'invalid_param',
				param: 'tag',
			});
			expect((await api.post('/broadcast/send', { text: 'x', dialog: 'often' })).body).toMatchObject({
				code: 'invalid_param',
				param: 'dialog',
			});
			expect((await api.post('/broadcast/send', { text: 'x', buttons: [{ name: 'a' }] })).body).toMatchObject({
				code: 'invalid_param',
				param: 'buttons',
			});
			expect((await api.post('/broadcast/stop', {})).body).toMatchObject({ code: 'missing_param', param: 'code' });
			expect((await api.post('/broadcast/stop', { code: 'brd_unknown' })).body).toMatchObject({
				code: 'not_found',
				param: 'code',
			});
		});
	});

	describe('authentication, scopes, bot restriction and methods', () => {
		const writePaths = [
			'/message/send',
			'/message/next/clear',
			'/block/start',
			'/chain/start',
			'/chain/stop',
			'/broadcast/send',
			'/broadcast/stop',
		];

		test('every method is POST only (405 on GET) and needs a key (401)', async () => {
			for (const path of writePaths) {
				const response = await api.get(path, { botid: 'bot_tg', clientid: '100001', text: 'x' });
				expect([path, response.status, response.headers.get('allow')]).toEqual([path, 405, 'POST']);
				expect([path, (await api.withKey(undefined).post(path, {})).status]).toEqual([path, 401]);
			}
		});

		test('each family needs its scope: messages:write, chains:write, broadcasts:write', async () => {
			const reader = await api.withNewKey(['subscribers:read', 'messages:read', 'chains:read', 'broadcasts:read']);
			const expectations: [string, Record<string, unknown>, string][] = [
				['/message/send', { botid: 'bot_tg', clientid: '100001', text: 'x' }, 'messages:write'],
				['/message/next/clear', { botid: 'bot_tg', clientid: '100001' }, 'messages:write'],
				['/block/start', { botid: 'bot_tg', clientid: '100001', chaincode: '1001', stepcode: '1' }, 'chains:write'],
				['/chain/start', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' }, 'chains:write'],
				['/chain/stop', { botid: 'bot_tg', clientid: '100001' }, 'chains:write'],
				['/broadcast/send', { text: 'x' }, 'broadcasts:write'],
				['/broadcast/stop', { code: 'brd_x' }, 'broadcasts:write'],
			];
			for (const [path, body, scope] of expectations) {
				const response = await reader.post(path, body);
				expect([path, response.status, response.body.scope]).toEqual([path, 403, scope]);
			}
			expect(await chains('bot_tg', '100001')).toEqual([]);
		});

		test('a key restricted to one bot cannot message other bots and broadcasts only to its own', async () => {
			const waOnly = await api.withNewKey(['messages:write', 'chains:write', 'broadcasts:write'], ['bot_wa']);
			const denied = await waOnly.post('/message/send', { botid: 'bot_tg', clientid: '100001', text: 'x' });
			expect(denied.status).toBe(403);
			expect(denied.body).toMatchObject({ code: 'bot_forbidden', param: 'botid' });
			expect(
				(await waOnly.post('/chain/start', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' })).status,
			).toBe(403);
			const own = await waOnly.post('/broadcast/send', { text: 'wa only' });
			expect(own.body.planned).toBe(2);
			await waOnly.post('/broadcast/stop', { code: own.body.code });
			const tgBroadcast = await api.post('/broadcast/send', { text: 'tg only', botid: 'bot_tg' });
			const foreign = await waOnly.post('/broadcast/stop', { code: tgBroadcast.body.code });
			expect(foreign.status).toBe(403);
			expect((await api.post('/broadcast/stop', { code: tgBroadcast.body.code })).status).toBe(200);
		});
	});
});

describe('sandbox broadcasts: a slow queue can be stopped', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox({ broadcastIntervalMs: 60_000 }));
	});
	afterAll(() => close());

	test('/broadcast/stop removes the messages still queued and reports how many', async () => {
		const sent = await api.post('/broadcast/send', { text: 'Never delivered', name: 'Slow' });
		expect(sent.body.planned).toBe(5);
		const stopped = await api.post('/broadcast/stop', { code: sent.body.code });
		expect(stopped.body).toEqual({ ok: true, cleared: 5 });
		expect((await api.post('/broadcast/stop', { code: sent.body.code })).body).toEqual({ ok: true, cleared: 0 });
		const cards = (await api.get('/subscriber/list', { limit: 100 })).body.items;
		for (const card of cards) {
			const history = (await api.get('/subscriber/chat/get', { botid: card.botid, clientid: card.clientid })).body
				.items;
			expect(history.some((message) => message.text === 'Never delivered')).toBe(false);
		}
	});
});
