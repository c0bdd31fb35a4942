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

		const [all] = await bed.node.json({ resource: 'broadcast', operation: 'send', text: 'Hello all', audience: 'everyone' });
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
			{ resource: 'chain', operation: 'stop', botId: byId('bot_tg'), clientId: '100001', scope: 'one', chainCode: byId('={{ $json.chain }}') },
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
			{ resource: 'subscriber', operation: 'find', query: 'a', returnAll: true, options: { botid: byId('={{ $json.bot }}') } },
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

		const [all] = await bed.node.json({ resource: 'apiKey', operation: 'create', name: 'All bots', scopes: ['bots:read'], botAccess: 'all' });
		expect((all.key as IDataObject).bots).toEqual([]);
	});
});
