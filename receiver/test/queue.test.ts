import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Redis from 'ioredis';
import {
	createQueueWorker,
	createReceiver,
	deliveryQueue,
	jobIdOf,
	listDeadLetters,
	type DeliveryQueue,
	type QueueWorker,
} from '../src';
import { runQueueCli } from '../src/queueCli';
import {
	buildReceiver,
	eventually,
	newSecret,
	serve,
	settledWithin,
	signedDelivery,
	startOwnRedis,
	type OwnRedis,
} from './helpers';

/** Queue mode on a redis-server of the test's own: the runnable examples, retries, dead letters, a stalled Redis. */
const secret = newSecret();
let redis: OwnRedis;
beforeAll(async () => {
	redis = await startOwnRedis();
}, 20_000);
afterAll(() => redis.destroy());

function startExample(script: string, env: Record<string, string>) {
	const child: ChildProcess = spawn(process.execPath, [join(__dirname, '../examples', script)], {
		env: { ...process.env, PORT: '0', ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const lines: Record<string, unknown>[] = [];
	createInterface({ input: child.stdout! }).on('line', (line) => lines.push(JSON.parse(line)));
	const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
	return {
		lines,
		stop: async () => {
			if (child.exitCode === null) child.kill('SIGTERM');
			await exited;
		},
	};
}

describe('the runnable queue example: queue-receiver.mjs + queue-worker.mjs', () => {
	it('answers 200 once enqueued; the worker process runs each event once, also when it is delivered three times', async () => {
		buildReceiver();
		const env = { REDIS_URL: redis.url, MBB_HOOK_SECRET: secret, QUEUE_PREFIX: `mbb-test-${randomUUID().slice(0, 8)}` };
		const receiver = startExample('queue-receiver.mjs', env);
		const worker = startExample('queue-worker.mjs', env);
		try {
			const url = (await eventually(
				() => receiver.lines.find((line) => line.listening)?.listening ?? false,
				100_000,
				'the receiver to listen',
			)) as string;
			await eventually(() => worker.lines.some((line) => line.ready), 100_000, 'the worker to start');
			const kinds = ['payment.success', 'subscriber.new', 'subscriber.stage'];
			const deliveries = await Promise.all(Array.from({ length: 9 }, (_, i) => signedDelivery(secret, kinds[i % 3])));
			for (let round = 0; round < 3; round += 1) {
				const answers = await Promise.all(
					deliveries.map((d) => fetch(url, { method: 'POST', headers: d.headers, body: d.body })),
				);
				expect(answers.map((answer) => answer.status)).toEqual(Array(9).fill(200));
				expect(await answers[0].json()).toEqual({ received: true, id: deliveries[0].id, queued: true });
			}
			const ids = deliveries.map((d) => d.id).sort();
			await eventually(
				() => worker.lines.filter((line) => line.id).length >= 9,
				100_000,
				'nine events to be processed',
			);
			// The three copies of each event were taken by the queue's job id; the worker runs each event once.
			const ran = () =>
				worker.lines
					.filter((line) => line.id)
					.map((line) => line.id as string)
					.sort();
			expect(ran()).toEqual(ids);
			const client = new Redis(redis.url);
			const completed = await client.zcard(`${env.QUEUE_PREFIX}:deliveries:completed`);
			await client.quit();
			expect(completed).toBe(9);
			expect(ran()).toEqual(ids);
		} finally {
			await Promise.all([receiver.stop(), worker.stop()]);
		}
	}, 300_000);
});

describe('queue mode in one process', () => {
	const prefix = `mbb-test-${randomUUID().slice(0, 8)}`;
	let queue: DeliveryQueue;
	let worker: QueueWorker;
	let failing = true;
	const runs = new Map<string, number>();

	beforeAll(async () => {
		queue = deliveryQueue({
			url: redis.url,
			prefix,
			attempts: 2,
			backoffMs: 50,
			commandTimeoutMs: 500,
			onWarning: false,
		});
		worker = createQueueWorker({ url: redis.url, prefix, lockMs: 2000 });
		worker.onAny((event) => {
			runs.set(event.id, (runs.get(event.id) ?? 0) + 1);
			if (failing) throw new Error(`listener down for ${event.id}`);
		});
		worker.onError(() => undefined);
		await worker.start();
	});
	afterAll(async () => {
		await worker.close();
		await queue.close();
	});

	it('retries a failing listener, dead-letters the event, lists it and replays it with the CLI', async () => {
		const receiver = createReceiver({ secrets: secret, acknowledge: 'queue', queue });
		const delivery = await signedDelivery(secret, 'payment.success');
		const answer = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
		expect(answer.status).toBe(200);
		const where = { url: redis.url, prefix };
		const dead = await eventually(
			async () => {
				const letters = await listDeadLetters(where);
				return letters.length === 1 && letters;
			},
			10_000,
			'the event to be dead-lettered',
		);
		expect(dead[0]).toMatchObject({
			eventId: delivery.id,
			type: 'payment.success',
			jobId: jobIdOf(delivery.id),
			attempts: 2,
			failedReason: `listener down for ${delivery.id}`,
		});
		expect(runs.get(delivery.id)).toBe(2);

		// A redelivery while it is dead-lettered adds nothing (the job id is taken): the operator decides.
		expect((await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body })).status).toBe(
			200,
		);
		const out: string[] = [];
		expect(await runQueueCli(['list', '--redis', redis.url, '--prefix', prefix], (line) => out.push(line))).toBe(0);
		expect(out.map((line) => JSON.parse(line).eventId)).toEqual([delivery.id]);

		failing = false;
		out.length = 0;
		expect(
			await runQueueCli(['replay', delivery.id, 'evt_not_there', '--redis', redis.url, '--prefix', prefix], (line) =>
				out.push(line),
			),
		).toBe(1);
		expect(out).toEqual([`replayed 1: ${delivery.id}`, 'not dead-lettered: evt_not_there']);
		await eventually(() => runs.get(delivery.id) === 3, 10_000, 'the replayed event to run');
		await eventually(async () => (await listDeadLetters(where)).length === 0, 5000, 'the dead-letter set to be empty');
	});

	it('a paused Redis yields 503 queue_unavailable within the command timeout', async () => {
		const receiver = createReceiver({ secrets: secret, acknowledge: 'queue', queue });
		const delivery = await signedDelivery(secret);
		const running = await serve(receiver.middleware());
		redis.pause();
		try {
			const started = Date.now();
			const response = await fetch(running.url, { method: 'POST', headers: delivery.headers, body: delivery.body });
			expect(response.status).toBe(503);
			expect(await response.json()).toMatchObject({ code: 'queue_unavailable' });
			expect(Date.now() - started).toBeLessThan(3000); // within the command timeout; a stalled Redis never answers
		} finally {
			redis.resume();
			await running.close();
		}
	});

	it('deliveries of one turn go to Redis in one batch: each 200 comes with its job in Redis; a batch that times out is answered 503 throughout, and the redeliveries add nothing', async () => {
		failing = false;
		// A command timeout that a busy machine does not reach for 25 jobs; the paused Redis outlasts it.
		const patientQueue = deliveryQueue({ url: redis.url, prefix, commandTimeoutMs: 2000, onWarning: false });
		const receiver = createReceiver({ secrets: secret, acknowledge: 'queue', queue: patientQueue });
		const inspector = new Redis(redis.url);
		const jobExists = async (eventId: string) =>
			(await inspector.exists(`${prefix}:deliveries:${jobIdOf(eventId)}`)) === 1;
		try {
			const batch = await Promise.all(Array.from({ length: 25 }, () => signedDelivery(secret, 'subscriber.new')));
			// Received in one turn: one addBulk. Each answer is checked for its job as soon as it comes.
			const answered = batch.map((delivery) =>
				receiver
					.receive({ method: 'POST', headers: delivery.headers, body: delivery.body })
					.then(async (answer) => [answer.status, await jobExists(delivery.id)]),
			);
			expect(await Promise.all(answered)).toEqual(batch.map(() => [200, true]));

			const stalled = await Promise.all(Array.from({ length: 5 }, () => signedDelivery(secret, 'subscriber.new')));
			redis.pause();
			let statuses: number[];
			try {
				statuses = await Promise.all(
					stalled.map(
						async (delivery) =>
							(await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body })).status,
					),
				);
			} finally {
				redis.resume();
			}
			expect(statuses).toEqual([503, 503, 503, 503, 503]);
			// The sender retries: every event ends up enqueued once and run once (the stalled batch may have been added late).
			for (const delivery of stalled)
				expect(
					(await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body })).status,
				).toBe(200);
			for (const delivery of [...batch, ...stalled]) expect(await jobExists(delivery.id)).toBe(true);
			await eventually(
				() => [...batch, ...stalled].every((delivery) => runs.get(delivery.id) === 1),
				100_000,
				'every event to run once',
			);
		} finally {
			inspector.disconnect();
			await patientQueue.close();
		}
	}, 240_000);
});

describe('queue mode: maxRunMs', () => {
	it('a hung listener fails its job at maxRunMs (signal aborted, logged); the retries hang too, so the event is dead-lettered', async () => {
		const prefix = `mbb-test-${randomUUID().slice(0, 8)}`;
		const queue = deliveryQueue({
			url: redis.url,
			prefix,
			attempts: 2,
			backoffMs: 50,
			commandTimeoutMs: 500,
			onWarning: false,
		});
		const worker = createQueueWorker({ url: redis.url, prefix, lockMs: 2000, maxRunMs: 300 });
		const signals: AbortSignal[] = [];
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		worker.onAny(async (_event, context) => {
			signals.push(context.signal);
			await gate; // never settles before the test ends
		});
		// Once released, the abandoned listener finishes a job that is no longer this worker's: BullMQ says so.
		const faults: unknown[] = [];
		worker.onError((error, event) => void (event === undefined && faults.push(error)));
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		const error = jest.spyOn(console, 'error');
		const running = await serve(createReceiver({ secrets: secret, acknowledge: 'queue', queue }).middleware());
		try {
			await worker.start();
			const delivery = await signedDelivery(secret, 'payment.success');
			const response = await fetch(running.url, { method: 'POST', headers: delivery.headers, body: delivery.body });
			expect(response.status).toBe(200);
			const dead = await eventually(
				async () => {
					const letters = await listDeadLetters({ url: redis.url, prefix });
					return letters.length === 1 && letters;
				},
				10_000,
				'the hung event to be dead-lettered',
			);
			expect(dead[0]).toMatchObject({ eventId: delivery.id, attempts: 2 });
			expect(dead[0].failedReason).toMatch(/ran longer than maxRunMs \(300 ms\)/);
			expect(signals).toHaveLength(2);
			expect(signals.every((signal) => signal.aborted)).toBe(true);
			expect(
				warn.mock.calls.filter((call) =>
					String(call[0]).includes(`listeners of event ${delivery.id} ran longer than maxRunMs`),
				),
			).toHaveLength(2);
		} finally {
			release();
			warn.mockRestore();
			await running.close();
			await worker.close();
			await queue.close();
			error.mockRestore();
		}
		expect(error).not.toHaveBeenCalled();
		expect(
			faults
				.map((fault) => String((fault as Error).message))
				.filter((message) => !/^Missing lock for job /.test(message)),
		).toEqual([]);
	});
});

describe('queue worker: close() while Redis is down', () => {
	// Both orders: Redis gone before close() is called, and Redis going away during a close begun while it was up (the
	// close is then waiting for BullMQ to record the job as done, which would wait forever).
	it.each([
		['Redis stops, then close() is called', 'stop first'],
		['close() is called, then Redis stops during it', 'close first'],
	] as const)(
		'%s: close() waits for the listener running here, then ends without Redis; the event runs again once Redis is back',
		async (_title, order) => {
			// A Redis of its own that keeps its data across the stop (the job must still be there after the restart).
			const own = await startOwnRedis(['--save', '', '--appendonly', 'yes', '--appendfsync', 'always']);
			const prefix = `mbb-test-${randomUUID().slice(0, 8)}`;
			const queue = deliveryQueue({ url: own.url, prefix, commandTimeoutMs: 5000, onWarning: false });
			const steps: string[] = [];
			let release!: () => void;
			const gate = new Promise<void>((resolve) => (release = resolve));
			let listenerStarted!: () => void;
			const started = new Promise<void>((resolve) => (listenerStarted = resolve));
			const first = createQueueWorker({ url: own.url, prefix, lockMs: 1000 });
			first.onError(() => undefined);
			first.onAny(async (event) => {
				steps.push(`first worker started ${event.id}`);
				listenerStarted();
				await gate;
				steps.push(`first worker finished ${event.id}`);
			});
			const second = createQueueWorker({ url: own.url, prefix, lockMs: 1000 });
			const secondRuns: string[] = [];
			second.onAny((event) => void secondRuns.push(event.id));
			try {
				await first.start();
				const delivery = await signedDelivery(secret, 'payment.success');
				const answer = await createReceiver({ secrets: secret, acknowledge: 'queue', queue }).receive({
					method: 'POST',
					headers: delivery.headers,
					body: delivery.body,
				});
				expect(answer.status).toBe(200);
				await started;
				let closed: Promise<void>;
				if (order === 'stop first') {
					await own.stop();
					closed = first.close().then(() => void steps.push('first worker closed'));
				} else {
					closed = first.close().then(() => void steps.push('first worker closed'));
					await own.stop();
				}
				// The listener is released a moment later; a close() that did not wait for it would have resolved by then.
				await new Promise((resolve) => setTimeout(resolve, 200));
				release();
				await closed;
				expect(steps).toEqual([
					`first worker started ${delivery.id}`,
					`first worker finished ${delivery.id}`,
					'first worker closed',
				]);

				// Its completion never reached Redis: once Redis is back, the job's lapsed lock makes it run again elsewhere.
				await own.start();
				await second.start();
				await eventually(() => secondRuns.length > 0, 30_000, 'the event to run again on the second worker');
				expect(secondRuns).toEqual([delivery.id]);
			} finally {
				release();
				// A close that hangs has failed the test already; the Redis of its own is stopped all the same.
				await settledWithin(Promise.allSettled([second.close(), first.close(), queue.close()]), 15_000);
				await own.destroy();
			}
		},
		60_000,
	);
});
