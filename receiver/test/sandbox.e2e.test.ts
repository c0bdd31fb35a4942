import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Redis from 'ioredis';
import { testRedis } from '../../test/support/testRedis';
import type { RunningSandbox, SandboxOptions } from '../../sandbox/src';
import { createReceiver, type DeliveryContext, type DeliveryEvent, type NodeRequestHandler } from '../src';
import { restartablePort } from '../../test/support/restartablePort';
import { buildReceiver, eventually, startExampleApp, type ExampleApp } from './helpers';
import { captureRefusalWarnings, type CapturedWarnings } from './consoleCapture';

// Some deliveries here are refused on purpose: their warnings are captured, not printed; any other warning fails the test.
let warnings: CapturedWarnings;
beforeEach(() => {
	warnings = captureRefusalWarnings();
});
afterEach(() => warnings.restore());

/**
 * The sandbox (our local copy of the service) delivers real, signed events to receivers over HTTP, with its
 * retries; the receivers must see every event once, typed.
 */
const EVENTS = ['subscriber.new', 'subscriber.stage', 'payment.success'];

/** A delivery as the sandbox's /hook/deliveries lists it (the fields these tests read). */
interface DeliveryRecord {
	status: string;
	event: { id: string };
	attempts: unknown[];
}

class Api {
	constructor(readonly sandbox: RunningSandbox) {}

	async call<T = unknown>(path: string, body: Record<string, unknown>, base = this.sandbox.baseUrl): Promise<T> {
		const response = await fetch(`${base}${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', authorization: this.sandbox.adminKey },
			body: JSON.stringify(body),
		});
		const answer = await response.json();
		if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
		return answer as T;
	}

	createHook(url: string): Promise<{ hook: { id: string }; secret: string; publicKey?: string }> {
		return this.call('/hook/create', { name: `receiver e2e ${randomUUID()}`, url, events: EVENTS });
	}

	/** One subscriber.new, one subscriber.stage and one payment.success. */
	async activity(clientid: string): Promise<void> {
		await this.call('/subscriber/create', {
			botid: 'bot_tg',
			clientid,
			messenger: 'telegram',
			name: `Client ${clientid}`,
		});
		await this.call('/crm/stage/set', { botid: 'bot_tg', clientid, stage: 'Qualified' });
		await this.call(
			'/sandbox/payments',
			{ botid: 'bot_tg', clientid, messenger: 'telegram', amount: 12.5, currency: 'eur' },
			this.sandbox.url,
		);
	}

	async deliveries(hookId: string): Promise<DeliveryRecord[]> {
		const response = await fetch(`${this.sandbox.baseUrl}/hook/deliveries?hook=${hookId}&limit=1000`, {
			headers: { authorization: this.sandbox.adminKey },
		});
		return ((await response.json()) as { items: DeliveryRecord[] }).items;
	}
}

/**
 * An Express app on a fixed port that can be stopped and started again (a receiver that goes down); the port lies
 * below the ephemeral range, so the sandbox's connection attempts while it is down cannot take it.
 */
class RestartableApp {
	private server?: Server;
	private port?: number;
	constructor(private readonly handler: express.Express) {}

	async start(): Promise<string> {
		const port = (this.port ??= await restartablePort());
		this.server = await new Promise<Server>((resolve) => {
			const server = this.handler.listen(port, '127.0.0.1', () => resolve(server));
		});
		this.server.keepAliveTimeout = 0; // idle connections end with stop(), never under a request being sent
		return `http://127.0.0.1:${port}/hooks`;
	}

	async stop(): Promise<void> {
		const server = this.server;
		this.server = undefined;
		if (!server) return;
		server.closeAllConnections();
		await new Promise<void>((resolve) => server.close(() => resolve()));
	}
}

function countById(events: { id: string }[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const event of events) counts.set(event.id, (counts.get(event.id) ?? 0) + 1);
	return counts;
}

// The sandbox loads this package from receiver/dist: build it first, then load the sandbox.
let startSandbox: (options: SandboxOptions) => Promise<RunningSandbox>;
beforeAll(async () => {
	buildReceiver();
	({ startSandbox } = await import('../../sandbox/src'));
}, 60_000);

describe('sandbox -> Express middleware (HS256 JWT)', () => {
	let sandbox: RunningSandbox;
	let api: Api;
	let app: RestartableApp;
	const emitted: { event: DeliveryEvent; context: DeliveryContext }[] = [];
	let middleware: NodeRequestHandler | undefined;
	/** Answers are held back this long (longer than the sandbox waits) while > 0. */
	let slowAnswersMs = 0;
	let hookId: string;

	beforeAll(async () => {
		sandbox = await startSandbox({
			port: 0,
			rateLimit: 0,
			retrySchedule: [0.2, 0.4, 0.8, 1.6, 3.2],
			deliveryTimeoutMs: 400,
		});
		api = new Api(sandbox);
		const handler = express();
		handler.post(
			'/hooks',
			(_req, res, next) => {
				if (slowAnswersMs > 0) {
					const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
					res.end = ((...args: unknown[]) => (setTimeout(() => end(...args), slowAnswersMs), res)) as typeof res.end;
				}
				next();
			},
			(req, res, next) => middleware!(req, res, next),
		);
		app = new RestartableApp(handler);
		const url = await app.start();
		const { hook, secret } = await api.createHook(url);
		hookId = hook.id;
		const receiver = createReceiver({ secrets: secret, audience: hook.id });
		receiver
			.on('subscriber.new', (event, context) => void emitted.push({ event, context }))
			.on('subscriber.stage', (event, context) => void emitted.push({ event, context }))
			.on('payment.success', (event, context) => void emitted.push({ event, context }));
		middleware = receiver.middleware();
	});
	afterAll(async () => {
		await sandbox.close();
		await app.stop();
	});

	it('delivers every kind, typed, once', async () => {
		await api.activity('e2e_up_1');
		await api.activity('e2e_up_2');
		await eventually(() => emitted.length >= 6, 10_000, 'six events');
		const stage = emitted.find(({ event }) => event.type === 'subscriber.stage')!.event;
		expect(stage).toMatchObject({
			hook: hookId,
			data: { stage: 'Qualified', subscriber: { botid: 'bot_tg', clientid: 'e2e_up_1' } },
		});
		const payment = emitted.find(({ event }) => event.type === 'payment.success')!.event;
		expect(payment).toMatchObject({ data: { payment: { amount: 12.5, currency: 'EUR', clientid: 'e2e_up_1' } } });
		expect(emitted[0].context.scheme).toBe('jwt');
		expect(emitted.map(({ event }) => event.type).sort()).toEqual([...EVENTS, ...EVENTS].sort());
	});

	it('a receiver that is down gets everything after it comes back, nothing doubled', async () => {
		await app.stop();
		await api.activity('e2e_down_1');
		await api.activity('e2e_down_2');
		// The sandbox has tried each of the six new deliveries and failed: the receiver was down.
		await eventually(
			async () => {
				const pending = (await api.deliveries(hookId)).filter((delivery) => delivery.status !== 'delivered');
				return pending.length === 6 && pending.every((delivery) => delivery.attempts.length >= 1);
			},
			15_000,
			'a failed attempt at each delivery made while the receiver is down',
		);
		expect(emitted).toHaveLength(6);
		await app.start();
		await eventually(() => emitted.length >= 12, 15_000, 'the events sent while down');
		const retried = (await api.deliveries(hookId)).filter((delivery) => delivery.attempts.length > 1);
		expect(retried.length).toBeGreaterThanOrEqual(6);
	});

	it('answers that come too late make the sandbox retry; the retries are not emitted again', async () => {
		slowAnswersMs = 700;
		await api.activity('e2e_slow_1');
		await eventually(() => emitted.length >= 15, 10_000, 'the slow events');
		const slowIds = new Set(emitted.slice(12).map(({ event }) => event.id));
		// Each slow delivery is tried again while answers are still too late: those retries find the events done.
		await eventually(
			async () =>
				(await api.deliveries(hookId)).filter(
					(delivery) => slowIds.has(delivery.event.id) && delivery.attempts.length >= 2,
				).length === 3,
			15_000,
			'a second attempt at each slow delivery',
		);
		slowAnswersMs = 0;
		const deliveries = await eventually(
			async () => {
				const all = await api.deliveries(hookId);
				return all.every((delivery) => delivery.status === 'delivered') && all;
			},
			15_000,
			'every delivery to be marked delivered',
		);
		const slow = deliveries.filter((delivery) => slowIds.has(delivery.event.id));
		expect(slow).toHaveLength(3);
		expect(slow.every((delivery) => delivery.attempts.length >= 2)).toBe(true);
		expect(emitted).toHaveLength(15);
	});

	it('in the end: each of the sandbox deliveries was emitted exactly once', async () => {
		// Once every delivery is delivered the sandbox sends nothing more, and listeners run before their 200.
		const deliveries = await eventually(
			async () => {
				const all = await api.deliveries(hookId);
				return all.length === 15 && all.every((delivery) => delivery.status === 'delivered') && all;
			},
			15_000,
			'all fifteen deliveries to be delivered',
		);
		const counts = countById(emitted.map(({ event }) => event));
		expect([...counts.keys()].sort()).toEqual(deliveries.map((delivery) => delivery.event.id).sort());
		expect([...counts.values()].every((count) => count === 1)).toBe(true);
	});
});

describe('sandbox -> receiver with the account JWKS (ES256)', () => {
	it('verifies deliveries signed with the account key, fetched from /.well-known/jwks.json', async () => {
		const sandbox = await startSandbox({ port: 0, rateLimit: 0, retrySchedule: [0.2], signingAlgorithm: 'ES256' });
		const received: DeliveryContext[] = [];
		let middleware: NodeRequestHandler | undefined;
		const server = createServer((req, res) => middleware!(req, res));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const api = new Api(sandbox);
			const { hook } = await api.createHook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
			const receiver = createReceiver({ jwksUrl: `${sandbox.url}/.well-known/jwks.json`, audience: hook.id });
			receiver.on('payment.success', (_event, context) => void received.push(context));
			middleware = receiver.middleware();
			await api.activity('e2e_jwks_1');
			await eventually(() => received.length === 1, 10_000, 'the payment');
			const [delivery] = (await api.deliveries(hook.id)).filter((d) => d.status === 'delivered');
			expect(delivery).toBeDefined();
			expect(received[0].scheme).toBe('jwt');
		} finally {
			await sandbox.close();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	}, 30_000);
});

describe('sandbox --signing v1a -> receiver with the hook public key', () => {
	it('verifies deliveries that carry only a Standard Webhooks v1a (Ed25519) signature; a receiver with another key refuses them', async () => {
		const sandbox = await startSandbox({ port: 0, rateLimit: 0, retrySchedule: [0.2, 0.2], signingAlgorithm: 'v1a' });
		const received: DeliveryEvent[] = [];
		const seenHeaders: Record<string, string | string[] | undefined>[] = [];
		let middleware: NodeRequestHandler | undefined;
		const server = createServer((req, res) => {
			seenHeaders.push(req.headers);
			middleware!(req, res);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		try {
			const api = new Api(sandbox);
			const created = await api.createHook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
			expect(created.secret).toBeUndefined();
			expect(created.publicKey).toMatch(/^whpk_[A-Za-z0-9+/]{43}=$/);
			// First a receiver holding another hook's key: every attempt is refused (401), nothing is emitted.
			const stranger = createReceiver({
				publicKeys: 'whpk_' + Buffer.alloc(32, 7).toString('base64'),
				audience: created.hook.id,
			});
			stranger.onAny((event) => void received.push(event));
			middleware = stranger.middleware();
			await api.call('/subscriber/create', { botid: 'bot_tg', clientid: 'e2e_v1a_0', messenger: 'telegram' });
			const failed = await eventually(
				async () => (await api.deliveries(created.hook.id)).find((d) => d.status === 'failed') ?? false,
				10_000,
				'the refused delivery',
			);
			expect(failed.attempts.map((attempt) => (attempt as { status: number }).status)).toEqual([401, 401, 401]);
			expect(received).toHaveLength(0);

			const receiver = createReceiver({ publicKeys: created.publicKey!, audience: created.hook.id });
			receiver.onAny((event) => void received.push(event));
			middleware = receiver.middleware();
			await api.activity('e2e_v1a_1');
			await eventually(() => received.length === 3, 10_000, 'three events');
			expect(received.map((event) => event.type).sort()).toEqual([...EVENTS].sort());
			const last = seenHeaders.at(-1)!;
			expect(last['x-signature']).toBeUndefined();
			expect(String(last['webhook-signature'])).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/);
		} finally {
			await sandbox.close();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		}
	}, 30_000);
});

describe('sandbox -> load balancer -> two receiver processes sharing Redis', () => {
	it('emits each event once although retries land on the other process', async () => {
		const sandbox = await startSandbox({
			port: 0,
			rateLimit: 0,
			retrySchedule: [0.2, 0.4, 0.8, 1.6],
			deliveryTimeoutMs: 400,
		});
		const prefix = `mbb:test:${randomUUID()}:`;
		const instances: ExampleApp[] = [];
		let forwarded = 0;
		// Round-robin proxy; every third answer is held back past the sandbox's timeout, so that delivery is retried
		// and the retry reaches the other process.
		const balancer = createServer(async (req, res) => {
			const chunks: Buffer[] = [];
			for await (const chunk of req) chunks.push(chunk as Buffer);
			const target = instances[forwarded % instances.length];
			const holdBack = forwarded % 3 === 2;
			forwarded += 1;
			const headers = Object.fromEntries(
				Object.entries(req.headers).filter(
					([name]) => name === 'content-type' || name.startsWith('webhook-') || name === 'x-signature',
				),
			) as Record<string, string>;
			const answer = await fetch(target.url, { method: 'POST', headers, body: Buffer.concat(chunks) });
			const text = await answer.text();
			setTimeout(
				() => {
					if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
				},
				holdBack ? 700 : 0,
			);
		});
		await new Promise<void>((resolve) => balancer.listen(0, '127.0.0.1', resolve));
		try {
			const api = new Api(sandbox);
			const { hook, secret } = await api.createHook(
				`http://127.0.0.1:${(balancer.address() as AddressInfo).port}/hooks`,
			);
			const env = {
				MBB_HOOK_SECRET: secret,
				MBB_HOOK_ID: hook.id,
				REDIS_URL: testRedis().url,
				MBB_DEDUPE_PREFIX: prefix,
			};
			instances.push(...(await Promise.all([startExampleApp(env), startExampleApp(env)])));
			for (let i = 0; i < 4; i += 1) await api.activity(`e2e_lb_${i}`);
			await eventually(
				async () => {
					const deliveries = await api.deliveries(hook.id);
					return deliveries.length === 12 && deliveries.every((delivery) => delivery.status === 'delivered');
				},
				20_000,
				'all twelve deliveries to be delivered',
			);
			const deliveries = await api.deliveries(hook.id);
			// The apps print a line in their listener, before the 200; the pipe may bring it a little after the answer.
			const printed = () =>
				instances.flatMap((instance) => instance.lines.filter((line) => typeof line.id === 'string')) as {
					id: string;
				}[];
			await eventually(
				() => new Set(printed().map((line) => line.id)).size === deliveries.length,
				10_000,
				'a line for each delivered event',
			);
			const lines = printed();
			const counts = countById(lines);
			expect([...counts.keys()].sort()).toEqual(deliveries.map((delivery) => delivery.event.id).sort());
			expect([...counts.values()].every((count) => count === 1)).toBe(true);
			expect(deliveries.some((delivery) => delivery.attempts.length > 1)).toBe(true);
			expect(instances.every((instance) => instance.lines.some((line) => typeof line.id === 'string'))).toBe(true);
		} finally {
			await sandbox.close();
			await Promise.all(instances.map((instance) => instance.stop()));
			balancer.closeAllConnections();
			await new Promise<void>((resolve) => balancer.close(() => resolve()));
			const redis = new Redis(testRedis().url);
			const keys = await redis.keys(`${prefix}*`);
			if (keys.length) await redis.del(...keys);
			await redis.quit();
		}
	}, 300_000);
});
