import { startTestBed, type NodeTestBed } from '../support/sandbox';

type Item = { id: number; title: string; price: unknown; hide: boolean; rubric: string };

describe('Catalog Item, Catalog and Web App operations', () => {
	let bed: NodeTestBed;
	const apiCalls = async (path: string) => (await bed.api.logOf(path)).length;

	/** The catalog as its download file shows it, fetched through the node's Get Download Link. */
	async function catalogFile(): Promise<Item[]> {
		const [answer] = await bed.node.json({ resource: 'catalog', operation: 'getDownloadLink', webAppId: '1' });
		expect(String(answer.notice)).toMatch(/2 minutes/);
		const file = (await (await fetch(String(answer.link))).json()) as { items: Item[] };
		return file.items;
	}

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
	});
	afterAll(async () => bed.close());

	it('Catalog with Operation left at its default gets the download link, not the file', async () => {
		const output = await bed.node.items({ resource: 'catalog', webAppId: '1' });
		expect(output).toHaveLength(1);
		expect(output[0].binary).toBeUndefined();
		expect(Object.keys(output[0].json).sort()).toEqual(['expires', 'link', 'notice']);
	});

	it('create: one item with the single method, many with the bulk method', async () => {
		const [single] = await bed.node.json({
			resource: 'catalogItem',
			operation: 'create',
			webAppId: '1',
			fields: { title: 'Mug', price: '9.90', rubric: 'Kitchen' },
		});
		expect(single.id).toEqual(expect.any(Number));

		const items = Array.from({ length: 150 }, (_, n) => ({ title: `Sticker ${n}` }));
		const output = await bed.node.items(
			{
				resource: 'catalogItem',
				operation: 'create',
				webAppId: '1',
				fields: { title: '={{ $json.title }}', price: '1' },
			},
			{ items },
		);
		expect(output.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		expect(new Set(output.map((item) => item.json.id)).size).toBe(150);
		expect(await apiCalls('/catalog/item/bulk/create')).toBe(2); // 100 + 50
		expect(await apiCalls('/catalog/item/create')).toBe(1);

		const stored = await catalogFile();
		expect(stored.find((item) => item.id === single.id)).toMatchObject({ title: 'Mug', rubric: 'Kitchen' });
		expect(stored.filter((item) => /^Sticker \d+$/.test(item.title))).toHaveLength(150);
	});

	it('update: many items in one bulk request; hide keeps the item stored', async () => {
		const stickers = (await catalogFile()).filter((item) => /^Sticker \d+$/.test(item.title)).slice(0, 3);
		await bed.node.json(
			{
				resource: 'catalogItem',
				operation: 'update',
				webAppId: '1',
				itemId: '={{ $json.id }}',
				fields: { hide: true, price: '2' },
			},
			{ items: stickers.map((item) => ({ id: item.id })) },
		);
		expect(await apiCalls('/catalog/item/bulk/edit')).toBe(1);
		const stored = await catalogFile();
		for (const sticker of stickers) {
			expect(stored.find((item) => item.id === sticker.id)).toMatchObject({
				hide: true,
				price: '2',
				title: sticker.title,
			});
		}
	});

	it('delete: one item, then many in one bulk request', async () => {
		const stickers = (await catalogFile()).filter((item) => /^Sticker \d+$/.test(item.title)).slice(0, 5);
		await bed.node.json({ resource: 'catalogItem', operation: 'delete', itemId: String(stickers[0].id) });
		await bed.node.json(
			{ resource: 'catalogItem', operation: 'delete', itemId: '={{ $json.id }}' },
			{ items: stickers.slice(1).map((item) => ({ id: item.id })) },
		);
		expect(await apiCalls('/catalog/item/bulk/delete')).toBe(1);
		const left = new Set((await catalogFile()).map((item) => item.id));
		for (const sticker of stickers) expect(left.has(sticker.id)).toBe(false);
	});

	it('bulk update with continueOnFail: an item that does not exist fails alone, the others change', async () => {
		const stickers = (await catalogFile()).filter((item) => /^Sticker \d+$/.test(item.title)).slice(0, 3);
		const items = [{ id: stickers[0].id }, { id: 999999 }, { id: stickers[1].id }, { id: stickers[2].id }];
		const output = await bed.node.items(
			{
				resource: 'catalogItem',
				operation: 'update',
				webAppId: '1',
				itemId: '={{ $json.id }}',
				fields: { title: '=Renamed {{ $json.id }}' },
			},
			{ items, continueOnFail: true },
		);
		expect(output.map((item) => item.pairedItem)).toEqual(items.map((_, n) => ({ item: n })));
		expect(output[1].json.details).toMatchObject({ code: 'not_found', status: 422 });
		expect(output[1].json.details).toMatchObject({ description: expect.stringContaining('"Item ID"') });
		const stored = await catalogFile();
		for (const sticker of stickers)
			expect(stored.find((item) => item.id === sticker.id)?.title).toBe(`Renamed ${sticker.id}`);
	});

	it('a bad item fails alone with continueOnFail', async () => {
		const output = await bed.node.items(
			{
				resource: 'catalogItem',
				operation: 'update',
				webAppId: '={{ $json.app }}',
				itemId: '1',
				fields: { title: 'x' },
			},
			{ items: [{ app: 'no-such-app' }], continueOnFail: true },
		);
		expect(output[0].json.details).toMatchObject({ code: 'not_found', param: 'webappid' });
		expect(output[0].json.details).toMatchObject({
			description: 'Check the field "Web App ID" (the service\'s parameter "webappid").',
		});
	});

	it('delete all items of an app, then the app', async () => {
		const [cleared] = await bed.node.json({ resource: 'catalogItem', operation: 'deleteAll', webAppId: '1' });
		expect(cleared.result).toBe('ok');
		expect(await catalogFile()).toEqual([]);

		await bed.node.json({ resource: 'webApp', operation: 'delete', webAppId: '1' });
		const error = await bed.node.failure({ resource: 'catalog', operation: 'getDownloadLink', webAppId: '1' });
		expect(error.context).toMatchObject({ code: 'not_found', param: 'webappid' });
	});
});
