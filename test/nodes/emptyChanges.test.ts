import type { IDataObject } from 'n8n-workflow';
import { byId } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/**
 * A field added to a collection of changes that comes out empty: the service's documentation does not
 * say whether an empty value clears the stored one, so the node sends nothing for that item and fails
 * it naming the field.
 */
describe('an empty change is never dropped silently', () => {
	let bed: NodeTestBed;
	const calls = async (path: string) => (await bed.api.logOf(path)).length;
	const card = async (clientid: string): Promise<IDataObject> =>
		(await bed.api.call('/subscriber/get', { botid: 'bot_tg', clientid })).subscriber;
	const catalogItem = async (id: number): Promise<IDataObject | undefined> => {
		const { link } = await bed.api.call('/catalog/get', { webappid: '1' });
		const file = (await (await fetch(String(link))).json()) as { items: IDataObject[] };
		return file.items.find((item) => item.id === id);
	};

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	it('Catalog Item → Update: the item whose Old Price comes out empty fails, unsent; the other item changes', async () => {
		const created = await bed.api.call('/catalog/item/bulk/create', {
			webappid: '1',
			items: [
				{ title: 'Kettle', price: '30', oldprice: '40' },
				{ title: 'Toaster', price: '25', oldprice: '35' },
			],
		});
		const [kettle, toaster] = created.id as number[];
		const single = await calls('/catalog/item/edit');
		const bulk = await calls('/catalog/item/bulk/edit');

		const output = await bed.node.items(
			{
				resource: 'catalogItem',
				operation: 'update',
				webAppId: '1',
				itemId: '={{ $json.id }}',
				fields: { oldprice: '={{ $json.old }}', price: '={{ $json.price }}' },
			},
			{
				items: [
					{ id: kettle, old: '', price: '29' },
					{ id: toaster, old: '30', price: '24' },
				],
				continueOnFail: true,
			},
		);
		expect(output.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(output[0].json.error).toBe('The field "Old Price" is empty: nothing was sent');
		expect(JSON.stringify(output[0].json.details)).toContain('Remove \\"Old Price\\" from Update Fields');
		expect(output[1].json).toMatchObject({ itemid: toaster, oldprice: '30', price: '24' });
		// One item left to send: the single method, once; the bulk method not at all.
		expect(await calls('/catalog/item/edit')).toBe(single + 1);
		expect(await calls('/catalog/item/bulk/edit')).toBe(bulk);
		expect(await catalogItem(kettle)).toMatchObject({ title: 'Kettle', price: '30', oldprice: '40' });
		expect(await catalogItem(toaster)).toMatchObject({ title: 'Toaster', price: '24', oldprice: '30' });
	});

	it('Subscriber → Update: a Note that comes out empty fails the item naming it; the card is unchanged', async () => {
		const before = await card('100002');
		const sent = await calls('/subscriber/update');
		const error = await bed.node.failure(
			{
				resource: 'subscriber',
				operation: 'update',
				botId: byId('bot_tg'),
				clientId: byId('100002'),
				updateFields: { note: '={{ $json.note }}', name: 'Bob B.' },
			},
			{ items: [{ note: '   ' }] },
		);
		expect(error.message).toBe('The field "Note" is empty: nothing was sent');
		expect(error.description).toContain('Remove "Note" from Update Fields to leave it as it is');
		expect(await calls('/subscriber/update')).toBe(sent);
		expect(await card('100002')).toEqual(before);
	});

	it('Subscriber → Create or Update: an empty Name fails; an empty Messenger is no change and is not checked', async () => {
		const sent = await calls('/subscriber/create');
		const error = await bed.node.failure({
			resource: 'subscriber',
			operation: 'createOrUpdate',
			botId: byId('bot_tg'),
			clientId: byId('777100'),
			additionalFields: { name: '' },
		});
		expect(error.message).toBe('The field "Name" is empty: nothing was sent');
		expect(error.description).toContain('from Additional Fields');
		expect(await calls('/subscriber/create')).toBe(sent);

		const [created] = await bed.node.json({
			resource: 'subscriber',
			operation: 'createOrUpdate',
			botId: byId('bot_tg'),
			clientId: byId('777100'),
			additionalFields: { name: 'Dana', messenger: byId('') },
		});
		expect(created).toMatchObject({ clientid: '777100', name: 'Dana', created: true });
	});
});
