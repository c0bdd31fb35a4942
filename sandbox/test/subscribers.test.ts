import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { openSandbox, TestClient, type AnswerOf, type ApiResponse, type RecordedEvent } from './client';

describe('sandbox subscribers: cards, search, listing, tags, variables, blocking, deletion', () => {
	let api: TestClient;
	let events: RecordedEvent[];
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, events, close } = await openSandbox());
	});
	afterAll(() => close());

	describe('seeded cards', () => {
		test('/subscriber/get by botid + clientid, with or without messenger, and by internal number', async () => {
			const byIds = await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' });
			expect(byIds.status).toBe(200);
			expect(byIds.body.subscriber).toEqual({
				id: expect.any(Number),
				botid: 'bot_tg',
				clientid: '100001',
				messenger: 'telegram',
				name: 'Alice Smith',
				username: 'alice_s',
				note: 'Asked about bulk orders',
				tags: ['vip', 'newsletter', 'stage:qualified'],
				active: true,
				blocked: false,
				dialog: true,
				subscribed: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
				stage: 'Qualified',
				variables: { '1001': { promo: 'WELCOME10', city: 'Berlin' } },
			});
			const withMessenger = await api.post('/subscriber/get', {
				botid: 'bot_tg',
				clientid: '100001',
				messenger: 'telegram',
			});
			expect(withMessenger.body).toEqual(byIds.body);
			const byNumber = await api.get('/subscriber/get', { subscriber: byIds.body.subscriber.id });
			expect(byNumber.body).toEqual(byIds.body);
		});

		test('the seed covers both bots, a blocked card, a card without dialog and an inactive one', async () => {
			const all = await api.get('/subscriber/list', { limit: 100 });
			expect(all.body.total).toBe(6);
			const cards = all.body.items;
			expect(new Set(cards.map((card) => card.botid))).toEqual(new Set(['bot_tg', 'bot_wa']));
			expect(cards.filter((card) => card.blocked).map((card) => card.clientid)).toEqual(['100004']);
			expect(cards.filter((card) => !card.dialog).map((card) => card.clientid)).toEqual(['100003']);
			expect(cards.filter((card) => !card.active).map((card) => card.clientid)).toEqual(['15550102']);
			expect(cards.filter((card) => card.stage !== null).length).toBe(3);
			const chat = await api.get('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100001' });
			expect(chat.body.items.length).toBe(3);
		});
	});

	describe('/subscriber/find', () => {
		test('searches name, nickname, code (clientid) and note, case-insensitively', async () => {
			const byName = await api.get('/subscriber/find', { query: 'alice' });
			expect(byName.body.items.map((card) => card.clientid)).toEqual(['100001']);
			const byUsername = await api.get('/subscriber/find', { query: 'BOBJ' });
			expect(byUsername.body.items.map((card) => card.clientid)).toEqual(['100002']);
			const byCode = await api.get('/subscriber/find', { query: '1555010' });
			expect(byCode.body.items.map((card) => card.clientid)).toEqual(['15550101', '15550102']);
			const byNote = await api.post('/subscriber/find', { query: 'bulk orders' });
			expect(byNote.body.items.map((card) => card.clientid)).toEqual(['100001']);
		});

		test('narrows by exact tag and by bot, and pages with limit/offset', async () => {
			const tagged = await api.get('/subscriber/find', { query: 'o', tag: 'newsletter' });
			expect(tagged.body.items.map((card) => card.clientid).sort()).toEqual(['100001', '100002']);
			const partialTag = await api.get('/subscriber/find', { query: 'o', tag: 'news' });
			expect(partialTag.body.items).toEqual([]);
			const inBot = await api.get('/subscriber/find', { query: 'e', botid: 'bot_wa' });
			expect(inBot.body.items.every((card) => card.botid === 'bot_wa')).toBe(true);
			expect(inBot.body.items.length).toBe(2);
			const page = await api.get('/subscriber/find', { query: 'e', limit: 1, offset: 1 });
			const everything = await api.get('/subscriber/find', { query: 'e' });
			expect(page.body.items).toEqual([everything.body.items[1]]);
		});

		test('query is required; limit is validated', async () => {
			const missing = await api.get('/subscriber/find', {});
			expect(missing.status).toBe(422);
			expect(missing.body).toMatchObject({ code: 'missing_param', param: 'query' });
			const badLimit = await api.get('/subscriber/find', { query: 'a', limit: 0 });
			expect(badLimit.body).toMatchObject({ code: 'invalid_param', param: 'limit' });
		});
	});

	describe('/subscriber/list', () => {
		const clientids = (response: ApiResponse<AnswerOf<'/subscriber/list', 'get'>>) =>
			response.body.items.map((card) => card.clientid);

		test('filters by bot, messenger, tag, active, blocked and dialog, with total', async () => {
			expect(clientids(await api.get('/subscriber/list', { botid: 'bot_wa' }))).toEqual(['15550101', '15550102']);
			expect(clientids(await api.get('/subscriber/list', { messenger: 'whatsapp' }))).toEqual(['15550101', '15550102']);
			expect(clientids(await api.get('/subscriber/list', { tag: 'spam' }))).toEqual(['100004']);
			expect(clientids(await api.get('/subscriber/list', { active: false }))).toEqual(['15550102']);
			expect(clientids(await api.post('/subscriber/list', { blocked: true }))).toEqual(['100004']);
			expect(clientids(await api.get('/subscriber/list', { dialog: 'false' }))).toEqual(['100003']);
			const active = await api.get('/subscriber/list', { active: true, limit: 2 });
			expect(active.body.total).toBe(5);
			expect(active.body.items.length).toBe(2);
		});

		test('sorts old (default) or new and filters by subscription dates', async () => {
			const old = clientids(await api.get('/subscriber/list', {}));
			expect(old).toEqual(['100001', '100002', '15550101', '100003', '100004', '15550102']);
			expect(clientids(await api.get('/subscriber/list', { sort: 'new' }))).toEqual([...old].reverse());
			const now = Date.now();
			const day = (daysAgo: number) => new Date(now - daysAgo * 86_400_000).toISOString().slice(0, 10);
			// Seeded 9, 6, 5, 3, 2 and 1 days ago.
			expect(clientids(await api.get('/subscriber/list', { from: day(5), to: day(2) }))).toEqual([
				'15550101',
				'100003',
				'100004',
			]);
			expect(clientids(await api.get('/subscriber/list', { to: day(6) }))).toEqual(['100001', '100002']);
			const since = new Date(now - 1.5 * 86_400_000).toISOString();
			expect(clientids(await api.get('/subscriber/list', { from: since }))).toEqual(['15550102']);
		});

		test('rejects a bad sort, date or flag naming the parameter', async () => {
			expect((await api.get('/subscriber/list', { sort: 'newest' })).body).toMatchObject({
				code: 'invalid_param',
				param: 'sort',
			});
			expect((await api.get('/subscriber/list', { from: '2026-02-30' })).body).toMatchObject({
				code: 'invalid_param',
				param: 'from',
			});
			expect((await api.get('/subscriber/list', { to: 'yesterday' })).body).toMatchObject({
				code: 'invalid_param',
				param: 'to',
			});
			expect((await api.get('/subscriber/list', { blocked: 'maybe' })).body).toMatchObject({
				code: 'invalid_param',
				param: 'blocked',
			});
			expect((await api.get('/subscriber/list', { botid: 'bot_none' })).body).toMatchObject({
				code: 'not_found',
				param: 'botid',
			});
		});
	});

	describe('create and update', () => {
		test('/subscriber/create creates a card once, emits subscriber.new, then updates it', async () => {
			events.length = 0;
			const created = await api.post('/subscriber/create', {
				botid: 'bot_tg',
				clientid: 'c-1',
				name: 'Nina',
				username: 'nina',
				note: 'from a form',
			});
			expect(created.status).toBe(200);
			expect(created.body.created).toBe(true);
			expect(created.body.subscriber).toMatchObject({
				botid: 'bot_tg',
				clientid: 'c-1',
				messenger: 'telegram',
				name: 'Nina',
				username: 'nina',
				note: 'from a form',
				tags: [],
				active: true,
				blocked: false,
				dialog: false,
				stage: null,
				variables: {},
			});
			expect(events).toEqual([{ type: 'subscriber.new', data: { subscriber: created.body.subscriber } }]);

			const again = await api.post('/subscriber/create', {
				botid: 'bot_tg',
				clientid: 'c-1',
				messenger: 'telegram',
				note: 'updated',
			});
			expect(again.body.created).toBe(false);
			expect(again.body.subscriber).toMatchObject({ id: created.body.subscriber.id, name: 'Nina', note: 'updated' });
			expect(events.length).toBe(1);

			const read = await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-1' });
			expect(read.body.subscriber.note).toBe('updated');
			expect((await api.get('/subscriber/list', { botid: 'bot_tg' })).body.total).toBe(5);
		});

		test('/subscriber/update changes only the passed fields; an empty string clears one', async () => {
			const updated = await api.post('/subscriber/update', {
				botid: 'bot_tg',
				clientid: 'c-1',
				username: 'nina_k',
				note: '',
			});
			expect(updated.body.subscriber).toMatchObject({ name: 'Nina', username: 'nina_k', note: '' });
			const read = await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-1' });
			expect(read.body.subscriber).toMatchObject({ name: 'Nina', username: 'nina_k', note: '' });
		});

		test('create and update validate every parameter and change nothing on error', async () => {
			const noClient = await api.post('/subscriber/create', { botid: 'bot_tg' });
			expect(noClient.body).toMatchObject({ code: 'missing_param', param: 'clientid' });
			const wrongMessenger = await api.post('/subscriber/create', {
				botid: 'bot_tg',
				clientid: 'c-2',
				messenger: 'whatsapp',
			});
			expect(wrongMessenger.status).toBe(422);
			expect(wrongMessenger.body).toMatchObject({ code: 'param_conflict', param: 'messenger' });
			const badName = await api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'c-2', name: { first: 'x' } });
			expect(badName.body).toMatchObject({ code: 'invalid_param', param: 'name' });
			expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-2' })).body).toMatchObject({
				code: 'not_found',
				param: 'clientid',
			});
			const unknownBot = await api.post('/subscriber/create', { botid: 'bot_x', clientid: 'c-2' });
			expect(unknownBot.body).toMatchObject({ code: 'not_found', param: 'botid' });
			const missing = await api.post('/subscriber/update', { botid: 'bot_tg', clientid: 'nobody', name: 'x' });
			expect(missing.body).toMatchObject({ code: 'not_found', param: 'clientid' });
		});
	});

	describe('tags', () => {
		test('/subscriber/tag/add takes a string or an array; a trigger tag starts its chain', async () => {
			const one = await api.post('/subscriber/tag/add', { botid: 'bot_tg', clientid: 'c-1', tag: 'lead' });
			expect(one.body).toEqual({ tags: ['lead'], chains: false });
			const many = await api.post('/subscriber/tag/add', {
				botid: 'bot_tg',
				clientid: 'c-1',
				tag: ['lead', 'stage:qualified', 'promo'],
			});
			expect(many.body).toEqual({ tags: ['lead', 'stage:qualified', 'promo'], chains: true });
			const running = await api.get('/subscriber/chains/get', { botid: 'bot_tg', clientid: 'c-1' });
			expect(running.body.chains).toEqual([expect.objectContaining({ chaincode: '1002', step: '1', by: 'tag' })]);
			// A tag the card already has triggers nothing again.
			const repeat = await api.post('/subscriber/tag/add', {
				botid: 'bot_tg',
				clientid: 'c-1',
				tag: 'stage:qualified',
			});
			expect(repeat.body.chains).toBe(false);
			const listed = await api.get('/subscriber/tag/list', { botid: 'bot_tg', clientid: 'c-1' });
			expect(listed.body).toEqual({ tags: ['lead', 'stage:qualified', 'promo'] });
		});

		test('/subscriber/tag/remove removes one or several tags', async () => {
			const removed = await api.post('/subscriber/tag/remove', {
				botid: 'bot_tg',
				clientid: 'c-1',
				tag: ['lead', 'absent'],
			});
			expect(removed.body).toEqual({ tags: ['stage:qualified', 'promo'] });
			await api.post('/subscriber/tag/remove', { botid: 'bot_tg', clientid: 'c-1', tag: 'promo' });
			expect((await api.post('/subscriber/tag/list', { botid: 'bot_tg', clientid: 'c-1' })).body.tags).toEqual([
				'stage:qualified',
			]);
		});

		test('tag errors name the parameter', async () => {
			expect((await api.post('/subscriber/tag/add', { botid: 'bot_tg', clientid: 'c-1' })).body).toMatchObject({
				code: 'missing_param',
				param: 'tag',
			});
			expect(
				(await api.post('/subscriber/tag/add', { botid: 'bot_tg', clientid: 'c-1', tag: ['ok', 3] })).body,
			).toMatchObject({ code: 'invalid_param', param: 'tag' });
			expect(
				(await api.post('/subscriber/tag/add', { botid: 'bot_tg', clientid: 'c-1', tag: ['ok', '  '] })).body,
			).toMatchObject({ code: 'invalid_param', param: 'tag' });
			expect((await api.get('/subscriber/tag/list', { botid: 'bot_tg' })).body).toMatchObject({
				code: 'missing_param',
				param: 'clientid',
			});
			expect((await api.post('/subscriber/tag/list', { botid: 'bot_tg', clientid: 'c-1' })).body.tags).toEqual([
				'stage:qualified',
			]);
		});
	});

	describe('variables', () => {
		test('/subscriber/data/set writes into every chain of the bot, or into one chain', async () => {
			const all = await api.post('/subscriber/data/set', {
				botid: 'bot_tg',
				clientid: 'c-1',
				data: { city: 'Oslo', visits: 3 },
			});
			expect(all.body).toEqual({ ok: true, chains: 2 });
			const one = await api.post('/subscriber/data/set', {
				botid: 'bot_tg',
				clientid: 'c-1',
				chaincode: '1001',
				data: { promo: 'X1', visits: null },
			});
			expect(one.body).toEqual({ ok: true, chains: 1 });
			const read = await api.get('/subscriber/data/get', { botid: 'bot_tg', clientid: 'c-1' });
			expect(read.body).toEqual({
				chains: [
					{ chaincode: '1001', name: 'Welcome', variables: { city: 'Oslo', promo: 'X1' } },
					{ chaincode: '1002', name: 'Qualified lead follow-up', variables: { city: 'Oslo', visits: 3 } },
				],
			});
			const filtered = await api.get('/subscriber/data/get', { botid: 'bot_tg', clientid: 'c-1', chaincode: '1002' });
			expect(filtered.body.chains).toEqual([
				{ chaincode: '1002', name: 'Qualified lead follow-up', variables: { city: 'Oslo', visits: 3 } },
			]);
			const card = await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-1' });
			expect(card.body.subscriber.variables).toEqual({
				'1001': { city: 'Oslo', promo: 'X1' },
				'1002': { city: 'Oslo', visits: 3 },
			});
		});

		test('variable errors: data required and scalar, chaincode of the same bot', async () => {
			const base = { botid: 'bot_tg', clientid: 'c-1' };
			expect((await api.post('/subscriber/data/set', base)).body).toMatchObject({
				code: 'missing_param',
				param: 'data',
			});
			expect((await api.post('/subscriber/data/set', { ...base, data: [1] })).body).toMatchObject({
				code: 'invalid_param',
				param: 'data',
			});
			expect((await api.post('/subscriber/data/set', { ...base, data: { nested: { a: 1 } } })).body).toMatchObject({
				code: 'invalid_param',
				param: 'data',
			});
			expect(
				(await api.post('/subscriber/data/set', { ...base, data: { a: 1 }, chaincode: '2001' })).body,
			).toMatchObject({ code: 'param_conflict', param: 'chaincode' });
			expect(
				(await api.post('/subscriber/data/set', { ...base, data: { a: 1 }, chaincode: '9999' })).body,
			).toMatchObject({ code: 'not_found', param: 'chaincode' });
			expect((await api.get('/subscriber/data/get', { ...base, chaincode: '9999' })).body).toMatchObject({
				code: 'not_found',
				param: 'chaincode',
			});
			const unchanged = await api.get('/subscriber/data/get', { ...base, chaincode: '1001' });
			expect(unchanged.body.chains[0].variables).toEqual({ city: 'Oslo', promo: 'X1' });
		});
	});

	describe('chat and chains of a card', () => {
		test('/subscriber/chat/get pages the history newest first', async () => {
			const all = await api.get('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100001' });
			expect(all.body.items.map((message) => message.text)).toEqual([
				'Yes, delivery to Berlin takes 2 days.',
				'Hello, Alice Smith!',
				'Hi! Do you ship to Berlin?',
			]);
			expect(all.body.items[2]).toMatchObject({ direction: 'in', source: 'subscriber' });
			const page = await api.post('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100001', limit: 1, offset: 1 });
			expect(page.body.items).toEqual([all.body.items[1]]);
		});

		test('/subscriber/chains/get lists the running chains', async () => {
			const none = await api.get('/subscriber/chains/get', { botid: 'bot_tg', clientid: '100002' });
			expect(none.body).toEqual({ chains: [] });
		});
	});

	describe('blocking and deletion', () => {
		test('/subscriber/block and /subscriber/unblock return and store the flag', async () => {
			const blocked = await api.post('/subscriber/block', { botid: 'bot_tg', clientid: 'c-1' });
			expect(blocked.body.subscriber.blocked).toBe(true);
			expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-1' })).body.subscriber.blocked).toBe(
				true,
			);
			expect((await api.get('/subscriber/list', { blocked: true })).body.total).toBe(2);
			const unblocked = await api.post('/subscriber/unblock', { botid: 'bot_tg', clientid: 'c-1' });
			expect(unblocked.body.subscriber.blocked).toBe(false);
			expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-1' })).body.subscriber.blocked).toBe(
				false,
			);
			expect((await api.post('/subscriber/block', { botid: 'bot_tg', clientid: 'ghost' })).body).toMatchObject({
				code: 'not_found',
				param: 'clientid',
			});
		});

		test('/subscriber/delete needs botid, clientid and messenger, and removes the card', async () => {
			expect((await api.post('/subscriber/delete', { botid: 'bot_tg', clientid: 'c-1' })).body).toMatchObject({
				code: 'missing_param',
				param: 'messenger',
			});
			expect(
				(await api.post('/subscriber/delete', { botid: 'bot_tg', clientid: 'c-1', messenger: 'whatsapp' })).body,
			).toMatchObject({
				code: 'not_found',
				param: 'messenger',
			});
			const id = (await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-1' })).body.subscriber.id;
			const deleted = await api.post('/subscriber/delete', { botid: 'bot_tg', clientid: 'c-1', messenger: 'telegram' });
			expect(deleted.status).toBe(200);
			expect(deleted.body).toEqual({ result: expect.stringContaining('deleted') });
			expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'c-1' })).body).toMatchObject({
				code: 'not_found',
			});
			expect((await api.get('/subscriber/get', { subscriber: id })).body).toMatchObject({
				code: 'not_found',
				param: 'subscriber',
			});
			expect((await api.get('/subscriber/find', { query: 'Nina' })).body.items).toEqual([]);
			// Created again, it is a new card with a new number and an empty history.
			const recreated = await api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'c-1' });
			expect(recreated.body.created).toBe(true);
			expect(recreated.body.subscriber.id).not.toBe(id);
			expect((await api.get('/subscriber/chains/get', { botid: 'bot_tg', clientid: 'c-1' })).body.chains).toEqual([]);
		});
	});

	describe('authentication, scopes, bot restriction and methods', () => {
		test('401 without a key; 405 on GET for every change method', async () => {
			expect((await api.withKey(undefined).get('/subscriber/list')).status).toBe(401);
			for (const path of [
				'/subscriber/create',
				'/subscriber/update',
				'/subscriber/tag/add',
				'/subscriber/tag/remove',
				'/subscriber/data/set',
				'/subscriber/block',
				'/subscriber/unblock',
				'/subscriber/delete',
			]) {
				const response = await api.get(path, { botid: 'bot_tg', clientid: '100001' });
				expect([path, response.status]).toEqual([path, 405]);
			}
		});

		test('403 without subscribers:read or subscribers:write', async () => {
			const writer = await api.withNewKey(['subscribers:write']);
			const denied = await writer.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' });
			expect(denied.status).toBe(403);
			expect(denied.body).toMatchObject({ code: 'forbidden', scope: 'subscribers:read' });
			const reader = await api.withNewKey(['subscribers:read']);
			const refused = await reader.post('/subscriber/block', { botid: 'bot_tg', clientid: '100001' });
			expect(refused.body).toMatchObject({ code: 'forbidden', scope: 'subscribers:write' });
			expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' })).body.subscriber.blocked).toBe(
				false,
			);
		});

		test('a key restricted to one bot sees and touches only that bot', async () => {
			const waOnly = await api.withNewKey(['subscribers:read', 'subscribers:write'], ['bot_wa']);
			const listed = await waOnly.get('/subscriber/list', { limit: 100 });
			expect(listed.body.items.every((card) => card.botid === 'bot_wa')).toBe(true);
			expect(listed.body.total).toBe(2);
			expect(
				(await waOnly.get('/subscriber/find', { query: 'a' })).body.items.every((card) => card.botid === 'bot_wa'),
			).toBe(true);
			const other = await waOnly.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' });
			expect(other.status).toBe(403);
			expect(other.body).toMatchObject({ code: 'bot_forbidden', param: 'botid' });
			const aliceId = (await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' })).body.subscriber.id;
			expect((await waOnly.get('/subscriber/get', { subscriber: aliceId })).status).toBe(403);
			expect((await waOnly.post('/subscriber/create', { botid: 'bot_tg', clientid: 'x' })).status).toBe(403);
			expect((await waOnly.post('/subscriber/list', { botid: 'bot_tg' })).status).toBe(403);
			expect((await api.get('/subscriber/get', { botid: 'bot_tg', clientid: 'x' })).body.code).toBe('not_found');
		});

		test('/subscriber/get without botid or subscriber names what is missing', async () => {
			const neither = await api.get('/subscriber/get', {});
			expect(neither.status).toBe(422);
			expect(neither.body).toMatchObject({
				code: 'missing_param',
				param: 'botid',
				error: expect.stringContaining('subscriber'),
			});
			expect((await api.get('/subscriber/get', { subscriber: 'abc' })).body).toMatchObject({
				code: 'invalid_param',
				param: 'subscriber',
			});
			expect(
				(await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001', messenger: 'whatsapp' })).body,
			).toMatchObject({
				code: 'not_found',
				param: 'messenger',
			});
		});
	});
});
