import { gzipSync } from 'node:zlib';
import { openSandbox, type OpenSandbox } from './client';

/** Requests that are the client's mistake answer 4xx with `code` and `error`, and change nothing. */
describe('sandbox client mistakes', () => {
	let open: OpenSandbox;
	beforeAll(async () => {
		open = await openSandbox();
	});
	afterAll(() => open.close());

	const send = async (path: string, body: string | Buffer, headers: Record<string, string>) => {
		const response = await fetch(`${open.sandbox.baseUrl}${path}`, {
			method: 'POST',
			headers: { authorization: open.sandbox.adminKey, ...headers },
			body,
		});
		return { status: response.status, body: (await response.json()) as { code: string; error: string } };
	};

	test.each([
		[
			'an unsupported charset',
			{ 'content-type': 'application/json; charset=koi8-r' },
			'{"name":"x"}',
			415,
			'unsupported_charset',
			/koi8-r/,
		],
		[
			'gzip announced on a plain body',
			{ 'content-type': 'application/json', 'content-encoding': 'gzip' },
			'{"name":"x"}',
			400,
			'invalid_body',
			/Content-Encoding/,
		],
		[
			'an unknown Content-Encoding',
			{ 'content-type': 'application/json', 'content-encoding': 'x-foo' },
			'{"name":"x"}',
			415,
			'unsupported_encoding',
			/x-foo/,
		],
	])('%s is a 4xx naming the problem', async (_name, headers, body, status, code, message) => {
		for (const path of ['/list/create', '/subscriber/get']) {
			const response = await send(path, body, headers);
			expect(response).toEqual({ status, body: { code, error: expect.stringMatching(message) } });
		}
		const sandboxRoute = await fetch(`${open.sandbox.url}/sandbox/clock`, {
			method: 'POST',
			headers: { authorization: open.sandbox.adminKey, ...headers },
			body,
		});
		expect(sandboxRoute.status).toBe(status);
		expect(((await sandboxRoute.json()) as { code: string }).code).toBe(code);
	});

	test('a gzip body that is gzip is read', async () => {
		const response = await send('/list/create', gzipSync(JSON.stringify({ name: 'Zipped', headers: ['A'] })), {
			'content-type': 'application/json',
			'content-encoding': 'gzip',
		});
		expect(response.status).toBe(200);
		expect((await open.api.get('/list/all')).body.items.map((list: { name: string }) => list.name)).toContain('Zipped');
	});

	test('a clock move out of range is refused whole: nothing is applied and writes keep working', async () => {
		const before = Date.parse((await open.routes.post('/sandbox/clock', { advanceSeconds: 0 })).body.now);
		for (const advanceSeconds of [1e13, -5, 1e300, '1e13']) {
			const response = await open.routes.post('/sandbox/clock', { advanceSeconds });
			expect(response.status).toBe(422);
			expect(response.body).toMatchObject({
				code: 'invalid_param',
				param: 'advanceSeconds',
				error: expect.stringContaining('nothing was moved'),
			});
		}
		const after = Date.parse((await open.routes.post('/sandbox/clock', { advanceSeconds: 0 })).body.now);
		expect(after - before).toBeGreaterThanOrEqual(0);
		expect(after - before).toBeLessThan(60_000);
		const written = await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'after-clock' });
		expect(written.status).toBe(200);
		expect(Math.abs(Date.parse(String(written.body.subscriber.subscribed)) - Date.now())).toBeLessThan(60_000);
	});

	test('a variable named __proto__ is stored and read back like any other name', async () => {
		const data = JSON.parse('{"__proto__":"kept","constructor":"too","plain":1}');
		const set = await open.api.post('/subscriber/data/set', {
			botid: 'bot_tg',
			clientid: '100001',
			chaincode: '1001',
			data,
		});
		expect(set.body).toEqual({ ok: true, chains: 1 });
		const read = await open.api.get('/subscriber/data/get', { botid: 'bot_tg', clientid: '100001', chaincode: '1001' });
		const variables = read.body.chains[0].variables;
		expect(Object.hasOwn(variables, '__proto__')).toBe(true);
		expect(variables['__proto__']).toBe('kept');
		expect(variables).toMatchObject({ constructor: 'too', plain: 1, promo: 'WELCOME10', city: 'Berlin' });
		const card = await open.api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' });
		expect(Object.hasOwn(card.body.subscriber.variables?.['1001'] ?? {}, '__proto__')).toBe(true);
		// Removing it works like any other name.
		await open.api.post('/subscriber/data/set', {
			botid: 'bot_tg',
			clientid: '100001',
			chaincode: '1001',
			data: JSON.parse('{"__proto__":null}'),
		});
		const removed = await open.api.get('/subscriber/data/get', {
			botid: 'bot_tg',
			clientid: '100001',
			chaincode: '1001',
		});
		expect(Object.hasOwn(removed.body.chains[0].variables, '__proto__')).toBe(false);
	});

	test('a known key sent as "Bearer <key>" is refused with a message that says how to send it; an unknown one is just not known', async () => {
		const statusAndBody = async (authorization: string) => {
			const response = await fetch(`${open.sandbox.baseUrl}/account/balance/get`, { headers: { authorization } });
			return [response.status, await response.json()];
		};
		expect(await statusAndBody(`Bearer ${open.sandbox.adminKey}`)).toEqual([
			401,
			{
				code: 'unauthorized',
				error: 'The API key is not known: send the key itself in Authorization, without "Bearer "',
			},
		]);
		expect(await statusAndBody('Bearer mbb_not_a_key')).toEqual([
			401,
			{ code: 'unauthorized', error: 'The API key is not known' },
		]);
		expect((await statusAndBody(open.sandbox.adminKey))[0]).toBe(200);
	});

	test('/subscriber/get naming a card by number and another by botid and clientid: 422 param_conflict, not one of the two', async () => {
		const byNumber = await open.api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' });
		const id = byNumber.body.subscriber.id as number;
		expect(
			(await open.api.get('/subscriber/get', { subscriber: id, botid: 'bot_tg', clientid: '100001' })).body,
		).toEqual(byNumber.body);
		const other = await open.api.get('/subscriber/get', { subscriber: id, clientid: '100002' });
		expect([other.status, other.body.code, other.body.param, other.body.error]).toEqual([
			422,
			'param_conflict',
			'clientid',
			`Parameter "clientid" names 100002, but subscriber ${id} has clientid 100001`,
		]);
		const otherBot = await open.api.get('/subscriber/get', { subscriber: id, botid: 'bot_wa' });
		expect([otherBot.status, otherBot.body.code, otherBot.body.param]).toEqual([422, 'param_conflict', 'botid']);
		const otherMessenger = await open.api.get('/subscriber/get', { subscriber: id, messenger: 'whatsapp' });
		expect([otherMessenger.status, otherMessenger.body.code, otherMessenger.body.param]).toEqual([
			422,
			'param_conflict',
			'messenger',
		]);
	});

	test("variables of another bot's chain: 422 param_conflict naming chaincode (a code the contract lists for the method)", async () => {
		const read = await open.api.get('/subscriber/data/get', { botid: 'bot_tg', clientid: '100001', chaincode: '2001' });
		expect([read.status, read.body.code, read.body.param]).toEqual([422, 'param_conflict', 'chaincode']);
	});
});
