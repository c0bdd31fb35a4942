import type { RunningSandbox } from '../../sandbox/src';
import type { SandboxApi } from '../support/sandboxApi';
import type { TriggerHarness } from '../support/triggerHarness';
import { omit } from '../support/omit';
import { waitFor, pause } from '../support/wait';
import { startTriggerTestBed, type TriggerTestBed } from '../support/triggerTestBed';
import type { WebhookServer } from '../support/webhookServer';

/**
 * The whole path: the trigger registers its hook with a running sandbox, the sandbox signs and
 * sends real deliveries over HTTP to a stand-in n8n webhook endpoint, and each reaches the node's
 * `webhook()` in a real n8n WebhookContext.
 */
describe('Messenger Bot Builder Trigger with the sandbox', () => {
	let sandbox: RunningSandbox;
	let server: WebhookServer;
	let api: SandboxApi;
	let harness: TriggerHarness;

	const hookList = async () =>
		(await api.call('/hook/list', {})).items as Array<{ id: string; url: string; events: string[] }>;

	async function sandboxPost(path: string, body: Record<string, unknown>) {
		const response = await fetch(`${sandbox.url}${path}`, {
			method: 'POST',
			headers: { Authorization: sandbox.adminKey, 'Content-Type': 'application/json' },
			body: JSON.stringify(body),
		});
		expect(response.status).toBe(200);
		return response.json();
	}

	let bed: TriggerTestBed;

	beforeAll(async () => {
		bed = await startTriggerTestBed(() => harness);
		({ sandbox, api, server } = bed);
	});

	afterAll(() => bed?.close());

	beforeEach(() => {
		server.received.length = 0;
	});

	describe('with all events, whole envelopes', () => {
		beforeAll(() => {
			harness = bed.harness({
				parameters: { events: ['*'], options: { output: 'envelope' } },
			});
		});

		it('create registers a hook for the n8n webhook URL and keeps its id and secret in static data', async () => {
			expect(await harness.lifecycle('checkExists')).toBe(false);
			expect(await harness.lifecycle('create')).toBe(true);
			const state = harness.nodeStaticData;
			expect(state.hookId).toEqual(expect.any(String));
			expect(state.secret).toMatch(/^whsec_/);
			const hook = (await hookList()).find((candidate) => candidate.id === state.hookId);
			expect(hook?.url).toBe(`${server.webhookBaseUrl}/${'6f1c2f7e-4b8a-4d55-9a55-3c0f9d1e2a7b'}/webhook`);
			expect([...hook!.events].sort()).toEqual(['payment.success', 'subscriber.new', 'subscriber.stage']);
			expect(await harness.lifecycle('checkExists')).toBe(true);
		});

		it('a new subscriber starts the workflow with exactly that event', async () => {
			await api.call('/subscriber/create', {
				botid: 'bot_tg',
				clientid: 'trigger-e2e-1',
				messenger: 'telegram',
				name: 'Ada',
			});
			const [item] = await waitFor('subscriber.new', () =>
				harness.started.find((run) => run[0].json.type === 'subscriber.new'),
			);
			expect(item.json).toMatchObject({
				type: 'subscriber.new',
				hook: harness.nodeStaticData.hookId,
				data: { subscriber: { botid: 'bot_tg', clientid: 'trigger-e2e-1', name: 'Ada' } },
			});
			expect(server.received.every((request) => request.status === 200)).toBe(true);
		});

		it('a stage change starts the workflow with the new and previous stage', async () => {
			await api.call('/crm/stage/set', { botid: 'bot_tg', clientid: 'trigger-e2e-1', stage: 'Qualified' });
			const [item] = await waitFor('subscriber.stage', () =>
				harness.started.find((run) => run[0].json.type === 'subscriber.stage'),
			);
			expect(item.json).toMatchObject({
				type: 'subscriber.stage',
				data: { stage: 'Qualified', subscriber: { clientid: 'trigger-e2e-1' } },
			});
		});

		it('a payment starts the workflow with the payment', async () => {
			await sandboxPost('/sandbox/payments', {
				botid: 'bot_tg',
				clientid: 'trigger-e2e-1',
				messenger: 'telegram',
				amount: 12.5,
				currency: 'usd',
			});
			const [item] = await waitFor('payment.success', () =>
				harness.started.find((run) => run[0].json.type === 'payment.success'),
			);
			expect(item.json).toMatchObject({
				type: 'payment.success',
				data: { payment: { amount: 12.5, currency: 'USD', botid: 'bot_tg', clientid: 'trigger-e2e-1' } },
			});
			expect(harness.started).toHaveLength(3);
		});

		it('a tampered, an unsigned or a foreign delivery answers 401 and starts nothing', async () => {
			await api.call('/subscriber/create', { botid: 'bot_tg', clientid: 'trigger-e2e-2', messenger: 'telegram' });
			await waitFor('the genuine delivery', () => server.received.find((request) => request.status === 200));
			const genuine = server.received.find((request) => request.status === 200)!;
			// The delivery was answered before its execution ran (n8n answers first): count once it has ended.
			await harness.settled();
			const startedBefore = harness.started.length;
			const url = `${server.webhookBaseUrl}${genuine.path.replace(/^\/webhook/, '')}`;
			const signatureHeaders = Object.fromEntries(
				Object.entries(genuine.headers).filter(([name]) => name === 'x-signature' || name.startsWith('webhook-')),
			);
			const send = (headers: Record<string, string>, body: string) =>
				fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

			const tampered = genuine.body.replace('trigger-e2e-2', 'trigger-e2e-X');
			expect((await send(signatureHeaders, tampered)).status).toBe(401);
			const standardOnly = omit(signatureHeaders, 'x-signature');
			expect((await send(standardOnly, tampered)).status).toBe(401);
			expect((await send({}, genuine.body)).status).toBe(401);
			expect((await send({ 'x-signature': 'eyJhbGciOiJub25lIn0.eyJldnQiOiJ4In0.' }, genuine.body)).status).toBe(401);
			await harness.settled();
			expect(harness.started.length).toBe(startedBefore);
		});

		it('a replay of a genuine delivery inside the window answers 200 and starts nothing again', async () => {
			await api.call('/subscriber/create', { botid: 'bot_tg', clientid: 'trigger-e2e-3', messenger: 'telegram' });
			await waitFor('the genuine delivery', () => server.received.find((request) => request.status === 200));
			const genuine = server.received.find((request) => request.status === 200)!;
			// The delivery was answered before its execution ran (n8n answers first): count once it has ended.
			await harness.settled();
			const startedBefore = harness.started.length;
			const response = await fetch(`${server.webhookBaseUrl}${genuine.path.replace(/^\/webhook/, '')}`, {
				method: 'POST',
				headers: genuine.headers,
				body: genuine.body,
			});
			expect(response.status).toBe(200);
			await harness.settled();
			expect(harness.started.length).toBe(startedBefore);
		});

		it('delete removes the hook from the service and forgets it', async () => {
			const hookId = harness.nodeStaticData.hookId;
			expect(await harness.lifecycle('delete')).toBe(true);
			expect((await hookList()).some((hook) => hook.id === hookId)).toBe(false);
			expect(harness.nodeStaticData.hookId).toBeUndefined();
			expect(harness.nodeStaticData.secret).toBeUndefined();
			await api.call('/subscriber/create', { botid: 'bot_tg', clientid: 'trigger-e2e-4', messenger: 'telegram' });
			await pause(500);
			expect(server.received).toHaveLength(0);
		});
	});

	describe('with a choice of events and a bot filter', () => {
		beforeAll(async () => {
			harness = bed.harness({
				parameters: { events: ['subscriber.new'], botIds: ['bot_wa'] },
			});
			await harness.activate();
		});

		afterAll(async () => {
			await harness.lifecycle('delete');
		});

		it('subscribes the hook to the chosen kinds only and puts out just the data', async () => {
			const hook = (await hookList()).find((candidate) => candidate.id === harness.nodeStaticData.hookId);
			expect(hook?.events).toEqual(['subscriber.new']);
			await api.call('/subscriber/create', { botid: 'bot_tg', clientid: 'trigger-e2e-5', messenger: 'telegram' });
			await api.call('/subscriber/create', { botid: 'bot_wa', clientid: 'trigger-e2e-6', messenger: 'whatsapp' });
			await waitFor('two deliveries', () => (server.received.length >= 2 ? true : undefined));
			await waitFor('the bot_wa subscriber', () => harness.started.find((run) => run[0].json.subscriber !== undefined));
			await harness.settled();
			expect(server.received.map((request) => request.status)).toEqual([200, 200]);
			expect(harness.started).toHaveLength(1);
			expect(harness.started[0][0].json).toMatchObject({ subscriber: { botid: 'bot_wa', clientid: 'trigger-e2e-6' } });
			expect(harness.started[0][0].json.type).toBeUndefined();
		});
	});

	describe('listening for a test event', () => {
		it('registers a hook for the test URL and removes it afterwards', async () => {
			harness = bed.harness({
				parameters: { events: ['payment.success'] },
			});
			await harness.activate('test');
			const hook = (await hookList()).find((candidate) => candidate.id === harness.nodeStaticData.hookId);
			expect(hook?.url.startsWith(`${server.webhookTestBaseUrl}/`)).toBe(true);
			await sandboxPost('/sandbox/payments', {
				botid: 'bot_wa',
				clientid: 'c9',
				messenger: 'whatsapp',
				amount: 3,
				currency: 'EUR',
			});
			const [item] = await waitFor('the test event', () => harness.started[0]);
			expect(item.json).toMatchObject({ payment: { amount: 3, currency: 'EUR' } });
			expect(server.received[0].path.startsWith('/webhook-test/')).toBe(true);
			expect(await harness.lifecycle('delete', 'test')).toBe(true);
			expect((await hookList()).some((candidate) => candidate.id === hook?.id)).toBe(false);
		});
	});
});

/** A service whose hooks sign with Standard Webhooks `v1a` (Ed25519) only: the trigger keeps the public key and verifies with it. */
describe('Messenger Bot Builder Trigger with a sandbox that signs with v1a', () => {
	let bed: TriggerTestBed;
	let harness: TriggerHarness;

	beforeAll(async () => {
		bed = await startTriggerTestBed(() => harness, { signingAlgorithm: 'v1a' });
		harness = bed.harness({ parameters: { events: ['*'], options: { output: 'envelope' } } });
	});

	afterAll(() => bed?.close());

	it('keeps the hook public key (no secret) and starts the workflow with a v1a-signed delivery', async () => {
		expect(await harness.lifecycle('create')).toBe(true);
		const state = harness.nodeStaticData;
		expect(state.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
		expect(state.secret).toBeUndefined();
		expect(await harness.lifecycle('checkExists')).toBe(true);
		await bed.api.call('/subscriber/create', {
			botid: 'bot_tg',
			clientid: 'trigger-v1a-1',
			messenger: 'telegram',
			name: 'Vee',
		});
		const [item] = await waitFor('subscriber.new', () =>
			harness.started.find((run) => run[0].json.type === 'subscriber.new'),
		);
		expect(item.json).toMatchObject({
			type: 'subscriber.new',
			hook: state.hookId,
			data: { subscriber: { clientid: 'trigger-v1a-1' } },
		});
		const [request] = bed.server.received;
		expect(request.status).toBe(200);
		expect(harness.started).toHaveLength(1);
	});

	it('refuses a delivery whose v1a signature is by another key (401, nothing started)', async () => {
		const state = harness.nodeStaticData;
		// The key of some other hook: the sandbox's signature no longer matches what the node holds.
		harness.setNodeStaticData({ ...state, publicKey: 'whpk_' + Buffer.alloc(32, 9).toString('base64') });
		try {
			const before = harness.started.length;
			bed.server.received.length = 0;
			await bed.api.call('/subscriber/create', {
				botid: 'bot_tg',
				clientid: 'trigger-v1a-2',
				messenger: 'telegram',
				name: 'Mallory',
			});
			await waitFor('the refused delivery', () => bed.server.received.find((request) => request.status === 401));
			expect(harness.started).toHaveLength(before);
		} finally {
			harness.setNodeStaticData(state);
		}
	});
});
