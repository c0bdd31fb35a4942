import { startTestBed, type NodeTestBed } from '../support/sandbox';

describe('Account, Bot and Project through a real workflow execution', () => {
	let bed: NodeTestBed;

	beforeAll(async () => {
		bed = await startTestBed();
	});
	afterAll(async () => bed.close());

	it('gets the balance the service holds', async () => {
		const expected = await bed.api.call('/account/balance/get');
		const [item] = await bed.node.json({ resource: 'account', operation: 'getBalance' });
		expect(item).toEqual({ balance: expected.balance });
	});

	it('gets the account with tariff and usage', async () => {
		const [item] = await bed.node.json({ resource: 'account', operation: 'get' });
		expect(item).toEqual(await bed.api.call('/account/get'));
		expect(item).toHaveProperty('tariff');
	});

	it('gets the summary with the seeded bots', async () => {
		const [item] = await bed.node.json({ resource: 'account', operation: 'getSummary' });
		const ids = (item.bots as Array<{ id: string }>).map((bot) => bot.id);
		expect(ids).toEqual(expect.arrayContaining(['bot_tg', 'bot_wa']));
	});

	it('lists bots and projects, one item each, paired with the input item', async () => {
		const bots = await bed.node.items({ resource: 'bot', operation: 'getMany' });
		expect(bots.map((bot) => bot.json.id)).toEqual(expect.arrayContaining(['bot_tg', 'bot_wa']));
		expect(bots.every((bot) => (bot.pairedItem as { item: number }).item === 0)).toBe(true);

		const projects = await bed.node.json({ resource: 'project', operation: 'getMany' });
		const expected = await bed.api.call('/group/list');
		expect(projects).toEqual(expected.items);
	});

	it('reads the API log with filters, and all of it across pages', async () => {
		const failed = await bed.node.json({
			resource: 'account',
			operation: 'getApiLog',
			returnAll: true,
			filters: { path: '/account/balance', status: 200 },
		});
		expect(failed.length).toBeGreaterThan(0);
		expect(failed.every((entry) => String(entry.path).includes('/account/balance') && entry.status === 200)).toBe(true);

		const limited = await bed.node.json({ resource: 'account', operation: 'getApiLog', returnAll: false, limit: 2 });
		expect(limited).toHaveLength(2);
	});

	it('runs once per input item', async () => {
		const items = await bed.node.items(
			{ resource: 'account', operation: 'getBalance' },
			{ items: [{ a: 1 }, { a: 2 }, { a: 3 }] },
		);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});
});
