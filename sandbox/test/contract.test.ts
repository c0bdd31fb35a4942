import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { modules } from '../src/api';
import { ALL_SCOPES } from '../src/domain/keys';
import { openSandbox, TestClient } from './client';
import {
	BAD_CHANGES,
	BOT_CALLS,
	BOTLESS_METHODS,
	DOCUMENTED_METHODS,
	EXTENSION_METHODS,
	GOOD_CHANGES,
	READ_CASES,
	typedForm,
	type Memory,
} from './contractCases';

/**
 * The whole API checked against the service's documentation, table by table, over real HTTP. The
 * endpoints come from the module registry, so a new endpoint fails here until it is classified.
 */
const endpoints = modules.flatMap((module) => module.endpoints);
const paths = endpoints.map((endpoint) => endpoint.path);
const postOnlyPaths = endpoints.filter((endpoint) => endpoint.methods === 'POST').map((endpoint) => endpoint.path);
const getCapablePaths = endpoints
	.filter((endpoint) => endpoint.methods === 'GET or POST')
	.map((endpoint) => endpoint.path);
const changingPaths = [...postOnlyPaths, '/webapp/delete'];

const sorted = (items: Iterable<string>) => [...new Set(items)].sort();

/** Fields that differ between two calls by design (fresh link tokens and their expiry). */
function withoutVolatile(body: unknown): unknown {
	if (body && typeof body === 'object' && 'link' in body && typeof body.link === 'string') {
		return { ...body, link: 'LINK', notice: 'NOTICE', expires: 'EXPIRES' };
	}
	return body;
}

function expectErrorBody(
	response: { status: number; body: unknown; headers: Headers },
	status: number,
	code?: string,
): void {
	expect({ status: response.status, body: response.body }).toEqual({
		status,
		body: expect.objectContaining({ code: code ?? expect.any(String), error: expect.any(String) }),
	});
	expect(response.headers.get('content-type')).toMatch(/^application\/json/);
}

describe('sandbox contract: the registry matches the documentation', () => {
	test('every documented method and every extension is registered, and nothing else', () => {
		expect(sorted(paths)).toEqual(sorted([...Object.keys(DOCUMENTED_METHODS), ...Object.keys(EXTENSION_METHODS)]));
		expect(paths.length).toBe(new Set(paths).size);
	});

	test('each method accepts exactly the documented HTTP methods', () => {
		const methods = { ...DOCUMENTED_METHODS, ...EXTENSION_METHODS };
		for (const endpoint of endpoints) {
			expect({ path: endpoint.path, methods: endpoint.methods }).toEqual({
				path: endpoint.path,
				methods: methods[endpoint.path],
			});
		}
	});

	test('every table of this test covers every endpoint it should', () => {
		expect(sorted(Object.keys(READ_CASES))).toEqual(sorted(getCapablePaths));
		expect(sorted(GOOD_CHANGES.map((change) => change.path))).toEqual(sorted(changingPaths));
		expect(sorted(BAD_CHANGES.map((change) => change.path))).toEqual(sorted(changingPaths));
		expect(sorted([...BOT_CALLS.map((call) => call.path), ...BOTLESS_METHODS])).toEqual(sorted(paths));
		expect(BOT_CALLS.filter((call) => BOTLESS_METHODS.includes(call.path))).toEqual([]);
	});
});

describe('sandbox contract: methods, keys, scopes and errors on every endpoint', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox());
	});
	afterAll(() => close());

	test('GET on every POST-only method is 405 with Allow: POST; other HTTP verbs are 405 everywhere', async () => {
		for (const path of postOnlyPaths) {
			const response = await api.get(path);
			expectErrorBody(response, 405, 'method_not_allowed');
			expect({ path, allow: response.headers.get('allow') }).toEqual({ path, allow: 'POST' });
		}
		for (const endpoint of endpoints) {
			const response = await fetch(`${api.baseUrl}${endpoint.path}`, {
				method: 'PUT',
				headers: { authorization: api.key! },
			});
			expect({ path: endpoint.path, status: response.status }).toEqual({ path: endpoint.path, status: 405 });
			expect(await response.json()).toEqual(
				expect.objectContaining({ code: 'method_not_allowed', error: expect.any(String) }),
			);
		}
	});

	test('every method needs a key: 401 without one and with an unknown one, never echoing it', async () => {
		for (const path of paths) {
			expectErrorBody(await api.withKey(undefined).post(path, {}), 401, 'unauthorized');
			const unknown = await api.withKey('mbb_guess_this_value').post(path, {});
			expectErrorBody(unknown, 401, 'unauthorized');
			expect(JSON.stringify(unknown.body)).not.toContain('mbb_guess_this_value');
		}
	});

	test('every method needs its scope: 403 naming it, for a key holding every other scope', async () => {
		for (const endpoint of endpoints) {
			const scopes = ALL_SCOPES.filter((scope) => scope !== endpoint.scope);
			const response = await (await api.withNewKey(scopes)).post(endpoint.path, {});
			expectErrorBody(response, 403, 'forbidden');
			expect({ path: endpoint.path, scope: response.body.scope }).toEqual({
				path: endpoint.path,
				scope: endpoint.scope,
			});
			expect(response.body.error).toContain(endpoint.scope);
		}
	});

	test('errors are { code, error } JSON: unknown paths, bad JSON, a body that is not an object, a body too large', async () => {
		const root = api.baseUrl.replace(/\/api$/, '');
		for (const url of [`${api.baseUrl}/no/such/method`, `${api.baseUrl}`, `${api.baseUrl}/`, `${root}/elsewhere`]) {
			const response = await fetch(url, { headers: { authorization: api.key! } });
			expect({ url, status: response.status }).toEqual({ url, status: 404 });
			expect(await response.json()).toEqual(expect.objectContaining({ code: 'not_found', error: expect.any(String) }));
		}
		const broken = await api.postRaw('/subscriber/create', '{"botid": "bot_tg",');
		expect(broken.status).toBe(400);
		expect(broken.body).toEqual({ code: 'invalid_json', error: expect.any(String) });
		expectErrorBody(await api.postRaw('/subscriber/create', '["bot_tg"]'), 422, 'invalid_body');
		const huge = await api.postRaw(
			'/list/rows/add',
			JSON.stringify({ list: 'Leads', rows: [{ Name: 'x'.repeat(11 * 1024 * 1024) }] }),
		);
		expectErrorBody(huge, 413, 'too_large');
		expect((await api.get('/list/rows/get', { list: 'Leads' })).body.total).toBe(3);
		const sandboxRoute = await new TestClient(root, api.key).postRaw('/sandbox/clock', '{');
		expect(sandboxRoute.status).toBe(400);
		expect(sandboxRoute.body).toEqual({ code: 'invalid_json', error: expect.any(String) });
	});

	test('calls refused before reaching their method are in the API log too', async () => {
		await api.postRaw('/account/get', '{"broken":');
		const log = await api.get('/log/get', { path: '/account/get', status: 400 });
		expect(log.body.items[0]).toMatchObject({
			method: 'POST',
			path: '/account/get',
			status: 400,
			failed: true,
			code: 'invalid_json',
		});
	});
});

describe('sandbox contract: every parameter in both forms, every named response field', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox());
	});
	afterAll(() => close());

	test('every GET-capable method answers its query-string form like its JSON form, numbers as strings or numbers', async () => {
		for (const [path, { params, fields }] of Object.entries(READ_CASES)) {
			if (path === '/webapp/delete') continue; // it deletes: checked below
			const viaGet = await api.get(path, params);
			expect({ path, status: viaGet.status }).toEqual({ path, status: 200 });
			for (const field of fields)
				expect({ path, field, present: field in viaGet.body }).toEqual({ path, field, present: true });
			const viaPostStrings = await api.post(path, params);
			const viaPostTyped = await api.post(path, typedForm(params));
			expect({ path, body: withoutVolatile(viaPostStrings.body) }).toEqual({
				path,
				body: withoutVolatile(viaGet.body),
			});
			expect({ path, body: withoutVolatile(viaPostTyped.body) }).toEqual({ path, body: withoutVolatile(viaGet.body) });
		}
	});

	test('the filters of the read methods actually narrow (the GET form is not ignored)', async () => {
		const list = await api.get('/subscriber/list', READ_CASES['/subscriber/list'].params);
		expect(list.body.items.map((card) => card.clientid)).toEqual(['100001']);
		const find = await api.get('/subscriber/find', READ_CASES['/subscriber/find'].params);
		expect(find.body.items.map((card) => card.clientid)).toEqual(['100001']);
		const chat = await api.get('/subscriber/chat/get', READ_CASES['/subscriber/chat/get'].params);
		expect(chat.body.items).toHaveLength(2);
		const rows = await api.get('/list/rows/get', READ_CASES['/list/rows/get'].params);
		expect(rows.body.items.map((row) => row.id)).toEqual([2, 1]);
		const found = await api.get('/list/rows/find', READ_CASES['/list/rows/find'].params);
		expect(found.body.items.map((row) => row.row.Name)).toEqual(['Alice Smith']);
		const data = await api.get('/subscriber/data/get', READ_CASES['/subscriber/data/get'].params);
		expect(data.body.chains.map((chain) => chain.chaincode)).toEqual(['1001']);
	});

	test('response shapes: balance is an integer; list rows come in both forms; lists carry id, name, headers, count', async () => {
		expect(Number.isInteger((await api.get('/account/balance/get')).body.balance)).toBe(true);
		const lists = (await api.get('/list/all')).body.items;
		for (const list of lists)
			expect(Object.keys(list)).toEqual(expect.arrayContaining(['id', 'name', 'headers', 'count']));
		const rows = (await api.get('/list/rows/get', { list: 'Leads' })).body.items;
		for (const row of rows)
			expect(Object.keys(row)).toEqual(expect.arrayContaining(['id', 'values', 'row', 'created']));
		const bots = (await api.get('/bot/list')).body.items;
		expect(bots.every((bot) => typeof bot.id === 'string')).toBe(true);
		const groups = (await api.get('/group/list')).body.items;
		expect(groups.every((group) => typeof group.code === 'string')).toBe(true);
	});

	test('every method that changes data accepts its documented parameters and answers the named fields', async () => {
		const memory: Memory = {};
		for (const change of GOOD_CHANGES) {
			const response = await api.post(change.path, change.body(memory));
			expect({ path: change.path, status: response.status, body: response.body }).toEqual({
				path: change.path,
				status: 200,
				body: expect.objectContaining(Object.fromEntries(change.fields.map((field) => [field, expect.anything()]))),
			});
			change.remember?.(response.body, memory);
		}
		const typed = (await api.post('/catalog/item/create', { webappid: 1, title: 'x' })).body;
		expect(typed).toEqual({ code: 'not_found', error: expect.any(String), param: 'webappid' });
	});

	test('/webapp/delete takes id in the query string on GET', async () => {
		const { api: fresh, close: closeFresh } = await openSandbox();
		try {
			const response = await fresh.get('/webapp/delete', { id: '1' });
			expect(response.status).toBe(200);
			expect(typeof response.body.result).toBe('string');
			expect((await fresh.get('/catalog/get', { webappid: '1' })).body).toMatchObject({
				code: 'not_found',
				param: 'webappid',
			});
		} finally {
			await closeFresh();
		}
	});
});

/** Everything a client can observe of the seeded account, to compare before and after refused calls. */
async function observableState(api: TestClient): Promise<unknown> {
	const card = (clientid: string) => ({ botid: 'bot_tg', clientid });
	const reads: [string, Record<string, string | number>][] = [
		['/subscriber/list', { limit: 1000 }],
		['/subscriber/chat/get', { ...card('100001'), limit: 1000 }],
		['/subscriber/chains/get', card('100001')],
		['/subscriber/data/get', card('100001')],
		['/list/all', {}],
		['/list/rows/get', { list: 'Leads', limit: 1000 }],
		['/hook/list', {}],
		['/crm/board', {}],
	];
	const state: Record<string, unknown> = {};
	for (const [path, params] of reads) state[path] = (await api.get(path, params)).body;
	state.keys = (await api.get('/account/get')).body.used;
	const today = new Date().toISOString().slice(0, 10);
	state.messagesToday = (await api.get('/stat/get', { from: today, to: today })).body.total;
	const link = (await api.get('/catalog/get', { webappid: 1 })).body.link;
	state.catalog = link ? ((await (await fetch(link)).json()) as { items: unknown }).items : 'no catalog';
	return state;
}

describe('sandbox contract: refused calls change nothing', () => {
	let api: TestClient;
	let close: () => Promise<void>;

	beforeAll(async () => {
		({ api, close } = await openSandbox());
	});
	afterAll(() => close());

	test('a bad parameter on any method that changes data is a 422 naming it, and nothing changes', async () => {
		const before = await observableState(api);
		for (const change of BAD_CHANGES) {
			const response = await api.post(change.path, change.body);
			expect({ path: change.path, status: response.status, param: response.body.param }).toEqual({
				path: change.path,
				status: 422,
				param: change.param,
			});
			expect(response.body).toEqual(expect.objectContaining({ code: expect.any(String), error: expect.any(String) }));
		}
		expect(await observableState(api)).toEqual(before);
	});

	test("a key restricted to one bot gets 403 bot_forbidden on every method naming another bot's objects, and nothing changes", async () => {
		const memory: Memory = {};
		memory.aliceId = (await api.get('/subscriber/get', { botid: 'bot_tg', clientid: '100001' })).body.subscriber.id;
		memory.tgBroadcast = (
			await api.post('/broadcast/send', { text: 'tg only', botid: 'bot_tg', tag: 'nobody-has-this' })
		).body.code;
		memory.tgKeyId = (
			await api.post('/key/create', { name: 'tg key', scopes: ['lists:read'], bots: ['bot_tg'] })
		).body.key.id;
		memory.accountHookId = (
			await api.post('/hook/create', { name: 'all bots', url: 'http://127.0.0.1:9/h', events: ['subscriber.new'] })
		).body.hook.id;
		const restricted = await api.withNewKey(ALL_SCOPES, ['bot_wa']);

		const before = await observableState(api);
		for (const call of BOT_CALLS) {
			const response = await restricted.post(call.path, call.body(memory));
			expect({ path: call.path, status: response.status, code: response.body.code }).toEqual({
				path: call.path,
				status: 403,
				code: 'bot_forbidden',
			});
		}
		expect(await observableState(api)).toEqual(before);
	});

	test('listings without botid show a bot-restricted key only its bots', async () => {
		const restricted = await api.withNewKey(ALL_SCOPES, ['bot_wa']);
		const botsOf = (cards: { botid: string }[]) => sorted(cards.map((card) => card.botid));
		expect(botsOf((await restricted.get('/subscriber/list', { limit: 1000 })).body.items)).toEqual(['bot_wa']);
		expect(botsOf((await restricted.get('/subscriber/find', { query: 'e' })).body.items)).toEqual(['bot_wa']);
		expect(botsOf((await restricted.get('/account/summary')).body.chains)).toEqual(['bot_wa']);
		expect((await restricted.get('/bot/list')).body.items.map((bot) => bot.id)).toEqual(['bot_wa']);
		const board = (await restricted.get('/crm/board')).body;
		expect(board.total).toBe(2);
		const broadcast = await restricted.post('/broadcast/send', { text: 'wa only' });
		expect(broadcast.body.planned).toBe(2);
	});
});

describe('sandbox contract: secrets', () => {
	test('key values and hook secrets appear only in the answers that create them', async () => {
		const { api, close } = await openSandbox();
		try {
			const created = (await api.post('/key/create', { name: 'secretive', scopes: ALL_SCOPES })).body.key.key as string;
			const secret = (
				await api.post('/hook/create', { name: 'h', url: 'http://127.0.0.1:9/h', events: ['subscriber.new'] })
			).body.secret as string;
			expect(created).toMatch(/^mbb_/);
			expect(secret).toMatch(/^whsec_/);
			await api.withKey(`${created}x`).get('/account/get');
			await api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'secret-check' });
			for (const [path, { params }] of Object.entries(READ_CASES)) {
				if (path === '/webapp/delete') continue;
				for (const key of [api.key!, created]) {
					const text = JSON.stringify((await api.withKey(key).get(path, params)).body);
					for (const hidden of [api.key!, created, secret, secret.slice('whsec_'.length)]) {
						expect({ path, leaked: text.includes(hidden) }).toEqual({ path, leaked: false });
					}
				}
			}
			const deliveries = JSON.stringify((await api.get('/hook/deliveries', { limit: 1000 })).body);
			expect(deliveries).not.toContain(secret.slice('whsec_'.length));
		} finally {
			await close();
		}
	});
});

describe('sandbox contract: rate limit', () => {
	test('per key: a refused change did nothing, carries Retry-After, and another key is still served', async () => {
		const { api, close } = await openSandbox({ rateLimit: 2 });
		try {
			const other = await api.withNewKey(['lists:read']);
			const adds = [];
			for (let i = 0; i < 4; i++)
				adds.push(await api.post('/list/row/add', { list: 'Leads', row: { Name: `burst ${i}` } }));
			const refused = adds.filter((response) => response.status === 429);
			expect(refused.length).toBeGreaterThan(0);
			for (const response of refused) {
				expectErrorBody(response, 429, 'rate_limited');
				expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
			}
			const rows = await other.get('/list/rows/get', { list: 'Leads', limit: 100 });
			expect(rows.status).toBe(200);
			expect(rows.body.total).toBe(3 + adds.filter((response) => response.status === 200).length);
		} finally {
			await close();
		}
	});
});
