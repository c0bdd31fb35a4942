import type { ILoadOptionsFunctions, INodeParameters } from 'n8n-workflow';
import { MessengerBotBuilderApi } from '../../credentials/MessengerBotBuilderApi.credentials';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import { MessengerBotBuilderTrigger } from '../../nodes/MessengerBotBuilderTrigger/MessengerBotBuilderTrigger.node';
import { Harness } from '../support/runWorkflow';
import { PACKAGE } from '../support/nodeTypes';
import { byId, NODE_NAME } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/** The pickers n8n calls while a user edits the node, run with n8n-core's own load-options context. */
describe('pickers and credential test', () => {
	let bed: NodeTestBed;
	const methods = new MessengerBotBuilder().methods;
	const editing = (parameters: INodeParameters) =>
		bed.node.harness.loadOptionsContext(bed.node.workflow(parameters), NODE_NAME) as unknown as ILoadOptionsFunctions;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	it('bots, with a search filter', async () => {
		const all = await methods.listSearch.searchBots.call(editing({ resource: 'bot', operation: 'getMany' }));
		expect(all.results.map((bot) => bot.value)).toEqual(['bot_tg', 'bot_wa']);
		expect(all.results[0].name).toBe('Shop assistant (telegram)');
		const filtered = await methods.listSearch.searchBots.call(editing({}), 'support');
		expect(filtered.results.map((bot) => bot.value)).toEqual(['bot_wa']);
	});

	it('projects, lists, CRM stages', async () => {
		const projects = await methods.listSearch.searchProjects.call(editing({}));
		expect(projects.results).toEqual(expect.arrayContaining([{ name: 'Sales', value: 'grp_sales' }]));
		const lists = await methods.listSearch.searchLists.call(editing({}));
		expect(lists.results[0]).toMatchObject({ name: 'Leads (3 rows)', value: '1' });
		const stages = await methods.listSearch.searchStages.call(editing({}));
		expect(stages.results.map((stage) => stage.value)).toEqual(['New', 'Qualified', 'Won', 'Lost']);
	});

	it("chains, only the chosen bot's", async () => {
		const context = editing({ resource: 'chain', operation: 'start', botId: byId('bot_wa'), clientId: '1' });
		const chains = await methods.listSearch.searchChains.call(context);
		expect(chains.results).toEqual([{ name: 'Support triage (2001)', value: '2001' }]);
	});

	it('with a bot-restricted key: only its bots and chains; another bot or a missing scope is a clear error', async () => {
		const waOnly = await bed.api.keyWith(['bots:read', 'account:read', 'subscribers:read'], ['bot_wa']);
		bed.node.useKey('wa-only', waOnly, bed.baseUrl);
		const asWaOnly = (parameters: INodeParameters) =>
			bed.node.harness.loadOptionsContext(
				bed.node.workflow(parameters, { credential: 'wa-only' }),
				NODE_NAME,
			) as unknown as ILoadOptionsFunctions;
		const bots = await methods.listSearch.searchBots.call(asWaOnly({ resource: 'bot', operation: 'getMany' }));
		expect(bots.results.map((bot) => bot.value)).toEqual(['bot_wa']);
		const forNewKey = await methods.loadOptions.getBots.call(asWaOnly({ resource: 'apiKey', operation: 'create' }));
		expect(forNewKey).toEqual([{ name: 'Support desk (whatsapp)', value: 'bot_wa' }]);
		const chains = await methods.listSearch.searchChains.call(asWaOnly({ resource: 'chain', operation: 'start' }));
		expect(chains.results.map((chain) => chain.value)).toEqual(['2001']);

		const otherBot = await bed.node.failure(
			{ resource: 'subscriber', operation: 'getTags', botId: byId('bot_tg'), clientId: '100001' },
			{ credential: 'wa-only' },
		);
		expect(otherBot.httpCode).toBe('403');
		expect(otherBot.description).toMatch(/restricted to other bots/);

		const noSummary = await bed.api.keyWith(['bots:read', 'chains:write'], ['bot_wa']);
		bed.node.useKey('no-summary', noSummary, bed.baseUrl);
		const context = bed.node.harness.loadOptionsContext(
			bed.node.workflow({ resource: 'chain', operation: 'start' }, { credential: 'no-summary' }),
			NODE_NAME,
		) as unknown as ILoadOptionsFunctions;
		const refusal = await methods.listSearch.searchChains.call(context).catch((error: unknown) => error);
		expect(refusal).toMatchObject({ httpCode: '403', description: expect.stringContaining('account:read') });
		expect(JSON.stringify(refusal)).not.toContain(noSummary);
	});

	it("the trigger's Bot Names or IDs asked for before the node has a credential (n8n's editor, a node just added): an error that says what to do; with the credential: the bots", async () => {
		const trigger = new MessengerBotBuilderTrigger();
		const harness = new Harness({ nodes: [trigger], credentials: [new MessengerBotBuilderApi()] });
		harness.addCredential({
			id: 'main',
			name: 'main',
			type: 'messengerBotBuilderApi',
			data: { apiKey: bed.sandbox.adminKey, baseUrl: bed.baseUrl },
		});
		const node = {
			id: 'trigger',
			name: 'Trigger',
			type: `${PACKAGE}.messengerBotBuilderTrigger`,
			typeVersion: 1,
			position: [0, 0] as [number, number],
			parameters: { events: ['subscriber.new'] },
		};
		const editing = (credentials?: { messengerBotBuilderApi: { id: string; name: string } }) =>
			harness.loadOptionsContext(
				{ nodes: [{ ...node, credentials }], connections: {} },
				'Trigger',
			) as unknown as ILoadOptionsFunctions;
		const before = await trigger.methods.loadOptions.getBots.call(editing()).catch((error: unknown) => error);
		expect(before).toMatchObject({
			message: 'No Messenger Bot Builder API credential is selected yet',
			description: expect.stringContaining('choose "Refresh List" in the field\'s menu, or close and reopen the node'),
		});
		expect(
			await trigger.methods.loadOptions.getBots.call(editing({ messengerBotBuilderApi: { id: 'main', name: 'main' } })),
		).toEqual([
			{ name: 'Shop assistant (telegram)', value: 'bot_tg' },
			{ name: 'Support desk (whatsapp)', value: 'bot_wa' },
		]);
	});

	it('list columns for the resource mapper and for conditions, in order, non-Latin names kept', async () => {
		const { list } = await bed.api.call('/list/create', {
			name: 'Клиенты',
			headers: ['Имя', 'Телефон', 'CreationDate'],
		});
		const context = editing({ resource: 'listRow', operation: 'add', listId: byId(list.id) });
		const mapped = await methods.resourceMapping.getListColumns.call(context);
		expect(mapped.fields.map((field) => field.id)).toEqual(['Имя', 'Телефон', 'CreationDate']);
		const byName = editing({
			resource: 'listRow',
			operation: 'find',
			listId: { __rl: true, mode: 'name', value: 'Клиенты' },
		});
		const options = await methods.loadOptions.getColumns.call(byName);
		expect(options.map((option) => option.value)).toEqual(['Имя', 'Телефон', 'CreationDate']);
	});

	it('the Columns mapper of List Row Add and Update asks for no column to match on (Update picks the row by ID)', () => {
		const mappers = new MessengerBotBuilder().description.properties.filter(
			(property) => property.type === 'resourceMapper',
		);
		expect(mappers.map((mapper) => mapper.displayOptions?.show?.operation)).toEqual([['add'], ['update']]);
		for (const mapper of mappers) expect(mapper.typeOptions?.resourceMapper?.mode).toBe('add');
	});

	it("the credential's test request succeeds with a good key and fails with a bad one", async () => {
		const test = (apiKey: string, baseUrl: string) =>
			bed.node.harness.testCredential('messengerBotBuilderApi', { apiKey, baseUrl });
		expect(await test(bed.sandbox.adminKey, `${bed.baseUrl}/`)).toBe(200); // a trailing slash is fine
		expect(await test('wrong', bed.baseUrl)).toBe(401);
		expect(await test(bed.sandbox.adminKey, bed.sandbox.url)).toBe(404); // forgot /api
	});
});
