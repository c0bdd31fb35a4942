import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Redis from 'ioredis';
import { testRedis } from '../../test/support/testRedis';
import type { RunningSandbox, SandboxOptions } from '../../sandbox/src';
import {
	createQueueWorker,
	createReceiver,
	deliveryQueue,
	memoryDedupeStore,
	redisDedupeStore,
	type AcknowledgeMode,
	type DeliveryQueue,
	type QueueWorker,
	type ReceiverLogger,
	type RedisDedupeStore,
} from '../src';
import { buildReceiver, eventually, settledWithin } from './helpers';

/**
 * The receiver's worst day, played by the sandbox (its delivery chaos, every setting at once): some deliveries come
 * twice at once, some out of order, some late, some have their connection cut once the request is sent, and some
 * have their answer counted as later than the sender's timeout, so the sandbox retries an event the receiver has
 * already run. The five receivers below run side by side, each on a hook of its own (every payment is one event per
 * hook, with an id of its own), and the runs of each one's listeners are counted against the events the sandbox
 * itself recorded as emitted for its hook.
 *
 * What each mode promises (receiver/docs/acknowledgement.md), and so exactly what is asserted:
 * - `onReceipt` (answer once verified, listeners after): AT MOST ONCE. No event runs twice; none runs that the
 *   sandbox did not emit. Losing an event is allowed (not asserted either way).
 * - `afterListeners` (answer after the listeners): AT LEAST ONCE. Every emitted event runs (0 lost); none runs that
 *   the sandbox did not emit. Running one twice is allowed (not asserted either way).
 * - `queue` (answer once durably in the BullMQ queue, a worker runs the listeners): AT LEAST ONCE, the same
 *   assertions as `afterListeners`.
 * `onReceipt` and `afterListeners` run once with the in-memory dedupe store (one receiver instance: the store is per
 * process) and once with the Redis store; the queue mode has no dedupe store (its job ids deduplicate).
 */
type Guarantee = 'at most once' | 'at least once';
interface Mode {
	name: string;
	acknowledge: AcknowledgeMode;
	store: 'memory' | 'redis' | 'none';
	promises: Guarantee;
}
const MODES: Mode[] = [
	{ name: 'onReceipt, memory dedupe', acknowledge: 'onReceipt', store: 'memory', promises: 'at most once' },
	{ name: 'onReceipt, Redis dedupe', acknowledge: 'onReceipt', store: 'redis', promises: 'at most once' },
	{ name: 'afterListeners, memory dedupe', acknowledge: 'afterListeners', store: 'memory', promises: 'at least once' },
	{ name: 'afterListeners, Redis dedupe', acknowledge: 'afterListeners', store: 'redis', promises: 'at least once' },
	{ name: 'queue (BullMQ on Redis)', acknowledge: 'queue', store: 'none', promises: 'at least once' },
];
/** 5 modes × 400 = 2,000 events in all (the sandbox keeps the 2,000 latest finished deliveries). */
const EVENTS_PER_MODE = 400;
const BURST = 30;

/** Every chaos setting at once, on a fifth of the deliveries each; short delays and a compressed retry schedule. */
const SANDBOX_OPTIONS: SandboxOptions = {
	port: 0,
	rateLimit: 0,
	// A long tail: on a busy machine an attempt can time out several times in a row, and a delivery the sandbox gives
	// up on would count as lost.
	retrySchedule: [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 12.8],
	deliveryTimeoutMs: 5000,
	deliveryChaos: {
		duplicate: 0.2,
		reorder: 0.2,
		delay: 0.2,
		cut: 0.2,
		slow: 0.2,
		delayMs: 40,
		holdMs: 150,
		seed: 20_261_207,
	},
};
const CHAOS_KINDS = ['duplicated', 'held back', 'delayed', 'connection cut', 'answer counted as later'];

/**
 * The longest the sandbox can take to end a delivery: every attempt timing out, with every pause of the retry schedule
 * between them, and a margin for a busy machine. A shorter wait for the deliveries to end would fail a slow but correct
 * run.
 */
const DELIVERIES_END_WITHIN_MS =
	(SANDBOX_OPTIONS.retrySchedule ?? []).reduce((sum, seconds) => sum + seconds * 1000, 0) +
	((SANDBOX_OPTIONS.retrySchedule ?? []).length + 1) * (SANDBOX_OPTIONS.deliveryTimeoutMs ?? 0) +
	15_000;

/** A delivery as /sandbox/deliveries records it (the fields read here). */
interface DeliveryRecord {
	status: string;
	event: { id: string };
	chaos: string[];
}

/** What the receiver side of one mode is made of, to be closed afterwards. */
interface ModeRun {
	url: string;
	secretFor(secret: string, hookId: string): void;
	/** Waits for the listeners still running (or, in queue mode, for nothing: the counts are awaited instead). */
	idle(): Promise<void>;
	close(): Promise<void>;
}

let startSandbox: (options: SandboxOptions) => Promise<RunningSandbox>;
let sandbox: RunningSandbox;
const redisPrefix = `mbb-test-sandbox-chaos-${randomUUID().slice(0, 8)}`;
/** The receiver's own lines (a lease lost under a stalled run, say): shown when an assertion fails, never printed. */
const logged: string[] = [];
const logger: ReceiverLogger = {
	debug: () => undefined,
	info: () => undefined,
	warn: (message) => logged.push(`warn ${message}`),
	error: (message) => logged.push(`error ${message}`),
};

beforeAll(async () => {
	buildReceiver();
	({ startSandbox } = await import('../../sandbox/src'));
	sandbox = await startSandbox(SANDBOX_OPTIONS);
}, 60_000);

afterAll(async () => {
	await sandbox?.close();
	const redis = new Redis(testRedis().url);
	try {
		const keys = await redis.keys(`${redisPrefix}*`);
		if (keys.length > 0) await redis.del(...keys);
	} finally {
		await redis.quit();
	}
});

async function post<T>(path: string, body: Record<string, unknown>, base = sandbox.baseUrl): Promise<T> {
	const response = await fetch(`${base}${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: sandbox.adminKey },
		body: JSON.stringify(body),
	});
	const answer = await response.json();
	if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(answer)}`);
	return answer as T;
}

async function listen(app: express.Express): Promise<{ url: string; server: Server }> {
	const server = await new Promise<Server>((resolve) => {
		const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
	});
	return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, server };
}

async function stopServer(server: Server): Promise<void> {
	server.closeAllConnections();
	await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A receiver in `mode` on its own port, counting each event's listener runs in `runs`. */
async function startMode(mode: Mode, runs: Map<string, number>): Promise<ModeRun> {
	const count = async (event: { id: string }) => {
		runs.set(event.id, (runs.get(event.id) ?? 0) + 1);
		// A little work, so that copies of an event can meet while one of them runs.
		await new Promise((resolve) => setImmediate(resolve));
	};
	let middleware: ReturnType<ReturnType<typeof createReceiver>['middleware']> | undefined;
	let idle: () => Promise<void> = async () => undefined;
	let dedupe: RedisDedupeStore | undefined;
	let queue: DeliveryQueue | undefined;
	let worker: QueueWorker | undefined;
	if (mode.store === 'redis')
		dedupe = redisDedupeStore({ url: testRedis().url, prefix: `${redisPrefix}:event:`, onWarning: false, logger });
	if (mode.acknowledge === 'queue') {
		const location = { url: testRedis().url, prefix: `${redisPrefix}-queue` };
		queue = deliveryQueue({ ...location, onWarning: false, logger });
		worker = createQueueWorker({ ...location, concurrency: 8, logger });
		worker.onAny(count).onError((error) => logged.push(`worker ${error}`));
		await worker.start();
	}
	const app = express();
	app.post('/hooks', (req, res, next) => {
		if (middleware) middleware(req, res, next);
		else res.status(503).end();
	});
	const { url, server } = await listen(app);
	return {
		url,
		secretFor(secret, hookId) {
			const receiver = createReceiver({
				secrets: secret,
				audience: hookId,
				acknowledge: mode.acknowledge,
				...(queue ? { queue } : { dedupe: dedupe ?? memoryDedupeStore() }),
				logger,
			});
			// In queue mode the worker runs the listeners.
			if (!queue) receiver.onAny(count);
			receiver.onError((error) => logged.push(`receiver ${error}`));
			middleware = receiver.middleware();
			idle = () => receiver.idle();
		},
		idle: () => idle(),
		async close() {
			await stopServer(server);
			if (worker) await settledWithin(worker.close(), 10_000);
			if (queue) await settledWithin(queue.close(), 10_000);
			if (dedupe) await settledWithin(dedupe.close(), 10_000);
		},
	};
}

/**
 * `EVENTS_PER_MODE` payments in bursts of `BURST` concurrent ones. Each payment is one `payment.success` for every
 * mode's hook, each with an event id of its own: the modes run side by side, against the same chaos.
 */
async function emit(): Promise<void> {
	for (let sent = 0; sent < EVENTS_PER_MODE; sent += BURST) {
		const burst = Math.min(BURST, EVENTS_PER_MODE - sent);
		await Promise.all(
			Array.from({ length: burst }, (_, i) =>
				post(
					'/sandbox/payments',
					{ botid: 'bot_tg', clientid: `chaos_${sent + i}`, messenger: 'telegram', amount: 1, currency: 'EUR' },
					sandbox.url,
				),
			),
		);
	}
}

/** The sandbox's own record of a hook's deliveries, once every one has ended. */
async function recordedDeliveries(hookId: string): Promise<DeliveryRecord[]> {
	return eventually(
		async () => {
			const response = await fetch(`${sandbox.url}/sandbox/deliveries?hook=${hookId}&limit=1000`, {
				headers: { authorization: sandbox.adminKey },
			});
			const { items } = (await response.json()) as { items: DeliveryRecord[] };
			return items.length === EVENTS_PER_MODE && items.every((delivery) => delivery.status !== 'pending') && items;
		},
		DELIVERIES_END_WITHIN_MS,
		`the sandbox to end all ${EVENTS_PER_MODE} deliveries of ${hookId}`,
	);
}

/** Lost: emitted, never run. Doubled: run more than once. Unknown: run, never emitted. */
function tally(emitted: Set<string>, runs: Map<string, number>) {
	return {
		lost: [...emitted].filter((id) => !runs.has(id)),
		doubled: [...runs].filter(([, count]) => count > 1).map(([id]) => id),
		unknown: [...runs.keys()].filter((id) => !emitted.has(id)),
	};
}

/** What the mode's promise says of its counts (see the top of this file), and what was counted. */
async function verdict(mode: Mode, hookId: string, runs: Map<string, number>, run: ModeRun) {
	const deliveries = await recordedDeliveries(hookId);
	const emitted = new Set(deliveries.map((delivery) => delivery.event.id));
	// Every kind of chaos happened to some of the mode's deliveries.
	const chaosMet = CHAOS_KINDS.filter((kind) =>
		deliveries.some((delivery) => delivery.chaos.some((note) => note.startsWith(kind))),
	);
	await run.idle();
	if (mode.promises === 'at least once') {
		// The queue's workers may still be running events the receiver has enqueued: wait for them, then count.
		await eventually(() => tally(emitted, runs).lost.length === 0, 30_000).catch(() => undefined);
		const { lost, unknown } = tally(emitted, runs);
		// A lost event with its delivery's record, so that a failure tells the receiver's fault from the sender giving up.
		const records = lost.map((id) => {
			const delivery = deliveries.find((candidate) => candidate.event.id === id)!;
			return `${id} ${delivery.status} ${delivery.chaos.join('; ')}`;
		});
		return { emitted: emitted.size, chaosMet, lost: records, unknown };
	}
	const { doubled, unknown } = tally(emitted, runs);
	return { emitted: emitted.size, chaosMet, doubled, unknown };
}

it(
	`every acknowledgement mode keeps its promise under every delivery chaos at once, ${EVENTS_PER_MODE} events each`,
	async () => {
		const runs = MODES.map(() => new Map<string, number>());
		const started = await Promise.all(MODES.map((mode, i) => startMode(mode, runs[i])));
		const hooks: string[] = [];
		try {
			for (const [i, mode] of MODES.entries()) {
				const { hook, secret } = await post<{ hook: { id: string }; secret: string }>('/hook/create', {
					name: `chaos ${mode.name}`,
					url: started[i].url,
					events: ['payment.success'],
				});
				hooks.push(hook.id);
				started[i].secretFor(secret, hook.id);
			}
			await emit();
			const verdicts = await Promise.all(MODES.map((mode, i) => verdict(mode, hooks[i], runs[i], started[i])));
			const counted = Object.fromEntries(MODES.map((mode, i) => [mode.name, verdicts[i]]));
			const promised = Object.fromEntries(
				MODES.map((mode) => [
					mode.name,
					mode.promises === 'at least once'
						? { emitted: EVENTS_PER_MODE, chaosMet: CHAOS_KINDS, lost: [], unknown: [] }
						: { emitted: EVENTS_PER_MODE, chaosMet: CHAOS_KINDS, doubled: [], unknown: [] },
				]),
			);
			if (JSON.stringify(counted) !== JSON.stringify(promised))
				console.error(`receiver lines: ${logged.slice(0, 30).join('\n')}`);
			expect(counted).toEqual(promised);
		} finally {
			for (const hook of hooks) await post('/hook/delete', { id: hook });
			await Promise.all(started.map((run) => run.close()));
		}
		// Emitting, the deliveries' end, and the queue's workers finishing what they took.
	},
	60_000 + DELIVERIES_END_WITHIN_MS + 30_000,
);
