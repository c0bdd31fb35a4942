import type { RunningSandbox } from '../src';
import { openSandbox, TestClient } from './client';
import { eventually, TestReceiver } from './hooksTestReceiver';

describe('sandbox hooks API: /hook/create, /hook/list, /hook/delete, /hook/deliveries, /sandbox/payments', () => {
	let sandbox: RunningSandbox;
	let api: TestClient;
	let close: () => Promise<void>;
	let receiver: TestReceiver;

	beforeAll(async () => {
		({ sandbox, api, close } = await openSandbox({ retrySchedule: [0.05] }));
		receiver = await TestReceiver.start();
	});
	afterAll(async () => {
		await close();
		await receiver.close();
	});

	const listHooks = async (client = api) => (await client.get('/hook/list', { limit: 1000 })).body.items;

	test('create returns the hook and its secret once; list shows it without the secret', async () => {
		const created = await api.post('/hook/create', {
			name: 'CRM sync',
			url: receiver.url,
			events: ['subscriber.new', 'payment.success'],
		});
		expect(created.status).toBe(200);
		expect(created.body).toEqual({
			hook: {
				id: expect.stringMatching(/^hook_/),
				name: 'CRM sync',
				url: receiver.url,
				events: ['subscriber.new', 'payment.success'],
				created: expect.any(String),
			},
			secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
		});
		expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);

		const listed = (await listHooks()).find((hook) => hook.id === created.body.hook.id);
		expect(listed).toEqual({
			...created.body.hook,
			disabled: false,
			disabledAt: null,
			disabledReason: null,
			deliveries: { pending: 0, delivered: 0, failed: 0, cancelled: 0, lastAttempt: null },
		});
		expect(JSON.stringify(await api.get('/hook/list'))).not.toContain(created.body.secret.slice(6));
	});

	test('two hooks never share a secret; duplicate event names collapse', async () => {
		const first = await api.post('/hook/create', {
			name: 'a',
			url: receiver.url,
			events: ['subscriber.stage', 'subscriber.stage'],
		});
		const second = await api.post('/hook/create', { name: 'b', url: receiver.url, events: 'subscriber.stage' });
		expect(first.body.hook.events).toEqual(['subscriber.stage']);
		expect(second.body.hook.events).toEqual(['subscriber.stage']);
		expect(first.body.secret).not.toBe(second.body.secret);
	});

	test.each([
		['no name', { url: 'http://127.0.0.1:1/x', events: ['subscriber.new'] }, 'missing_param', 'name'],
		['no url', { name: 'x', events: ['subscriber.new'] }, 'missing_param', 'url'],
		['url not a URL', { name: 'x', url: 'not a url', events: ['subscriber.new'] }, 'invalid_param', 'url'],
		[
			'credentials in the url',
			{ name: 'x', url: 'http://user:pw@127.0.0.1/x', events: ['subscriber.new'] },
			'invalid_param',
			'url',
		],
		['ftp url', { name: 'x', url: 'ftp://127.0.0.1/x', events: ['subscriber.new'] }, 'invalid_param', 'url'],
		['no events', { name: 'x', url: 'http://127.0.0.1:1/x' }, 'missing_param', 'events'],
		['empty events', { name: 'x', url: 'http://127.0.0.1:1/x', events: [] }, 'invalid_param', 'events'],
		['events not strings', { name: 'x', url: 'http://127.0.0.1:1/x', events: [42] }, 'invalid_param', 'events'],
		[
			'name too long',
			{ name: 'x'.repeat(201), url: 'http://127.0.0.1:1/x', events: ['subscriber.new'] },
			'invalid_param',
			'name',
		],
	])('create with %s: 422 naming the parameter, nothing created', async (_case, body, code, param) => {
		const before = (await listHooks()).length;
		const response = await api.post('/hook/create', body);
		expect(response.status).toBe(422);
		expect(response.body).toEqual(expect.objectContaining({ code, param, error: expect.stringContaining(param) }));
		expect(await listHooks()).toHaveLength(before);
	});

	test('unknown event kinds are named in the 422', async () => {
		const response = await api.post('/hook/create', {
			name: 'x',
			url: receiver.url,
			events: ['subscriber.new', 'order.paid', 'lead.lost'],
		});
		expect(response.status).toBe(422);
		expect(response.body.param).toBe('events');
		expect(response.body.error).toContain('unknown: "order.paid", "lead.lost"');
	});

	test('401 without a key, 405 on GET of write methods, 403 without the hooks scopes', async () => {
		expect(
			(await api.withKey(undefined).post('/hook/create', { name: 'x', url: receiver.url, events: ['subscriber.new'] }))
				.status,
		).toBe(401);
		expect((await api.withKey(undefined).get('/hook/list')).status).toBe(401);
		for (const path of ['/hook/create', '/hook/delete']) {
			const response = await api.get(path, { id: 'x' });
			expect(response.status).toBe(405);
			expect(response.body.code).toBe('method_not_allowed');
		}
		const reader = await api.withNewKey(['hooks:read']);
		const denied = await reader.post('/hook/create', { name: 'x', url: receiver.url, events: ['subscriber.new'] });
		expect(denied.status).toBe(403);
		expect(denied.body.scope).toBe('hooks:write');
		expect((await reader.get('/hook/list')).status).toBe(200);
		const outsider = await api.withNewKey(['lists:read']);
		expect((await outsider.get('/hook/list')).body).toEqual(
			expect.objectContaining({ code: 'forbidden', scope: 'hooks:read' }),
		);
		expect((await outsider.post('/hook/delete', { id: 'hook_x' })).status).toBe(403);
	});

	test('delete removes the hook; deleting it again or an unknown id is 422 not_found naming id', async () => {
		const created = await api.post('/hook/create', {
			name: 'temporary',
			url: receiver.url,
			events: ['subscriber.new'],
		});
		const id = created.body.hook.id as string;
		expect(await api.post('/hook/delete', { id })).toEqual(
			expect.objectContaining({ status: 200, body: { ok: true, id } }),
		);
		expect((await listHooks()).map((hook) => hook.id)).not.toContain(id);
		const again = await api.post('/hook/delete', { id });
		expect(again.status).toBe(422);
		expect(again.body).toEqual(expect.objectContaining({ code: 'not_found', param: 'id' }));
		expect((await api.post('/hook/delete', {})).body).toEqual(
			expect.objectContaining({ code: 'missing_param', param: 'id' }),
		);
	});

	test('a bot-restricted key makes hooks that only see its bots, and cannot manage the account-wide ones', async () => {
		const tgOnly = await api.withNewKey(['hooks:read', 'hooks:write'], ['bot_tg']);
		const tgReceiver = await TestReceiver.start();
		try {
			const created = await tgOnly.post('/hook/create', {
				name: 'telegram only',
				url: tgReceiver.url,
				events: ['payment.success'],
			});
			expect(created.status).toBe(200);
			const accountWide = await api.post('/hook/create', {
				name: 'everything',
				url: receiver.url,
				events: ['payment.success'],
			});

			const visible = (await listHooks(tgOnly)).map((hook) => hook.id);
			expect(visible).toEqual([created.body.hook.id]);
			const forbidden = await tgOnly.post('/hook/delete', { id: accountWide.body.hook.id });
			expect(forbidden.status).toBe(403);
			expect(forbidden.body).toEqual(expect.objectContaining({ code: 'bot_forbidden', param: 'id' }));

			const payment = { clientid: 'c1', amount: 5, currency: 'usd' };
			await post(sandbox, '/sandbox/payments', { ...payment, botid: 'bot_wa', messenger: 'whatsapp' });
			await post(sandbox, '/sandbox/payments', { ...payment, botid: 'bot_tg', messenger: 'telegram' });
			const [delivery] = await tgReceiver.waitFor(1);
			expect(delivery.event.data.payment?.botid).toBe('bot_tg');
			// Deliveries are made when the event happens: the restricted hook has exactly this one, the other bot's none.
			const madeForTg = sandbox.control.deliveries({ hook: created.body.hook.id });
			expect(
				madeForTg.map((made) => (made.event as { data: { payment: { botid: string } } }).data.payment.botid),
			).toEqual(['bot_tg']);
			expect(tgReceiver.received).toHaveLength(1);
			expect((await tgOnly.post('/hook/delete', { id: created.body.hook.id })).status).toBe(200);
		} finally {
			await tgReceiver.close();
		}
	});

	test('payments: validated, returned, announced as payment.success; bad input changes nothing', async () => {
		const paid = await post(sandbox, '/sandbox/payments', {
			botid: 'bot_tg',
			clientid: '777',
			messenger: 'telegram',
			amount: '19.90',
			currency: 'eur',
			description: 'Pizza',
		});
		expect(paid.status).toBe(200);
		expect(paid.body).toEqual({
			payment: {
				id: expect.stringMatching(/^pay_/),
				amount: 19.9,
				currency: 'EUR',
				botid: 'bot_tg',
				clientid: '777',
				messenger: 'telegram',
				description: 'Pizza',
				paid_at: expect.any(String),
			},
		});
		const delivered = await eventually(() =>
			receiver.received.find((delivery) => delivery.event.data.payment?.id === paid.body.payment.id),
		);
		expect(delivered.event.type).toBe('payment.success');
		expect(delivered.event.data).toEqual({ payment: paid.body.payment });

		const valid = { botid: 'bot_tg', clientid: '777', messenger: 'telegram', amount: 5, currency: 'USD' };
		const cases: [Record<string, unknown>, string, string][] = [
			[{ ...valid, botid: undefined }, 'missing_param', 'botid'],
			[{ ...valid, botid: 'bot_nope' }, 'not_found', 'botid'],
			[{ ...valid, clientid: '' }, 'missing_param', 'clientid'],
			[{ ...valid, messenger: 'whatsapp' }, 'invalid_param', 'messenger'],
			[{ ...valid, amount: undefined }, 'missing_param', 'amount'],
			[{ ...valid, amount: -1 }, 'invalid_param', 'amount'],
			[{ ...valid, amount: 'ten' }, 'invalid_param', 'amount'],
			[{ ...valid, currency: 'dollars' }, 'invalid_param', 'currency'],
			[{ ...valid, description: { text: 1 } }, 'invalid_param', 'description'],
		];
		const deliveriesBefore = (await api.get('/hook/deliveries', { limit: 1000 })).body.total;
		for (const [body, code, param] of cases) {
			const response = await post(sandbox, '/sandbox/payments', body);
			expect({ status: response.status, code: response.body.code, param: response.body.param }).toEqual({
				status: 422,
				code,
				param,
			});
		}
		expect((await api.get('/hook/deliveries', { limit: 1000 })).body.total).toBe(deliveriesBefore);

		const restricted = await api.post('/key/create', { name: 'all', scopes: ['hooks:write'] });
		const notAccount = await fetch(`${sandbox.url}/sandbox/payments`, {
			method: 'POST',
			headers: { authorization: restricted.body.key.key, 'content-type': 'application/json' },
			body: JSON.stringify(valid),
		});
		expect(notAccount.status).toBe(401);
		expect(
			(await fetch(`${sandbox.url}/sandbox/payments`, { method: 'POST', body: JSON.stringify(valid) })).status,
		).toBe(401);
	});

	test('/hook/deliveries filters by hook, status and event; unknown hook is 422 naming hook', async () => {
		const hooks = await listHooks();
		const crm = hooks.find((hook) => hook.name === 'CRM sync');
		if (!crm) throw new Error('the hook "CRM sync" is not listed');
		const byHook = await api.get('/hook/deliveries', { hook: crm.id });
		expect(byHook.status).toBe(200);
		expect(byHook.body.items.length).toBeGreaterThan(0);
		expect(byHook.body.items.every((delivery) => delivery.hook === crm.id)).toBe(true);
		const first = byHook.body.items[0];
		const byEvent = await api.get('/hook/deliveries', { event: first.event.id });
		expect(byEvent.body.items.map((delivery) => delivery.id)).toEqual([first.id]);
		const delivered = await api.get('/hook/deliveries', { status: 'delivered', hook: crm.id });
		expect(delivered.body.items.every((delivery) => delivery.status === 'delivered')).toBe(true);
		expect((await api.get('/hook/deliveries', { status: 'lost' })).body).toEqual(
			expect.objectContaining({ code: 'invalid_param', param: 'status' }),
		);
		expect((await api.get('/hook/deliveries', { hook: 'hook_nope' })).body).toEqual(
			expect.objectContaining({ code: 'not_found', param: 'hook' }),
		);
	});
});

function post<P extends string>(sandbox: RunningSandbox, path: P, body: unknown) {
	return new TestClient(sandbox.url, sandbox.adminKey).post(path, body);
}
