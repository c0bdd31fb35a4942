import { byId } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

const BOT = byId('bot_tg');

describe('Subscriber operations change and read the sandbox', () => {
	let bed: NodeTestBed;
	const card = (clientid: string) =>
		bed.api.call('/subscriber/get', { botid: 'bot_tg', clientid }).then((answer) => answer.subscriber);

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	it('create or update: creates, then updates the same card', async () => {
		const [created] = await bed.node.json(
			{
				resource: 'subscriber',
				operation: 'createOrUpdate',
				botId: BOT,
				clientId: '={{ $json.id }}',
				additionalFields: { name: '={{ $json.name }}', note: 'from n8n' },
			},
			{ items: [{ id: '777001', name: 'Zoe' }] },
		);
		expect(created).toMatchObject({ clientid: '777001', name: 'Zoe', note: 'from n8n', created: true });
		expect(await card('777001')).toMatchObject({ name: 'Zoe', note: 'from n8n' });

		const [again] = await bed.node.json({
			resource: 'subscriber',
			operation: 'createOrUpdate',
			botId: BOT,
			clientId: '777001',
			additionalFields: { username: 'zoe_z' },
		});
		expect(again).toMatchObject({ created: false, username: 'zoe_z', name: 'Zoe' });
	});

	it('update changes only the given fields', async () => {
		await bed.node.json({
			resource: 'subscriber',
			operation: 'update',
			botId: BOT,
			clientId: '100003',
			updateFields: { note: 'VIP soon' },
		});
		expect(await card('100003')).toMatchObject({ name: 'Carol White', note: 'VIP soon' });
	});

	it('get by bot and client ID, and by card number', async () => {
		const [byClient] = await bed.node.json({
			resource: 'subscriber',
			operation: 'get',
			lookup: 'byClient',
			botId: BOT,
			clientId: '100001',
		});
		expect(byClient).toMatchObject({ clientid: '100001', name: 'Alice Smith' });
		const [byNumber] = await bed.node.json({
			resource: 'subscriber',
			operation: 'get',
			lookup: 'byNumber',
			subscriber: String(byClient.id),
		});
		expect(byNumber).toEqual(byClient);
	});

	it('find by text, with a tag filter', async () => {
		const found = await bed.node.json({
			resource: 'subscriber',
			operation: 'find',
			query: 'alice',
			returnAll: true,
			options: { tag: 'vip' },
		});
		expect(found.map((entry) => entry.clientid)).toEqual(['100001']);
	});

	it('get many with filters, sort, limit and Return All', async () => {
		const blocked = await bed.node.json({
			resource: 'subscriber',
			operation: 'getMany',
			returnAll: true,
			filters: { botid: byId('bot_tg'), blocked: 'true' },
		});
		expect(blocked.map((entry) => entry.clientid)).toEqual(['100004']);

		const newest = await bed.node.json({
			resource: 'subscriber',
			operation: 'getMany',
			returnAll: false,
			limit: 2,
			sort: 'new',
			output: 'raw',
		});
		const everyone = await bed.api.call('/subscriber/list', { sort: 'new', limit: 2 });
		expect(newest).toEqual(everyone.items);

		const all = await bed.node.json({
			resource: 'subscriber',
			operation: 'getMany',
			returnAll: true,
			filters: { messenger: 'whatsapp', dialog: 'true' },
		});
		expect(all.every((entry) => entry.messenger === 'whatsapp' && entry.dialog === true)).toBe(true);
	});

	it('block and unblock', async () => {
		const [blocked] = await bed.node.json({
			resource: 'subscriber',
			operation: 'block',
			botId: BOT,
			clientId: '100002',
		});
		expect(blocked.blocked).toBe(true);
		expect((await card('100002')).blocked).toBe(true);
		await bed.node.json({ resource: 'subscriber', operation: 'unblock', botId: BOT, clientId: '100002' });
		expect((await card('100002')).blocked).toBe(false);
	});

	it('tags: add several, list, remove one', async () => {
		await bed.node.json({
			resource: 'subscriber',
			operation: 'addTags',
			botId: BOT,
			clientId: '100003',
			tags: 'alpha, beta',
		});
		expect((await card('100003')).tags).toEqual(expect.arrayContaining(['alpha', 'beta']));
		const [listed] = await bed.node.json({
			resource: 'subscriber',
			operation: 'getTags',
			botId: BOT,
			clientId: '100003',
		});
		expect(listed.tags).toEqual(expect.arrayContaining(['alpha', 'beta']));
		await bed.node.json({
			resource: 'subscriber',
			operation: 'removeTag',
			botId: BOT,
			clientId: '100003',
			tag: 'alpha',
		});
		const tags = (await card('100003')).tags as string[];
		expect(tags).toContain('beta');
		expect(tags).not.toContain('alpha');
	});

	it('tags from an array expression with a missing entry fail naming the field; no tag "undefined" is added', async () => {
		const before = (await card('100004')).tags as string[];
		const error = await bed.node.failure(
			{
				resource: 'subscriber',
				operation: 'addTags',
				botId: BOT,
				clientId: '100004',
				tags: '={{ [$json.first, $json.second, $json.third] }}',
			},
			{ items: [{ first: 'gamma', third: 'delta' }] },
		);
		expect(error.message).toBe('The field "Tags" has an empty entry (entry 2 is undefined): nothing was sent');
		expect((await card('100004')).tags).toEqual(before);
	});

	it('variables: set into one chain, read back', async () => {
		await bed.node.json({
			resource: 'subscriber',
			operation: 'setVariables',
			botId: BOT,
			clientId: '100003',
			variables: { values: [{ name: 'promo', value: 'SPRING' }] },
			chainCode: byId('1001'),
		});
		const stored = await bed.api.call('/subscriber/data/get', {
			botid: 'bot_tg',
			clientid: '100003',
			chaincode: '1001',
		});
		expect(stored.chains[0].variables).toMatchObject({ promo: 'SPRING' });
		const [read] = await bed.node.json({
			resource: 'subscriber',
			operation: 'getVariables',
			botId: BOT,
			clientId: '100003',
			chainCode: byId('1001'),
		});
		expect(read).toEqual(stored);
	});

	it('chat history with Return All, and running chains', async () => {
		for (let n = 0; n < 3; n++) {
			await bed.api.call('/message/send', { botid: 'bot_tg', clientid: '100001', text: `hello ${n}` });
		}
		const expected = await bed.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100001', limit: 1000 });
		const chat = await bed.node.json({
			resource: 'subscriber',
			operation: 'getChatHistory',
			botId: BOT,
			clientId: '100001',
			returnAll: true,
			output: 'raw',
		});
		expect(chat).toEqual(expected.items);
		expect(chat.length).toBeGreaterThanOrEqual(3);

		await bed.api.call('/chain/start', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' });
		const chains = await bed.node.json({
			resource: 'subscriber',
			operation: 'getRunningChains',
			botId: BOT,
			clientId: '100001',
		});
		const running = await bed.api.call('/subscriber/chains/get', { botid: 'bot_tg', clientid: '100001' });
		expect(chains).toEqual(running.chains);
		expect(chains.length).toBeGreaterThan(0);
	});

	it('delete removes the card', async () => {
		await bed.api.call('/subscriber/create', { botid: 'bot_tg', clientid: '777009' });
		const [result] = await bed.node.json({
			resource: 'subscriber',
			operation: 'delete',
			botId: BOT,
			clientId: '777009',
			messenger: 'telegram',
		});
		expect(result.deleted).toBe(true);
		await expect(card('777009')).rejects.toThrow(/422/);
	});

	it('an empty required parameter is an error that names the field as the user sees it', async () => {
		const error = await bed.node.failure({
			resource: 'subscriber',
			operation: 'block',
			botId: BOT,
			clientId: '={{ $json.missing }}',
		});
		expect(error.message).toBe('The field "Subscriber" is empty');
	});
});
