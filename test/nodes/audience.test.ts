import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { byId } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/**
 * Where the service reads an empty value as "all" (a broadcast's segment, the chain of a variable
 * write or a stop, the bots of a key), an empty value from an expression must send nothing and
 * fail its item naming the field; "all" is only ever an explicit choice.
 */
describe('an empty value never widens an audience, a write or a permission', () => {
	let bed: NodeTestBed;
	const calls = async (path: string) => (await bed.api.logOf(path)).length;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	/** Runs two items with continueOnFail: the first gets `empty`, the second `given`; returns both outputs. */
	const runPair = async (parameters: INodeParameters, empty: IDataObject, given: IDataObject) => {
		const output = await bed.node.items(parameters, { items: [empty, given], continueOnFail: true });
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		return output.map((item) => item.json);
	};

	it('Broadcast → Send: Tags from an expression that comes out empty fail the item; nothing is planned for it', async () => {
		const before = await calls('/broadcast/send');
		const [failed, sent] = await runPair(
			{ resource: 'broadcast', operation: 'send', text: 'Sale', options: { tags: '={{ $json.tags }}' } },
			{ tags: ' , ' },
			{ tags: 'vip' },
		);
		expect(failed.error).toContain('The field "Tags" is empty');
		expect(failed.error).toContain('every subscriber');
		const vip = await bed.api.call('/subscriber/list', { tag: 'vip', blocked: false, limit: 1000 });
		expect(vip.total).toBeGreaterThan(0);
		expect(sent.planned).toBe(vip.total);
		expect(await calls('/broadcast/send')).toBe(before + 1);
	});

	it('Broadcast → Send: a Bot from an expression that comes out empty fails the item', async () => {
		const before = await calls('/broadcast/send');
		const [failed, sent] = await runPair(
			{ resource: 'broadcast', operation: 'send', text: 'News', options: { botid: byId('={{ $json.bot }}') } },
			{ bot: '' },
			{ bot: 'bot_wa' },
		);
		expect(failed.error).toContain('The field "Bot" is empty');
		const botSubscribers = await bed.api.call('/subscriber/list', { botid: 'bot_wa', blocked: false, limit: 1000 });
		expect(sent.planned).toBe(botSubscribers.total);
		expect(await calls('/broadcast/send')).toBe(before + 1);
	});

	it('Broadcast → Send: no segment at all fails unless "Everyone" is chosen; Everyone reaches every subscriber', async () => {
		const before = await calls('/broadcast/send');
		const error = await bed.node.failure({ resource: 'broadcast', operation: 'send', text: 'Hello' });
		expect(error.message).toContain('The segment is empty');
		expect(await calls('/broadcast/send')).toBe(before);

		const contradiction = await bed.node.failure({
			resource: 'broadcast',
			operation: 'send',
			text: 'Hello',
			audience: 'everyone',
			options: { tags: 'vip' },
		});
		expect(contradiction.message).toContain('Send To is "Everyone"');

		const [all] = await bed.node.json({
			resource: 'broadcast',
			operation: 'send',
			text: 'Hello all',
			audience: 'everyone',
		});
		const everyone = await bed.api.call('/subscriber/list', { blocked: false, limit: 1000 }); // broadcasts leave blocked cards out
		expect(all.planned).toBe(everyone.total);
		expect(await calls('/broadcast/send')).toBe(before + 1);
	});

	it('Subscriber → Set Variables: an empty chain from an expression fails; "Every Chain of the Bot" is explicit', async () => {
		const before = await calls('/subscriber/data/set');
		const parameters = {
			resource: 'subscriber',
			operation: 'setVariables',
			botId: byId('bot_tg'),
			clientId: '100001',
			variables: { values: [{ name: 'promo', value: '={{ $json.promo }}' }] },
		};
		const [failed, written] = await runPair(
			{ ...parameters, chainCode: byId('={{ $json.chain }}') },
			{ chain: '', promo: 'x' },
			{ chain: '1001', promo: 'one' },
		);
		expect(failed.error).toContain('The field "Only Chain" is empty');
		expect(failed.error).toContain('every chain of the bot');
		expect(written.chains).toBe(1);
		expect(await calls('/subscriber/data/set')).toBe(before + 1);

		const [all] = await bed.node.json({ ...parameters, scope: 'all' }, { items: [{ promo: 'all' }] });
		const { chains } = await bed.api.call('/subscriber/data/get', { botid: 'bot_tg', clientid: '100001' });
		expect(all.chains).toBe(chains.length);
		expect(chains.length).toBeGreaterThan(1);
	});

	it('Chain → Stop: an empty chain from an expression fails instead of stopping every chain', async () => {
		const before = await calls('/chain/stop');
		const error = await bed.node.failure(
			{
				resource: 'chain',
				operation: 'stop',
				botId: byId('bot_tg'),
				clientId: '100001',
				scope: 'one',
				chainCode: byId('={{ $json.chain }}'),
			},
			{ items: [{ chain: '' }] },
		);
		expect(error.message).toContain('The field "Chain" is empty');
		expect(await calls('/chain/stop')).toBe(before);
	});

	it('Subscriber → Get Many and Find: a filter from an expression that comes out empty fails instead of reading everyone', async () => {
		const [failed, found] = await runPair(
			{ resource: 'subscriber', operation: 'getMany', returnAll: true, filters: { tag: '={{ $json.tag }}' } },
			{ tag: '' },
			{ tag: 'vip' },
		);
		expect(failed.error).toContain('The field "Tag" is empty');
		expect(found.tags).toContain('vip');
		const error = await bed.node.failure(
			{
				resource: 'subscriber',
				operation: 'find',
				query: 'a',
				returnAll: true,
				options: { botid: byId('={{ $json.bot }}') },
			},
			{ items: [{ bot: '' }] },
		);
		expect(error.message).toContain('The field "Bot" is empty');
	});

	it('List Row → Find with substring matching: an empty value would match every row, so it fails naming the column', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Find guard', headers: ['Name'] });
		await bed.api.call('/list/rows/add', { listid: list.id, rows: [['Ann'], ['Bob'], ['']] });
		const find = (value: string, exact: boolean) => ({
			resource: 'listRow',
			operation: 'find',
			listId: byId(list.id),
			conditions: { values: [{ column: 'Name', value }] },
			exact,
			returnAll: true,
			output: 'raw',
		});
		const error = await bed.node.failure(find('={{ $json.name }}', false), { items: [{ name: '' }] });
		expect(error.message).toContain('The field "Value (of Name)" is empty');
		// With exact matching, an empty value means "cells that are empty": one row.
		const empty = await bed.node.json(find('={{ $json.name }}', true), { items: [{ name: '' }] });
		expect(empty.map((row) => (row.values as string[])[0])).toEqual(['']);
	});

	it('API Key → Create: an empty bots list from an expression fails instead of making a key for all bots', async () => {
		const before = await calls('/key/create');
		const [failed, created] = await runPair(
			{ resource: 'apiKey', operation: 'create', name: 'Scoped', scopes: ['bots:read'], bots: '={{ $json.bots }}' },
			{ bots: [] },
			{ bots: ['bot_tg'] },
		);
		expect(failed.error).toContain('The field "Bot Names or IDs" is empty');
		expect((created.key as IDataObject).bots).toEqual(['bot_tg']);
		expect(await calls('/key/create')).toBe(before + 1);

		const [all] = await bed.node.json({
			resource: 'apiKey',
			operation: 'create',
			name: 'All bots',
			scopes: ['bots:read'],
			botAccess: 'all',
		});
		expect((all.key as IDataObject).bots).toEqual([]);
	});
	it('Broadcast → Send: "Only Who Started a Dialog" from an expression must be true or false; empty or "yes" fails instead of dropping the condition', async () => {
		const before = await calls('/broadcast/send');
		const parameters = {
			resource: 'broadcast',
			operation: 'send',
			text: 'Dialog only',
			options: { botid: byId('bot_tg'), dialog: '={{ $json.dialog }}' },
		};
		const output = await bed.node.items(parameters, {
			items: [{ dialog: '' }, { dialog: 'yes' }, { dialog: 'true' }],
			continueOnFail: true,
		});
		const [empty, yes, sent] = output.map((item) => item.json);
		expect(empty.error).toBe('The field "Only Who Started a Dialog" must be true or false, got "": nothing was sent');
		expect(yes.error).toBe('The field "Only Who Started a Dialog" must be true or false, got "yes": nothing was sent');
		// Computed from the sandbox's cards: subscribers of bot_tg who started a dialog and are not blocked.
		const cards = (await bed.api.call('/subscriber/list', { botid: 'bot_tg', limit: 1000 })).items as IDataObject[];
		const expected = cards.filter((card) => card.dialog === true && card.blocked !== true).length;
		expect(expected).toBeLessThan(cards.filter((card) => card.blocked !== true).length);
		expect(sent.planned).toBe(expected);
		expect(await calls('/broadcast/send')).toBe(before + 1);
	});

	it('Chain → Stop, Set Variables, Broadcast and API Key: a scope from an expression that is not one of its choices fails; nothing is sent', async () => {
		const cases: Array<[string, INodeParameters, string]> = [
			[
				'/chain/stop',
				{
					resource: 'chain',
					operation: 'stop',
					botId: byId('bot_tg'),
					clientId: '100001',
					scope: '={{ $json.scope }}',
					chainCode: byId('1001'),
				},
				'Stop',
			],
			[
				'/subscriber/data/set',
				{
					resource: 'subscriber',
					operation: 'setVariables',
					botId: byId('bot_tg'),
					clientId: '100001',
					variables: { values: [{ name: 'a', value: '1' }] },
					scope: '={{ $json.scope }}',
					chainCode: byId('1001'),
				},
				'Write Into',
			],
			[
				'/broadcast/send',
				{
					resource: 'broadcast',
					operation: 'send',
					text: 'x',
					audience: '={{ $json.scope }}',
					options: { tags: 'vip' },
				},
				'Send To',
			],
			[
				'/key/create',
				{
					resource: 'apiKey',
					operation: 'create',
					name: 'k',
					scopes: ['bots:read'],
					botAccess: '={{ $json.scope }}',
					bots: ['bot_tg'],
				},
				'Bots',
			],
		];
		for (const [path, parameters, field] of cases) {
			const before = await calls(path);
			const output = await bed.node.items(parameters, {
				items: [{ scope: '' }, { scope: 'All' }],
				continueOnFail: true,
			});
			expect(output.map((item) => item.json.error)).toEqual([
				`The field "${field}" has the value "", which is not one of its choices: nothing was sent`,
				`The field "${field}" has the value "All", which is not one of its choices: nothing was sent`,
			]);
			expect(await calls(path)).toBe(before);
		}
	});

	it('Subscriber → Get Many: Active, Blocked or Started a Dialog from an expression that comes out empty fails; "Any" chosen in the list reads everyone', async () => {
		const output = await bed.node.items(
			{
				resource: 'subscriber',
				operation: 'getMany',
				returnAll: true,
				output: 'raw',
				filters: { blocked: '={{ $json.blocked }}' },
			},
			{ items: [{ blocked: '' }, { blocked: 'maybe' }], continueOnFail: true },
		);
		expect(output.map((item) => item.json.error)).toEqual([
			'The field "Blocked" is empty: nothing was sent, because the service reads an empty Blocked as no filter (every subscriber)',
			'The field "Blocked" must be true or false, got "maybe": nothing was sent',
		]);
		const all = (await bed.api.call('/subscriber/list', { limit: 1000 })).items as IDataObject[];
		const blocked = all.filter((card) => card.blocked === true).map((card) => card.id);
		expect(blocked.length).toBeGreaterThan(0);
		const fromExpression = await bed.node.json(
			{ resource: 'subscriber', operation: 'getMany', returnAll: true, filters: { blocked: '={{ $json.blocked }}' } },
			{ items: [{ blocked: true }] },
		);
		expect(fromExpression.map((card) => card.id)).toEqual(blocked);
		const any = await bed.node.json({
			resource: 'subscriber',
			operation: 'getMany',
			returnAll: true,
			filters: { blocked: '' },
		});
		expect(any.map((card) => card.id)).toEqual(all.map((card) => card.id));
	});

	it('Subscriber → Set Variables and Chain → Start: a variable whose name comes out empty fails instead of being dropped', async () => {
		const before = await calls('/subscriber/data/set');
		const error = await bed.node.failure(
			{
				resource: 'subscriber',
				operation: 'setVariables',
				botId: byId('bot_tg'),
				clientId: '100001',
				scope: 'all',
				variables: {
					values: [
						{ name: 'a', value: '1' },
						{ name: '={{ $json.name }}', value: 'important' },
					],
				},
			},
			{ items: [{ name: '' }] },
		);
		expect(error.message).toBe('The field "Variables" has a value without a name (entry 2): nothing was sent');
		expect(await calls('/subscriber/data/set')).toBe(before);
		const startBefore = await calls('/chain/start');
		const startError = await bed.node.failure({
			resource: 'chain',
			operation: 'start',
			botId: byId('bot_tg'),
			clientId: '100001',
			chainCode: byId('1001'),
			variables: { values: [{ name: ' ', value: 'x' }] },
		});
		expect(startError.message).toContain('has a value without a name (entry 1): nothing was sent');
		expect(await calls('/chain/start')).toBe(startBefore);
	});
});
