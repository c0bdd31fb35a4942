import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { byId } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/** Everything an execution keeps (items, errors with message, description, stack and cause) as text. */
const everything = (value: unknown) =>
	JSON.stringify(value, (_key, inner: unknown) =>
		inner instanceof Error ? { ...inner, message: inner.message, stack: inner.stack, cause: inner.cause } : inner,
	);

/** 401, 403, 422 and 429 through a real execution, and "On Error: Continue" per item. */
describe('errors and rate limits', () => {
	let bed: NodeTestBed;

	beforeAll(async () => {
		bed = await startTestBed();
	});
	afterAll(async () => bed.close());

	it('401: an unknown key fails with the service code and never shows the key', async () => {
		const secret = 'mbb_not-a-real-key-0123456789';
		bed.node.useKey('unknown', secret, bed.baseUrl);
		const error = await bed.node.failure({ resource: 'account', operation: 'getBalance' }, { credential: 'unknown' });
		expect(error.httpCode).toBe('401');
		expect(error.context.code).toBe('unauthorized');
		expect(error.message).toContain('unauthorized');
		expect(error.description).toMatch(/key/i);
		expect(JSON.stringify({ ...error, message: error.message, stack: error.stack })).not.toContain(secret);
	});

	it('403: a key without the scope names the missing scope', async () => {
		const key = await bed.api.keyWith(['account:read']);
		bed.node.useKey('narrow', key, bed.baseUrl);
		const error = await bed.node.failure({ resource: 'bot', operation: 'getMany' }, { credential: 'narrow' });
		expect(error.httpCode).toBe('403');
		expect(error.context).toMatchObject({ code: 'forbidden', scope: 'bots:read' });
		expect(error.description).toContain('bots:read');
		expect(error.message).not.toContain(key);
	});

	it('422: a bad parameter fails with the service code and the parameter named', async () => {
		const error = await bed.node.failure({
			resource: 'account',
			operation: 'getApiLog',
			returnAll: true,
			filters: { status: 42 },
		});
		expect(error.httpCode).toBe('422');
		expect(error.context).toMatchObject({ code: 'invalid_param', param: 'status' });
		expect(error.description).toContain('status');
	});

	it.each([
		['webhook', 'delete', { hookId: 'hook_0000000000000000' }, 'Webhook ID'],
		['apiKey', 'revoke', { keyId: 'key_unknown' }, 'Key ID'],
		['webApp', 'delete', { webAppId: 'app_unknown' }, 'Web App ID'],
	])(
		'%s/%s: a refusal of the parameter "id" names the node\'s field (%#)',
		async (resource, operation, parameters, field) => {
			const error = await bed.node.failure({ resource, operation, ...parameters });
			expect(error.context.param).toBe('id');
			expect(error.description).toBe(`Check the field "${field}" (the service's parameter "id").`);
		},
	);

	it('continueOnFail: the failing item becomes an error item, the others go on, all paired', async () => {
		await bed.api.call('/account/balance/get'); // so that the log has an entry with status 200
		const items = await bed.node.items(
			{
				resource: 'account',
				operation: 'getApiLog',
				returnAll: false,
				limit: 1,
				filters: { status: '={{ $json.status }}' },
			},
			{ items: [{ status: 200 }, { status: 42 }, { status: 200 }], continueOnFail: true },
		);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[1].json).toEqual({
			error: expect.stringContaining('status'),
			details: expect.objectContaining({ code: 'invalid_param', param: 'status', status: 422 }),
		});
		expect(items[0].json.status).toBe(200);
		expect(items[2].json.status).toBe(200);
	});

	it('429: waits Retry-After and retries, every item answered once', async () => {
		// A service that allows 1 request per second: the node's second and third requests are refused.
		const slow = await startTestBed({ rateLimit: 1 });
		try {
			const items = await slow.node.items({ resource: 'account', operation: 'getBalance' }, { items: [{}, {}, {}] });
			expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
			expect(items.every((item) => typeof item.json.balance === 'number')).toBe(true);

			const statuses = (await slow.api.logOf('/account/balance/get')).map((entry) => entry.status);
			expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(2);
			expect(statuses.filter((status) => status === 200)).toHaveLength(3);
		} finally {
			await slow.close();
		}
	});

	it('keeps to 10 requests per second per credential: 30 items, no 429', async () => {
		const key = await bed.api.keyWith(['account:read']);
		bed.node.useKey('paced', key, bed.baseUrl);
		const items = await bed.node.items(
			{ resource: 'account', operation: 'getBalance' },
			{ credential: 'paced', items: Array.from({ length: 30 }, () => ({})) },
		);
		expect(items).toHaveLength(30);
		const refused = (await bed.api.logOf('/account/balance/get')).filter(
			(entry) => entry.status === 429 && entry.keyId !== 'account',
		);
		expect(refused).toEqual([]);
	});

	it('Return All reads more pages than the burst allows at the pace of 10 per second, no 429', async () => {
		// A service serving at most 100 rows a page: 1,500 rows are 16 pages (each after the first starts at the
		// last row read: 100 + 15 × 99 ≥ 1,500) and one more, the last row alone, to confirm the end.
		const capped = await startTestBed({ maxPage: 100, maxPageMode: 'cap', omitTotal: true });
		try {
			const { list } = await capped.api.call('/list/create', { name: 'Paged at pace', headers: ['N'] });
			for (let part = 0; part < 3; part++) {
				await capped.api.call('/list/rows/add', {
					listid: list.id,
					rows: Array.from({ length: 500 }, (_, n) => [String(part * 500 + n)]),
				});
			}
			const key = await capped.api.keyWith(['lists:read']);
			capped.node.useKey('reader', key, capped.baseUrl);
			const rows = await capped.node.json(
				{ resource: 'listRow', operation: 'getMany', listId: byId(list.id), returnAll: true, output: 'raw' },
				{ credential: 'reader' },
			);
			expect(rows.map((row) => (row.values as string[])[0])).toEqual(Array.from({ length: 1500 }, (_, n) => String(n)));
			const statuses = (await capped.api.logOf('/list/rows/get'))
				.filter((entry) => entry.keyId !== 'account')
				.map((entry) => entry.status);
			expect(statuses).toEqual(Array.from({ length: 1 + Math.ceil((1500 - 100) / 99) + 1 }, () => 200));
		} finally {
			await capped.close();
		}
	});

	it('the API key appears nowhere in an execution: outputs, error items, node errors, lost connections', async () => {
		const secret = await bed.api.keyWith(['account:read']);
		bed.node.useKey('leak-check', secret, bed.baseUrl);
		bed.node.useKey('unreachable', secret, 'http://127.0.0.1:9/api');
		const runs = [
			await bed.node.execute({ resource: 'account', operation: 'getBalance' }, { credential: 'leak-check' }),
			await bed.node.execute({ resource: 'bot', operation: 'getMany' }, { credential: 'leak-check' }),
			await bed.node.execute(
				{ resource: 'subscriber', operation: 'block', botId: byId('bot_tg'), clientId: '100001' },
				{ credential: 'leak-check', continueOnFail: true },
			),
			await bed.node.execute(
				{ resource: 'message', operation: 'send', botId: byId('bot_tg'), clientId: '1', text: 'x' },
				{ credential: 'unreachable' },
			),
		];
		expect(runs.map((run) => run.nodeError('Messenger Bot Builder') !== undefined)).toEqual([false, true, false, true]);
		expect(runs[2].output('Messenger Bot Builder')[0].json.details).toMatchObject({
			status: 403,
			scope: 'subscribers:write',
		});
		for (const run of runs) expect(everything(run.run)).not.toContain(secret);
	});

	it('429 without end: waits out 429s up to the time set in Request Options, then fails saying how long it waited', async () => {
		let calls = 0;
		const server = createServer((_request, response) => {
			calls++;
			response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '0' });
			response.end(JSON.stringify({ code: 'rate_limited', error: 'Too many requests' }));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			bed.node.useKey('saturated', 'any-key', `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
			const startedAt = Date.now();
			const error = await bed.node.failure(
				{ resource: 'account', operation: 'getBalance', requestOptions: { rateLimitWait: 1 } },
				{ credential: 'saturated' },
			);
			const elapsed = Date.now() - startedAt;
			expect(error.httpCode).toBe('429');
			expect(error.context.code).toBe('rate_limited');
			const waited = Number(error.context.waitedSeconds);
			expect(waited).toBeGreaterThan(0.5);
			expect(waited).toBeLessThanOrEqual(1);
			expect(error.description).toContain(`waited ${waited} s in total`);
			expect(elapsed).toBeGreaterThanOrEqual(waited * 1000);
			expect(calls).toBeGreaterThan(2);
		} finally {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
	});

	it('429 for longer than the old eight waits: the item still succeeds within the default budget', async () => {
		let refusals = 12;
		const server = createServer((_request, response) => {
			if (refusals-- > 0) {
				response.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '0' });
				response.end(JSON.stringify({ code: 'rate_limited', error: 'Too many requests' }));
				return;
			}
			response.writeHead(200, { 'Content-Type': 'application/json' });
			response.end(JSON.stringify({ balance: 42 }));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			bed.node.useKey('busy', 'any-key', `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`);
			const [answer] = await bed.node.json({ resource: 'account', operation: 'getBalance' }, { credential: 'busy' });
			expect(answer.balance).toBe(42);
			expect(refusals).toBe(-1);
		} finally {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
	});
});
