import { fileNameOf } from '../../nodes/MessengerBotBuilder/actions/catalog/fileName';
import { FlakyProxy } from '../support/flakyProxy';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/**
 * Catalog → Download through n8n-core's engine. The credential points at a recording proxy in front
 * of the sandbox; the sandbox builds download links on the host it was called on, so the download
 * passes the proxy too and the test sees the headers of both requests.
 */
describe('Catalog → Download', () => {
	let bed: NodeTestBed;
	let proxy: FlakyProxy;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
		proxy = new FlakyProxy(bed.sandbox.url);
		bed.node.useKey('proxied', bed.sandbox.adminKey, `${await proxy.start()}/api`);
	});
	afterAll(async () => {
		await proxy.close();
		await bed.close();
	});

	const downloadOf = (extra = {}) => ({ resource: 'catalog', operation: 'download', webAppId: '1', ...extra });

	it('puts the catalog file into binary data; the API key goes to the service only, never to the link', async () => {
		const [item] = await bed.node.items(downloadOf({ binaryPropertyName: 'catalog' }), { credential: 'proxied' });
		const binary = item.binary!.catalog;
		expect(binary).toMatchObject({ fileName: 'catalog-1.json', mimeType: 'application/json' });
		const file = JSON.parse(Buffer.from(binary.data, 'base64').toString('utf8'));
		const { link } = await bed.api.call('/catalog/get', { webappid: '1' });
		const expected = (await (await fetch(link)).json()) as { webapp: unknown; items: unknown[] };
		expect(file.webapp).toEqual(expected.webapp);
		expect(file.items).toEqual(expected.items);
		expect(file.items.length).toBeGreaterThan(3);
		expect(item.json).toEqual({
			webappid: '1',
			fileName: 'catalog-1.json',
			mimeType: 'application/json',
			size: Buffer.from(binary.data, 'base64').length,
		});

		const linkRequest = proxy.received.find((request) => request.url.startsWith('/api/catalog/get'));
		const fileRequest = proxy.received.find((request) => request.url.startsWith('/files/catalog/'));
		expect(linkRequest?.headers.authorization).toBe(bed.sandbox.adminKey);
		expect(fileRequest).toBeDefined();
		expect(JSON.stringify(fileRequest!.headers)).not.toContain(bed.sandbox.adminKey);
		expect(fileRequest!.headers.authorization).toBeUndefined();
	});

	it('refuses a file larger than the size cap, and names the limit', async () => {
		const items = Array.from({ length: 30 }, (_, index) => ({ title: `Big ${index}`, description: 'x'.repeat(500) }));
		await bed.api.call('/catalog/item/bulk/create', { webappid: '1', items });
		const { link } = await bed.api.call('/catalog/get', { webappid: '1' });
		const size = (await (await fetch(link)).arrayBuffer()).byteLength;
		expect(size).toBeGreaterThan(0.01 * 1024 * 1024);

		const error = await bed.node.failure(downloadOf({ options: { maxSizeMb: 0.01 } }));
		expect(error.message).toMatch(/^The catalog file is larger than the limit of 0\.01 MB/);
		const [item] = await bed.node.items(downloadOf());
		expect(item.json.size).toBe(size);
	});

	it('Get Download Link still gives the link without downloading', async () => {
		const [answer] = await bed.node.json({ resource: 'catalog', operation: 'getDownloadLink', webAppId: '1' });
		expect(answer.link).toMatch(/\/files\/catalog\//);
	});
});

describe('Catalog → Download: the file name from Content-Disposition', () => {
	it.each([
		['attachment; filename="100%.json"', '100%.json'],
		["attachment; filename*=UTF-8''caf%C3%A9%20menu.json", 'café menu.json'],
		['attachment; filename="fallback.json"; filename*=UTF-8\'\'%E2%82%AC.json', '€.json'],
		['attachment; filename="plain.json"; filename*=UTF-8\'\'%E2%ZZ.json', 'plain.json'],
		['attachment; filename="../../etc/passwd"', '.._.._etc_passwd'],
		['attachment', 'catalog-7.json'],
		[undefined, 'catalog-7.json'],
	])('%s → %s', (disposition, expected) => {
		expect(fileNameOf(disposition, '7')).toBe(expected);
	});
});
