import type { IDataObject, ILoadOptionsFunctions, INodeParameters } from 'n8n-workflow';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import { byId, NODE_NAME } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/** The subscriber and messenger pickers, run with n8n-core's load-options context and engine. */
describe('subscriber and messenger pickers', () => {
	let bed: NodeTestBed;
	const methods = new MessengerBotBuilder().methods;
	const editing = (parameters: INodeParameters) =>
		bed.node.harness.loadOptionsContext(bed.node.workflow(parameters), NODE_NAME) as unknown as ILoadOptionsFunctions;
	const subscribersOf = async (query: IDataObject) =>
		(await bed.api.call('/subscriber/list', { limit: 1000, ...query })).items as IDataObject[];

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	it("with an empty search box: the chosen bot's newest subscribers, labelled by name, nickname and Client ID", async () => {
		await bed.api.call('/subscriber/create', {
			botid: 'bot_wa',
			clientid: 'picker-newest',
			name: 'Newest Person',
			username: 'newest',
		});
		const context = editing({ resource: 'subscriber', operation: 'getTags', botId: byId('bot_wa') });
		const page = await methods.listSearch.searchSubscribers.call(context);
		const expected = await subscribersOf({ botid: 'bot_wa', sort: 'new' });
		expect(expected.length).toBeGreaterThan(1);
		expect(page.results.map((entry) => entry.value)).toEqual(expected.map((card) => card.clientid));
		expect(page.results[0]).toEqual({ name: 'Newest Person (@newest, picker-newest)', value: 'picker-newest' });
		expect(page.paginationToken).toBeUndefined();
	});

	it('searches by name or nickname through /subscriber/find, within the chosen bot', async () => {
		const byName = await methods.listSearch.searchSubscribers.call(editing({ botId: byId('bot_tg') }), 'alice');
		expect(byName.results.map((entry) => entry.value)).toEqual(['100001']);
		const byNickname = await methods.listSearch.searchSubscribers.call(editing({ botId: byId('bot_wa') }), 'newest');
		expect(byNickname.results.map((entry) => entry.value)).toEqual(['picker-newest']);
		const otherBot = await methods.listSearch.searchSubscribers.call(editing({ botId: byId('bot_tg') }), 'newest');
		expect(otherBot.results).toEqual([]);
	});

	it('without a bot: every bot the key sees, with the bot in the label; pages follow with a token', async () => {
		for (let index = 0; index < 60; index++) {
			await bed.api.call('/subscriber/create', {
				botid: 'bot_tg',
				clientid: `picker-bulk-${index}`,
				name: `Bulk ${index}`,
			});
		}
		const everyone = await subscribersOf({ sort: 'new' });
		expect(everyone.length).toBeGreaterThan(60);
		const context = editing({ resource: 'subscriber', operation: 'getTags' });
		const seen: string[] = [];
		let token: string | undefined;
		let pages = 0;
		do {
			const page = await methods.listSearch.searchSubscribers.call(context, undefined, token);
			seen.push(...page.results.map((entry) => String(entry.value)));
			token = page.paginationToken as string | undefined;
			pages++;
		} while (token && pages < 10);
		expect(pages).toBe(2);
		expect(seen).toEqual(everyone.map((card) => card.clientid));
		const first = await methods.listSearch.searchSubscribers.call(context, 'Bulk 59');
		expect(first.results).toEqual([{ name: 'Bulk 59 (picker-bulk-59, bot_tg)', value: 'picker-bulk-59' }]);
	});

	it.each(['cap', 'reject'] as const)(
		'a service that serves at most 20 per page (%s): the pages still hold 50 and cover everyone once',
		async (maxPageMode) => {
			const variant = await startTestBed({ rateLimit: 0, maxPage: 20, maxPageMode });
			try {
				for (let index = 0; index < 55; index++) {
					await variant.api.call('/subscriber/create', {
						botid: 'bot_tg',
						clientid: `capped-${index}`,
						name: `Capped ${index}`,
					});
				}
				const everyone: string[] = [];
				for (let offset = 0; ; offset += 20) {
					const cards = (await variant.api.call('/subscriber/list', { sort: 'new', limit: 20, offset }))
						.items as IDataObject[];
					if (cards.length === 0) break;
					everyone.push(...cards.map((card) => String(card.clientid)));
				}
				expect(everyone.length).toBeGreaterThan(55);
				const context = variant.node.harness.loadOptionsContext(
					variant.node.workflow({ resource: 'subscriber', operation: 'getTags' }),
					NODE_NAME,
				) as unknown as ILoadOptionsFunctions;
				const sizes: number[] = [];
				const seen: string[] = [];
				let token: string | undefined;
				do {
					const page = await methods.listSearch.searchSubscribers.call(context, undefined, token);
					sizes.push(page.results.length);
					seen.push(...page.results.map((entry) => String(entry.value)));
					token = page.paginationToken as string | undefined;
				} while (token && sizes.length < 10);
				expect(seen).toEqual(everyone);
				expect(
					sizes.slice(0, -1).every((size) => size === 50) && sizes.length === Math.ceil(everyone.length / 50),
				).toBe(true);
			} finally {
				await variant.close();
			}
		},
	);

	it('a subscriber picked from the list runs like a typed Client ID', async () => {
		const picked = { __rl: true, mode: 'list', value: '100001', cachedResultName: 'Alice Smith' };
		const [fromList] = await bed.node.json({
			resource: 'subscriber',
			operation: 'getTags',
			botId: byId('bot_tg'),
			clientId: picked,
		});
		const [typed] = await bed.node.json({
			resource: 'subscriber',
			operation: 'getTags',
			botId: byId('bot_tg'),
			clientId: '100001',
		});
		expect(fromList).toEqual(typed);
		const tags = (await bed.api.call('/subscriber/tag/list', { botid: 'bot_tg', clientid: '100001' })).tags;
		expect(fromList.tags).toEqual(tags);
		const empty = await bed.node.failure({
			resource: 'subscriber',
			operation: 'getTags',
			botId: byId('bot_tg'),
			clientId: { __rl: true, mode: 'list', value: '={{ $json.none }}' },
		});
		expect(empty.message).toBe('The field "Subscriber" is empty');
	});

	it("messengers: the chosen bot's, or every bot's; a picked or typed messenger filters Get Many", async () => {
		expect((await methods.listSearch.searchMessengers.call(editing({ botId: byId('bot_wa') }))).results).toEqual([
			{ name: 'whatsapp', value: 'whatsapp' },
		]);
		expect((await methods.listSearch.searchMessengers.call(editing({}))).results.map((entry) => entry.value)).toEqual([
			'telegram',
			'whatsapp',
		]);

		const expected = (await subscribersOf({ messenger: 'whatsapp' })).map((card) => card.clientid);
		expect(expected.length).toBeGreaterThan(0);
		for (const messenger of [
			{ __rl: true, mode: 'list', value: 'whatsapp' },
			{ __rl: true, mode: 'id', value: 'whatsapp' },
		]) {
			const found = await bed.node.json({
				resource: 'subscriber',
				operation: 'getMany',
				returnAll: true,
				filters: { messenger },
				output: 'raw',
			});
			expect(found.map((card) => card.clientid)).toEqual(expected);
		}
	});
});
