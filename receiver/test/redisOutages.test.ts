import { randomUUID } from 'node:crypto';
import {
	createReceiver,
	redisDedupeStore,
	LeaseLostError,
	type DeliveryContext,
	type Receiver,
	type RedisDedupeStore,
} from '../src';
import { eventually, newSecret, signedDelivery, startOwnRedis, type OwnRedis } from './helpers';
import { gated, post, viaExpress, viaHandle, type Served } from './httpHarness';

/**
 * Redis as an operator meets it, behind a receiver served over real HTTP: a redis-server of the test's own that is
 * stopped, paused with SIGSTOP and restarted, and what its persistence settings keep across a restart.
 */
const secret = newSecret();

describe('Redis as an operator runs it (a redis-server of the test own, stopped, paused and restarted)', () => {
	let redis: OwnRedis;
	let store: RedisDedupeStore;
	const warnings: string[] = [];
	const prefix = `mbb:test:${randomUUID()}:`;
	const runs = new Map<string, number>();
	const servers: Served[] = [];
	let receiver: Receiver;
	let warnSpy: jest.SpyInstance;
	/** Whether the store said it released a lease that a timed-out begin took late. */
	const released = (eventId: string) =>
		warnSpy.mock.calls.some((call) =>
			String(call[0]).includes(
				`begin on event ${eventId} that timed out took the lease when Redis answered; released it`,
			),
		);

	beforeEach(() => {
		// The store's warnings are expected here (late leases released): captured, and asserted by the tests.
		warnSpy = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
	});
	afterEach(() => warnSpy.mockRestore());

	beforeAll(async () => {
		redis = await startOwnRedis();
		store = redisDedupeStore({
			url: redis.url,
			prefix,
			commandTimeoutMs: 500,
			onWarning: (message) => warnings.push(message),
		});
		receiver = createReceiver({ secrets: secret, dedupe: store, leaseMs: 30_000 });
		receiver.onAny((event) => void runs.set(event.id, (runs.get(event.id) ?? 0) + 1));
		servers.push(await viaExpress(receiver), await viaHandle(receiver));
	}, 20_000);
	afterAll(async () => {
		await Promise.all(servers.map((served) => served.running.close()));
		await store.close().catch(() => undefined);
		await redis.destroy();
	});

	it('warns once at start that this Redis keeps nothing across restarts', async () => {
		const warning = await store.persistenceChecked;
		expect(warning).toMatch(/keeps nothing across restarts \(no AOF, no RDB snapshots\)/);
		expect(warnings).toEqual([warning]);
	});

	it('a paused Redis (SIGSTOP) yields 503 within the command timeout; once resumed, deliveries are processed once', async () => {
		const delivery = await signedDelivery(secret);
		redis.pause();
		try {
			for (const served of servers) {
				const started = Date.now();
				const response = await post(served.url, delivery);
				expect(response.status).toBe(503);
				expect(await response.json()).toMatchObject({ code: 'dedupe_unavailable' });
				expect(Date.now() - started).toBeLessThan(3000); // the command timeout is 500 ms; a stalled Redis never answers
			}
		} finally {
			redis.resume();
		}
		// The paused Redis runs the timed-out begin once resumed: it takes the lease, and the store gives it back at once
		// (the lease is 30 s: only that release frees the event). The very next delivery is then processed.
		await eventually(() => released(delivery.id), 3000, 'the late lease to be released');
		const answer = await post(servers[0].url, delivery);
		expect(await answer.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
		expect(runs.get(delivery.id)).toBe(1);
		expect(await (await post(servers[1].url, delivery)).json()).toMatchObject({ duplicate: true });
	});

	it('onReceipt: a begin that timed out on a paused Redis gives back the lease it took late; the retry runs the listener exactly once', async () => {
		const onReceiptStore = redisDedupeStore({ url: redis.url, prefix, commandTimeoutMs: 300, onWarning: false });
		const quick = createReceiver({ secrets: secret, dedupe: onReceiptStore, acknowledge: 'onReceipt' }); // 30 s leases
		const ran = new Map<string, number>();
		quick.onAny((event) => void ran.set(event.id, (ran.get(event.id) ?? 0) + 1));
		const served = await viaExpress(quick);
		try {
			expect((await post(served.url, await signedDelivery(secret))).status).toBe(200); // connected
			// Its completion recorded before Redis pauses: a completion that met the pause timed out and printed
			// "could not record as done" into the run (the lease then lapses by itself, as the receiver says).
			await quick.idle();
			const delivery = await signedDelivery(secret);
			redis.pause();
			let first: Response;
			try {
				first = await post(served.url, delivery);
			} finally {
				redis.resume();
			}
			expect(first.status).toBe(503);
			expect(await first.json()).toMatchObject({ code: 'dedupe_unavailable' });
			await eventually(() => released(delivery.id), 3000, 'the late lease to be released');
			const retry = await post(served.url, delivery);
			expect(await retry.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
			await quick.idle();
			expect(ran.get(delivery.id)).toBe(1);
			expect(await (await post(served.url, delivery)).json()).toMatchObject({ duplicate: true });
		} finally {
			await served.running.close();
			await onReceiptStore.close();
		}
	});

	it('a lease that lapses while its listener runs (Redis paused past leaseMs): its signal aborts, the other run completes, the late completion is refused and reported', async () => {
		const { gate, release } = gated();
		const stores = [0, 1].map(() =>
			redisDedupeStore({ url: redis.url, prefix, commandTimeoutMs: 200, onWarning: false }),
		);
		const contexts: DeliveryContext[] = [];
		const errors: unknown[] = [];
		const receivers = stores.map((dedupe, index) => {
			const r = createReceiver({ secrets: secret, dedupe, leaseMs: 600, listenerDeadlineMs: 5000 });
			r.onAny(async (_event, context) => {
				contexts.push(context);
				if (index === 0) await gate;
			});
			r.onError((error) => void errors.push(error));
			return r;
		});
		const served = await Promise.all(receivers.map((r) => viaExpress(r)));
		const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		const error = jest.spyOn(console, 'error').mockImplementation(() => undefined);
		try {
			const delivery = await signedDelivery(secret);
			const first = post(served[0].url, delivery);
			await eventually(() => contexts.length === 1, 10_000, 'the first run to start');
			const lapsed = new Promise((resolve) => contexts[0].signal.addEventListener('abort', resolve));
			redis.pause();
			try {
				await lapsed; // no renewal can succeed: the first run learns that its lease lapsed
			} finally {
				redis.resume();
			}
			expect(contexts[0].signal.reason).toBeInstanceOf(LeaseLostError);
			// Renewals that timed out during the pause are still queued and reach Redis now; one of them can extend the
			// lease for a moment (the first run gives it back at once). A sender meets that as 503 event_in_progress and
			// retries; the retry that gets the event runs it.
			const second = await eventually(
				async () => {
					const answer = await post(served[1].url, delivery);
					const body = (await answer.json()) as { code?: string };
					if (answer.status === 503 && body.code === 'event_in_progress') return false;
					return { status: answer.status, body };
				},
				10_000,
				'the second delivery to be let in',
			);
			expect(second).toEqual({ status: 200, body: { received: true, id: delivery.id, duplicate: false } });
			expect(contexts).toHaveLength(2);
			expect(contexts[1].signal.aborted).toBe(false);
			release();
			// The first run's listeners succeeded (their effect is applied): 200, but its completion is refused and reported.
			expect((await first).status).toBe(200);
			await eventually(() => errors.length === 1, 3000, 'the refused completion to be reported');
			expect(errors[0]).toBeInstanceOf(LeaseLostError);
			expect(String((errors[0] as Error).message)).toMatch(/may have run twice/);
			expect(await (await post(served[0].url, delivery)).json()).toMatchObject({ duplicate: true });
		} finally {
			warn.mockRestore();
			error.mockRestore();
			release();
			await Promise.all(served.map((s) => s.running.close()));
			await Promise.all(stores.map((s) => s.close()));
		}
	});

	it('a stopped Redis yields 503 quickly; after a restart the receiver reconnects by itself', async () => {
		await redis.stop();
		const delivery = await signedDelivery(secret);
		for (const served of servers) {
			const started = Date.now();
			const response = await post(served.url, delivery);
			expect(response.status).toBe(503);
			expect(Date.now() - started).toBeLessThan(3000); // the command timeout is 500 ms; a stopped Redis is refused at once
		}
		await redis.start();
		await eventually(
			async () => (await post(servers[1].url, delivery)).status === 200,
			10_000,
			'a 200 after the restart',
		);
		expect(runs.get(delivery.id)).toBe(1);
	});

	it('an event whose lease lapsed without completion (its process died) is processed again, not answered duplicate', async () => {
		const delivery = await signedDelivery(secret);
		// Another process took the event and died: its lease lives 600 ms and is never renewed.
		const other = redisDedupeStore({ url: redis.url, prefix, onWarning: false });
		try {
			expect((await other.begin(delivery.id, 600)).state).toBe('acquired');
		} finally {
			await other.close();
		}
		const during = await post(servers[0].url, delivery);
		expect(during.status).toBe(503);
		expect(await during.json()).toMatchObject({ code: 'event_in_progress' });
		// The sender retries until the dead process's lease lapses; no retry is answered duplicate meanwhile.
		const after = await eventually(
			async () => {
				const answer = await post(servers[1].url, delivery);
				const body = (await answer.json()) as { code?: string };
				return answer.status === 503 && body.code === 'event_in_progress' ? false : body;
			},
			10_000,
			'the lapsed lease to free the event',
		);
		expect(after).toEqual({ received: true, id: delivery.id, duplicate: false });
		expect(runs.get(delivery.id)).toBe(1);
	});

	it('renews the lease while a listener runs longer than leaseMs, so no copy runs it twice', async () => {
		const { gate, release } = gated();
		let renewals = 0;
		const counting = {
			...store,
			renew: async (eventId: string, token: string, leaseMs: number) =>
				(await store.renew(eventId, token, leaseMs)) && (renewals += 1) > 0,
		};
		const slow = createReceiver({ secrets: secret, dedupe: counting, leaseMs: 300, listenerDeadlineMs: 60_000 });
		let slowRuns = 0;
		slow.onAny(async () => {
			slowRuns += 1;
			await gate;
		});
		const served = await viaExpress(slow);
		try {
			const delivery = await signedDelivery(secret);
			const first = post(served.url, delivery);
			await eventually(() => slowRuns === 1, 10_000, 'the listener to start');
			const started = Date.now();
			// Three lease lengths have passed and the lease was renewed in each: without renewals it would have lapsed.
			await eventually(() => renewals >= 9 && Date.now() - started >= 900, 30_000, 'three lease lengths of renewals');
			const copy = await post(servers[0].url, delivery);
			expect(copy.status).toBe(503);
			release();
			expect((await first).status).toBe(200);
			expect(slowRuns).toBe(1);
		} finally {
			await served.running.close();
		}
	});
});

describe('Redis restarts: what persistence keeps', () => {
	it('warns about AOF with appendfsync no (the OS flushes when it likes), not about appendfsync everysec', async () => {
		for (const [fsync, warned] of [
			['no', true],
			['everysec', false],
		] as const) {
			const redis = await startOwnRedis(['--save', '', '--appendonly', 'yes', '--appendfsync', fsync]);
			const checking = redisDedupeStore({ url: redis.url, onWarning: () => undefined });
			try {
				const warning = await checking.persistenceChecked;
				if (warned) expect(warning).toMatch(/"appendfsync no"/);
				else expect(warning).toBeUndefined();
			} finally {
				await checking.close();
				await redis.destroy();
			}
		}
	});

	it.each([
		['without persistence: done events are forgotten and processed again', ['--save', '', '--appendonly', 'no'], false],
		[
			'with appendonly yes and appendfsync always: nothing is forgotten',
			['--save', '', '--appendonly', 'yes', '--appendfsync', 'always'],
			true,
		],
	])(
		'%s',
		async (_label, args, remembered) => {
			const redis = await startOwnRedis(args as string[]);
			const store = redisDedupeStore({ url: redis.url, commandTimeoutMs: 500, onWarning: false });
			try {
				const checking = redisDedupeStore({ url: redis.url, onWarning: () => undefined });
				expect((await checking.persistenceChecked) === undefined).toBe(remembered);
				await checking.close();
				const receiver = createReceiver({ secrets: secret, dedupe: store });
				let runs = 0;
				receiver.onAny(() => void (runs += 1));
				const delivery = await signedDelivery(secret);
				expect(
					(await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body })).duplicate,
				).toBe(false);
				await redis.stop(); // SIGKILL: a crash, not a clean shutdown
				await redis.start();
				const again = await eventually(
					async () => {
						const answer = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
						return answer.status === 200 && answer;
					},
					10_000,
					'Redis to be back',
				);
				expect(again.duplicate).toBe(remembered);
				expect(runs).toBe(remembered ? 1 : 2);
			} finally {
				await store.close().catch(() => undefined);
				await redis.destroy();
			}
		},
		30_000,
	);
});
