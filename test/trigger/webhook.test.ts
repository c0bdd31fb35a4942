import type { IDataObject, INode, INodeParameters } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';
import { MessengerBotBuilderTrigger } from '../../nodes/MessengerBotBuilderTrigger/MessengerBotBuilderTrigger.node';
import { HarnessNodeTypes, PACKAGE } from '../support/nodeTypes';
import { generateHookSecret, signDelivery } from '../../receiver/src/sign';
import { UNVERIFIED_HINT_INTERVAL_MS } from '../../nodes/MessengerBotBuilderTrigger/delivery';
import { loadTriggerHarnessApart, TriggerHarness, type TriggerHarnessOptions } from '../support/triggerHarness';
import { startWebhookServer, type WebhookServer } from '../support/webhookServer';
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';

/**
 * Deliveries signed by the project's signer, sent over HTTP to the stand-in n8n endpoint, reaching
 * the trigger's `webhook()` in a real WebhookContext. The hook is set up in static data directly, as
 * `create` would have left it.
 */
const HOOK_ID = 'hook_webhook_test';
const SECRET = generateHookSecret();
const NODE_PATH = '/6f1c2f7e-4b8a-4d55-9a55-3c0f9d1e2a7b/webhook';

let server: WebhookServer;
let harness: TriggerHarness;
let sequence = 0;

function triggerWith(
	parameters: TriggerHarnessOptions['parameters'],
	state: IDataObject = { hookId: HOOK_ID, secret: SECRET },
) {
	harness = new TriggerHarness({
		apiBaseUrl: 'http://127.0.0.1:9/api',
		apiKey: 'unused',
		webhookBaseUrl: server.webhookBaseUrl,
		webhookTestBaseUrl: server.webhookTestBaseUrl,
		parameters,
	});
	harness.setNodeStaticData(state);
	return harness;
}

function event(type: string, data: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
	sequence += 1;
	return { id: `evt_webhook_${sequence}`, type, created: new Date().toISOString(), hook: HOOK_ID, data, ...overrides };
}

const payment = () => ({
	payment: {
		id: `pay_${sequence}`,
		amount: 5,
		currency: 'USD',
		botid: 'bot_tg',
		clientid: 'c1',
		messenger: 'telegram',
		description: null,
		paid_at: new Date().toISOString(),
	},
});

const subscriber = (botid = 'bot_tg') => ({
	subscriber: { botid, clientid: `c${sequence}`, messenger: 'telegram', name: 'Ada' },
});

interface SendOptions {
	secret?: string;
	hookId?: string;
	timestamp?: number;
	scheme?: 'both' | 'jwt' | 'standard-webhooks';
	/** Sent instead of the body that was signed. */
	sentBody?: string;
}

async function send(payload: Record<string, unknown>, options: SendOptions = {}) {
	const body = JSON.stringify(payload);
	const headers: Record<string, string> = await signDelivery({
		body,
		eventId: String(payload.id),
		hookId: options.hookId ?? HOOK_ID,
		secret: options.secret ?? SECRET,
		timestamp: options.timestamp,
	});
	if (options.scheme === 'jwt')
		for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) delete headers[name];
	if (options.scheme === 'standard-webhooks') delete headers['x-signature'];
	const response = await fetch(`${server.webhookBaseUrl}${NODE_PATH}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...headers },
		body: options.sentBody ?? body,
	});
	const answer = { status: response.status, body: (await response.json()) as Record<string, unknown> };
	await harness.settled();
	return answer;
}

beforeAll(async () => {
	server = await startWebhookServer(() => harness);
});

afterAll(async () => {
	await server.close();
});

describe('webhook(): genuine deliveries', () => {
	it('starts the workflow with the event data, verified by the JWT alone', async () => {
		triggerWith({ events: ['*'] });
		const delivered = event('subscriber.new', subscriber());
		expect((await send(delivered, { scheme: 'jwt' })).status).toBe(200);
		expect(harness.started).toEqual([[{ json: delivered.data }]]);
	});

	it('accepts the Standard Webhooks signature when there is no X-Signature', async () => {
		triggerWith({ events: ['*'], options: { output: 'envelope' } });
		const delivered = event('payment.success', {
			payment: {
				id: 'pay_1',
				amount: 5,
				currency: 'USD',
				botid: 'bot_tg',
				clientid: 'c1',
				messenger: 'telegram',
				description: null,
				paid_at: new Date().toISOString(),
			},
		});
		expect((await send(delivered, { scheme: 'standard-webhooks' })).status).toBe(200);
		expect(harness.started).toEqual([[{ json: delivered }]]);
	});

	it('starts nothing again for an event id it already accepted (a retry), yet answers 200', async () => {
		triggerWith({ events: ['*'] });
		const delivered = event('subscriber.new', subscriber());
		expect((await send(delivered)).status).toBe(200);
		const retry = await send(delivered);
		expect(retry).toEqual({ status: 200, body: { status: 'duplicate', event: delivered.id } });
		expect(harness.started).toHaveLength(1);
	});

	it('a delivery its parameters fail to read for (an expression in Bot Names or IDs) is not recorded: the retry is handled again, not answered as a repeat', async () => {
		triggerWith({ events: ['*'], botIds: '={{ $("No Such Node").item.json.bot }}' as unknown as string[] });
		const delivered = event('subscriber.new', subscriber());
		const first = await send(delivered);
		expect(first.status).toBeGreaterThanOrEqual(500);
		const retry = await send(delivered);
		expect(retry).toEqual(first);
		expect(harness.started).toHaveLength(0);
		// The expression fixed, the sender's next retry starts the workflow once.
		triggerWith({ events: ['*'], botIds: ['bot_tg'] }, harness.nodeStaticData);
		expect((await send(delivered)).status).toBe(200);
		expect(harness.started).toEqual([[{ json: delivered.data }]]);
	});

	it('answers 200 and starts nothing for kinds and bots that are not chosen', async () => {
		triggerWith({ events: ['subscriber.stage'], botIds: ['bot_wa'] });
		expect((await send(event('subscriber.new', subscriber('bot_wa')))).body.reason).toMatch(/not selected/);
		expect(
			(await send(event('subscriber.stage', { ...subscriber('bot_tg'), stage: 'Won', previous: null }))).body.reason,
		).toMatch(/another bot/);
		expect(harness.started).toHaveLength(0);
		expect(
			(await send(event('subscriber.stage', { ...subscriber('bot_wa'), stage: 'Won', previous: 'New' }))).status,
		).toBe(200);
		expect(harness.started[0][0].json).toMatchObject({
			stage: 'Won',
			previous: 'New',
			subscriber: { botid: 'bot_wa' },
		});
	});

	it('passes on unknown event kinds only when asked to', async () => {
		triggerWith({ events: ['*'] });
		expect((await send(event('order.created', { order: 1 }))).body.reason).toMatch(/not known/);
		expect(harness.started).toHaveLength(0);
		triggerWith({ events: ['*'], options: { passUnknownEvents: true, output: 'envelope' } });
		expect((await send(event('order.created', { order: 2 }))).status).toBe(200);
		expect(harness.started[0][0].json).toMatchObject({ type: 'order.created', data: { order: 2 } });
		// With Event Data Only too, an unknown kind leaves as the whole event (its data alone would not say what it is).
		triggerWith({ events: ['*'], options: { passUnknownEvents: true } });
		expect((await send(event('order.created', { order: 3 }))).status).toBe(200);
		expect(harness.started[0][0].json).toMatchObject({ type: 'order.created', data: { order: 3 } });
	});
});

describe('webhook(): deliveries that start nothing', () => {
	beforeEach(() => triggerWith({ events: ['*'] }));

	afterEach(() => expect(harness.started).toHaveLength(0));

	it.each([
		['signed with another secret', { secret: generateHookSecret() }, 'invalid_signature'],
		['signed for another hook', { hookId: 'hook_other' }, 'audience_mismatch'],
		[
			'signed ten minutes ago (JWT)',
			{ timestamp: Math.floor(Date.now() / 1000) - 600, scheme: 'jwt' as const },
			'expired',
		],
		[
			'signed ten minutes ago (Standard Webhooks)',
			{ timestamp: Math.floor(Date.now() / 1000) - 600, scheme: 'standard-webhooks' as const },
			'timestamp_out_of_tolerance',
		],
		[
			'signed ten minutes ahead',
			{ timestamp: Math.floor(Date.now() / 1000) + 600, scheme: 'jwt' as const },
			'not_yet_valid',
		],
	])('answers 401 to a delivery %s', async (_what, options, code) => {
		const answer = await send(event('subscriber.new', subscriber()), options);
		expect(answer).toEqual({ status: 401, body: { status: 'refused', code, error: expect.any(String) } });
	});

	it('answers 401 to a tampered body, under either signature', async () => {
		const delivered = event('subscriber.new', subscriber());
		const tampered = JSON.stringify({ ...delivered, data: subscriber('bot_evil') });
		expect((await send(delivered, { sentBody: tampered, scheme: 'jwt' })).body.code).toBe('body_hash_mismatch');
		expect((await send(delivered, { sentBody: tampered, scheme: 'standard-webhooks' })).body.code).toBe(
			'invalid_signature',
		);
	});

	it('answers 401 to an unsigned delivery', async () => {
		const response = await fetch(`${server.webhookBaseUrl}${NODE_PATH}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(event('subscriber.new', subscriber())),
		});
		expect(response.status).toBe(401);
	});

	it('answers 413 to an oversized body without looking further', async () => {
		const delivered = event('subscriber.new', { ...subscriber(), padding: 'x'.repeat(1024 * 1024) });
		expect((await send(delivered)).status).toBe(413);
	});

	it('answers 401 while the trigger has no hook (nothing registered, or already removed)', async () => {
		triggerWith({ events: ['*'] }, {});
		expect((await send(event('subscriber.new', subscriber()))).body.code).toBe('key_not_found');
	});

	it('never puts the secret in its answer', async () => {
		const answer = await send(event('subscriber.new', subscriber()), { secret: generateHookSecret() });
		expect(JSON.stringify(answer)).not.toContain(SECRET.slice(6));
	});
});

describe('webhook(): what the n8n log says about a refusal', () => {
	it('says by how many seconds the clocks differ (a warning), while the 401 answer does not', async () => {
		triggerWith({ events: ['*'] });
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		try {
			const now = Math.floor(Date.now() / 1000);
			const answer = await send(event('subscriber.new', subscriber()), {
				timestamp: now - 900,
				scheme: 'standard-webhooks',
			});
			expect(answer.status).toBe(401);
			expect(answer.body.code).toBe('timestamp_out_of_tolerance');
			expect(JSON.stringify(answer.body)).not.toMatch(/behind|clock/);
			expect(warn).toHaveBeenCalledTimes(1);
			const [message, meta] = warn.mock.calls[0];
			// The sender signed 900 s before n8n's "now" (give or take the second the request took).
			expect(message).toMatch(
				/^Messenger Bot Builder Trigger refused a delivery \(timestamp_out_of_tolerance\): .*webhook-timestamp is 90[01] s behind this server's clock/,
			);
			expect(meta).toEqual({ code: 'timestamp_out_of_tolerance' });
		} finally {
			warn.mockRestore();
		}
		expect(harness.started).toHaveLength(0);
	});

	it('says that a body changed on its way when the JWT is genuine but the bytes are not the signed ones', async () => {
		triggerWith({ events: ['*'] });
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		try {
			const delivered = event('subscriber.new', subscriber());
			const answer = await send(delivered, { scheme: 'jwt', sentBody: JSON.stringify(delivered, null, 2) });
			expect(answer).toMatchObject({ status: 401, body: { code: 'body_hash_mismatch' } });
			expect(JSON.stringify(answer.body)).not.toMatch(/parser/);
			expect(warn).toHaveBeenCalledTimes(1);
			expect(warn.mock.calls[0][0]).toMatch(new RegExp(`event ${delivered.id}.*re-serialized`));
		} finally {
			warn.mockRestore();
		}
		expect(harness.started).toHaveLength(0);
	});
});

describe('webhook(): queue mode and repeats', () => {
	// Loaded while the file's tests are collected, before any request: loading blocks the event loop, and a keep-alive
	// connection the server closes on its idle timer as the next request reuses it is reset.
	const FreshHarness = loadTriggerHarnessApart(() => jest.requireActual('../support/triggerHarness'));

	it('verifies in a freshly loaded copy of the node with only the stored static data', async () => {
		triggerWith({ events: ['*'] });
		await send(event('subscriber.new', subscriber()));
		const stored = harness.nodeStaticData;
		harness = new FreshHarness({
			apiBaseUrl: 'http://127.0.0.1:9/api',
			apiKey: 'unused',
			webhookBaseUrl: server.webhookBaseUrl,
			webhookTestBaseUrl: server.webhookTestBaseUrl,
			parameters: { events: ['*'] },
		});
		harness.setNodeStaticData(JSON.parse(JSON.stringify(stored)));
		expect((await send(event('subscriber.new', subscriber()))).status).toBe(200);
		expect(harness.started).toHaveLength(1);
		expect((await send(event('subscriber.new', subscriber()), { secret: generateHookSecret() })).status).toBe(401);
		expect(harness.started).toHaveLength(1);
		harness.shutdown();
	});

	it('a delivery whose execution n8n failed to create (500) is started by the sender\'s retry to the same process, not answered "duplicate"', async () => {
		triggerWith({ events: ['*'] });
		const delivered = event('subscriber.new', subscriber());
		harness.startFails = true;
		expect((await send(delivered)).status).toBe(500);
		harness.startFails = false;
		expect(await send(delivered)).toEqual({ status: 200, body: { status: 'accepted', event: delivered.id } });
		expect(harness.started).toEqual([[{ json: delivered.data }]]);
		expect(await send(delivered)).toEqual({ status: 200, body: { status: 'duplicate', event: delivered.id } });
	});

	it('answers each delivery with its documented body: accepted, duplicate, ignored', async () => {
		triggerWith({ events: ['payment.success'] });
		const filtered = event('subscriber.new', subscriber());
		expect(await send(filtered)).toEqual({
			status: 200,
			body: { status: 'ignored', event: filtered.id, reason: 'event kind subscriber.new is not selected' },
		});
		const paid = event('payment.success', payment());
		expect(await send(paid)).toEqual({ status: 200, body: { status: 'accepted', event: paid.id } });
		expect(await send(paid, { scheme: 'standard-webhooks' })).toEqual({
			status: 200,
			body: { status: 'duplicate', event: paid.id },
		});
		expect(harness.started).toEqual([[{ json: paid.data }]]);
	});

	it('writes nothing into the static data on a delivery (n8n saves that column whole: a webhook process must not put back an old secret)', async () => {
		const stored = { hookId: HOOK_ID, secret: SECRET, url: 'http://127.0.0.1:9/webhook', events: ['subscriber.new'] };
		triggerWith({ events: ['payment.success'] }, stored);
		await send(event('subscriber.new', subscriber()));
		await send(event('payment.success', payment()));
		expect(harness.nodeStaticData).toEqual(stored);
	});
});

describe('webhook(): One Output per Event Kind', () => {
	const stage = () => ({ ...subscriber(), stage: 'Won', previous: 'New' });

	it('puts each event on the output of its kind: New Subscriber, Subscriber Stage Changed, Payment Succeeded', async () => {
		triggerWith({ events: ['*'], options: { outputPerEvent: true } });
		const deliveries = [
			event('subscriber.stage', stage()),
			event('payment.success', payment()),
			event('subscriber.new', subscriber()),
		];
		for (const delivered of deliveries) expect((await send(delivered)).status).toBe(200);
		expect(harness.startedOutputs).toEqual([
			[[], [{ json: deliveries[0].data }], []],
			[[], [], [{ json: deliveries[1].data }]],
			[[{ json: deliveries[2].data }], [], []],
		]);
	});

	it('unknown kinds, when they pass, go to a fourth output, Other Events', async () => {
		triggerWith({ events: ['*'], options: { outputPerEvent: true, passUnknownEvents: true, output: 'envelope' } });
		const unknown = event('order.created', { order: 3 });
		expect((await send(unknown)).status).toBe(200);
		expect(harness.startedOutputs).toEqual([[[], [], [], [{ json: unknown }]]]);
	});

	it('n8n computes the outputs from the options: one, three named, or four with Other Events', () => {
		const description = new MessengerBotBuilderTrigger().description;
		const outputsFor = (options: INodeParameters) => {
			const node: INode = {
				id: 'trigger',
				name: 'Trigger',
				type: `${PACKAGE}.messengerBotBuilderTrigger`,
				typeVersion: 1.1,
				position: [0, 0] as [number, number],
				parameters: { events: ['*'], options },
			};
			const workflow = new Workflow({
				nodes: [node],
				connections: {},
				active: false,
				nodeTypes: new HarnessNodeTypes([new MessengerBotBuilderTrigger()]),
			});
			return NodeHelpers.getNodeOutputs(workflow, node, description);
		};
		expect(outputsFor({})).toEqual(['main']);
		const names = ['New Subscriber', 'Subscriber Stage Changed', 'Payment Succeeded'];
		expect(outputsFor({ outputPerEvent: true })).toEqual(names.map((displayName) => ({ type: 'main', displayName })));
		expect(outputsFor({ outputPerEvent: true, passUnknownEvents: true })).toEqual(
			[...names, 'Other Events'].map((displayName) => ({ type: 'main', displayName })),
		);
	});
});

describe('webhook(): an unsigned request cannot make its chosen event id a verified fact in the log', () => {
	const CHOSEN_ID = 'evt_chosen_by_the_sender_91ab';
	const REFUSED =
		'Messenger Bot Builder Trigger refused a delivery (invalid_signature): webhook-signature matches none of the configured keys. ';
	const UNVERIFIED_HINT =
		'Unverified request (nothing vouches for what it claims): its signature matches none of the configured keys, and its body is ' +
		'JSON whose "id" equals its webhook-id header, as a delivery\'s does. If the service sent it, either the secret or public key is ' +
		"not this hook's, or the body's content was changed on the way (a proxy or code that edits it)";

	it('logs a hint marked unverified, without the id, at most once a minute, counting those held back', async () => {
		triggerWith({ events: ['*'] });
		const logger = Container.get(Logger);
		const warn = jest.spyOn(logger, 'warn').mockImplementation(() => {});
		const debug = jest.spyOn(logger, 'debug').mockImplementation(() => {});
		// The hint gate lives for the n8n process: start well past any window an earlier test opened.
		const realNow = Date.now.bind(Date);
		let offsetMs = 10 * UNVERIFIED_HINT_INTERVAL_MS;
		const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offsetMs);
		try {
			const forge = () =>
				send(event('subscriber.new', subscriber(), { id: CHOSEN_ID }), {
					secret: generateHookSecret(),
					scheme: 'standard-webhooks',
				});
			// Earlier tests' unverified hints (a JWT with another secret) may be counted as held back: one logged hint
			// starts the count again.
			await forge();
			offsetMs += UNVERIFIED_HINT_INTERVAL_MS;
			warn.mockClear();
			debug.mockClear();
			for (let i = 0; i < 3; i += 1)
				expect((await forge()).body).toEqual({
					status: 'refused',
					code: 'invalid_signature',
					error: 'webhook-signature matches none of the configured keys',
				});
			offsetMs += UNVERIFIED_HINT_INTERVAL_MS;
			expect((await forge()).status).toBe(401);
			expect(warn.mock.calls).toEqual([
				[`${REFUSED}${UNVERIFIED_HINT}`, { code: 'invalid_signature', unverified: true }],
				[
					`${REFUSED}${UNVERIFIED_HINT} (2 more unverified hints were held back since the last one)`,
					{ code: 'invalid_signature', unverified: true },
				],
			]);
			const heldBack = debug.mock.calls.filter(([message]) =>
				String(message).startsWith('Messenger Bot Builder Trigger refused'),
			);
			expect(heldBack).toEqual([
				[
					'Messenger Bot Builder Trigger refused a delivery: webhook-signature matches none of the configured keys (an unverified hint held back: at most one a minute)',
					{ code: 'invalid_signature' },
				],
				[
					'Messenger Bot Builder Trigger refused a delivery: webhook-signature matches none of the configured keys (an unverified hint held back: at most one a minute)',
					{ code: 'invalid_signature' },
				],
			]);
			for (const [message, meta] of [...warn.mock.calls, ...debug.mock.calls])
				expect(JSON.stringify([message, meta])).not.toContain(CHOSEN_ID);
		} finally {
			clock.mockRestore();
			warn.mockRestore();
			debug.mockRestore();
		}
		expect(harness.started).toHaveLength(0);
	});
});
