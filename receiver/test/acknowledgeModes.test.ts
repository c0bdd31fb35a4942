import { createReceiver, LeaseLostError, memoryDedupeStore, type Receiver, type ReceiverOptions } from '../src';
import { eventually, newSecret, signedDelivery } from './helpers';
import { gated, post, rawPost, viaExpress, type RawAnswer, type Served } from './httpHarness';

/** The acknowledgement modes over real HTTP (Express 5): when the sender gets its answer, and what becomes of a run's lease. */
const secret = newSecret();

describe('acknowledgement modes over HTTP (Express 5)', () => {
	/** Runs `test` against a fresh receiver served by Express 5, and closes the server afterwards. */
	const withReceiver = async (
		options: Partial<ReceiverOptions>,
		test: (receiver: Receiver, served: Served) => Promise<void>,
	) => {
		const receiver = createReceiver({ secrets: secret, ...options });
		const served = await viaExpress(receiver);
		try {
			await test(receiver, served);
		} finally {
			await served.running.close();
		}
	};

	it('afterListeners (default): a failing listener answers 500 and the retry runs it again; success answers 200, then duplicates', async () => {
		await withReceiver({}, async (receiver, served) => {
			let runs = 0;
			receiver.on('payment.success', () => {
				runs += 1;
				if (runs === 1) throw new Error('the first run fails');
			});
			receiver.onError(() => undefined);
			const delivery = await signedDelivery(secret, 'payment.success');
			const first = await post(served.url, delivery);
			expect(first.status).toBe(500);
			expect(await first.json()).toMatchObject({ code: 'listener_failed' });
			const second = await post(served.url, delivery);
			expect(second.status).toBe(200);
			expect(await second.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
			const third = await post(served.url, delivery);
			expect(await third.json()).toEqual({ received: true, id: delivery.id, duplicate: true });
			expect(runs).toBe(2);
		});
	});

	it('afterListeners: listeners past the deadline answer 503; a copy meanwhile is 503 in progress; once they succeed, a duplicate', async () => {
		await withReceiver({ listenerDeadlineMs: 300 }, async (receiver, served) => {
			const { gate, release } = gated();
			let runs = 0;
			receiver.onAny(async () => {
				runs += 1;
				await gate;
			});
			const delivery = await signedDelivery(secret);
			const started = Date.now();
			const first = await post(served.url, delivery);
			expect(first.status).toBe(503);
			expect(await first.json()).toMatchObject({ code: 'listener_timeout' });
			expect(Date.now() - started).toBeGreaterThanOrEqual(290);
			const copy = await post(served.url, delivery);
			expect(copy.status).toBe(503);
			expect(await copy.json()).toMatchObject({ code: 'event_in_progress' });
			release();
			await receiver.idle();
			const retry = await post(served.url, delivery);
			expect(await retry.json()).toEqual({ received: true, id: delivery.id, duplicate: true });
			expect(runs).toBe(1);
		});
	});

	it('onReceipt: 200 before the listeners finish; a failed run releases the event, so a replay runs it again', async () => {
		await withReceiver({ acknowledge: 'onReceipt' }, async (receiver, served) => {
			const { gate, release } = gated();
			let runs = 0;
			receiver.onAny(async () => {
				runs += 1;
				await gate;
				if (runs === 1) throw new Error('fails after the answer');
			});
			receiver.onError(() => undefined);
			const delivery = await signedDelivery(secret);
			const first = await post(served.url, delivery);
			expect(await first.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
			// While the first run holds the lease, a copy is 503 in progress (the sender retries), never a duplicate: the run
			// may still fail, and only a done event is a duplicate.
			const copy = await post(served.url, delivery);
			expect(copy.status).toBe(503);
			expect(await copy.json()).toMatchObject({ code: 'event_in_progress' });
			release();
			await receiver.idle();
			expect(await (await post(served.url, delivery)).json()).toMatchObject({ duplicate: false });
			await receiver.idle();
			expect(await (await post(served.url, delivery)).json()).toMatchObject({ duplicate: true });
			expect(runs).toBe(2);
		});
	});

	it("afterListeners: the deadline counts from the request's arrival, not from the end of a slow body", async () => {
		await withReceiver({ listenerDeadlineMs: 1000 }, async (receiver, served) => {
			const { gate, release } = gated();
			receiver.onAny(() => gate);
			const delivery = await signedDelivery(secret);
			const bytes = Buffer.from(delivery.body);
			// The body's last part comes about 1500 ms after the head, past the 1000 ms deadline counted from the arrival:
			// the answer comes as the body ends. Counted from the body's end it would come 1000 ms later (about 2500 ms).
			const parts = [bytes.subarray(0, 10), bytes.subarray(10, 20), bytes.subarray(20)];
			const answer = await rawPost(served.url, delivery.headers, parts, { everyMs: 500 });
			release();
			expect(answer).not.toBe('aborted');
			const { status, body, ms } = answer as RawAnswer;
			expect(status).toBe(503);
			expect(JSON.parse(body)).toMatchObject({ code: 'listener_timeout' });
			expect(ms).toBeLessThan(2000);
			await receiver.idle();
		});
	});

	it('afterListeners: listeners that succeeded are answered 200 even when the store fails to record the event (logged)', async () => {
		const memory = memoryDedupeStore();
		const failing = {
			begin: memory.begin,
			renew: memory.renew,
			release: memory.release,
			complete: () => Promise.reject(new Error('store down')),
		};
		const errorSpy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
		try {
			await withReceiver({ dedupe: failing }, async (receiver, served) => {
				let runs = 0;
				receiver.onAny(() => void (runs += 1));
				const delivery = await signedDelivery(secret);
				const answer = await post(served.url, delivery);
				expect(answer.status).toBe(200);
				expect(runs).toBe(1);
				expect(
					errorSpy.mock.calls.some((call) => String(call[0]).includes(`could not record as done event ${delivery.id}`)),
				).toBe(true);
			});
		} finally {
			errorSpy.mockRestore();
		}
	});

	it('maxRunMs: a hung listener loses its lease (signal aborted, logged), and the next delivery runs the event again', async () => {
		const warnSpy = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		const errorSpy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
		try {
			await withReceiver({ listenerDeadlineMs: 200, leaseMs: 150, maxRunMs: 400 }, async (receiver, served) => {
				const signals: AbortSignal[] = [];
				const { gate, release } = gated();
				receiver.onAny(async (_event, context) => {
					signals.push(context.signal);
					if (signals.length === 1) await gate; // hangs until the test ends
				});
				const delivery = await signedDelivery(secret);
				const first = await post(served.url, delivery);
				expect(first.status).toBe(503);
				expect(await first.json()).toMatchObject({ code: 'listener_timeout' });
				// Still renewed: a copy now is in progress.
				expect((await post(served.url, delivery)).status).toBe(503);
				await new Promise((resolve) =>
					signals[0].aborted ? resolve(undefined) : signals[0].addEventListener('abort', resolve),
				);
				expect(signals[0].reason).toBeInstanceOf(LeaseLostError);
				expect(warnSpy.mock.calls.some((call) => String(call[0]).includes('ran longer than maxRunMs (400 ms)'))).toBe(
					true,
				);
				const again = await post(served.url, delivery);
				expect(await again.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
				expect(signals).toHaveLength(2);
				expect(signals[1].aborted).toBe(false);
				release();
				await receiver.idle();
				// The hung run finished after the event was run again: its completion is refused and reported (no onError here).
				expect(errorSpy).toHaveBeenCalledTimes(1);
				expect(errorSpy.mock.calls[0][1]).toBeInstanceOf(LeaseLostError);
			});
		} finally {
			warnSpy.mockRestore();
			errorSpy.mockRestore();
		}
	});

	it('a lease that lapsed after failed renewals is given back: a renewal that reached the store late does not hold the event', async () => {
		const memory = memoryDedupeStore();
		const releases: string[] = [];
		// Every renewal "times out" here, yet reaches the store and extends the lease far past leaseMs, as a renewal that
		// a stalled Redis runs late does.
		const lateRenewals = {
			begin: memory.begin,
			complete: memory.complete,
			renew: (eventId: string, token: string) => {
				memory.renew(eventId, token, 60_000);
				return Promise.reject(new Error('Redis did not answer renew within 200 ms'));
			},
			release: (eventId: string, token: string) => {
				releases.push(eventId);
				return memory.release(eventId, token);
			},
		};
		const warnSpy = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
		const errorSpy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
		const { gate, release } = gated();
		try {
			await withReceiver(
				{ dedupe: lateRenewals, leaseMs: 300, listenerDeadlineMs: 60_000 },
				async (receiver, served) => {
					const signals: AbortSignal[] = [];
					receiver.onAny(async (_event, context) => {
						signals.push(context.signal);
						if (signals.length === 1) await gate;
					});
					const delivery = await signedDelivery(secret);
					const first = post(served.url, delivery);
					await eventually(() => signals.length === 1, 10_000, 'the first run to start');
					await new Promise((resolve) =>
						signals[0].aborted ? resolve(undefined) : signals[0].addEventListener('abort', resolve),
					);
					expect(signals[0].reason).toBeInstanceOf(LeaseLostError);
					expect(releases).toEqual([delivery.id]);
					const again = await post(served.url, delivery);
					expect(await again.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
					expect(signals).toHaveLength(2);
					release();
					expect((await first).status).toBe(200);
					await receiver.idle();
					expect(
						warnSpy.mock.calls.some((call) =>
							String(call[0]).includes(`the lease on event ${delivery.id} lapsed (no renewal succeeded)`),
						),
					).toBe(true);
					// The release went through (nothing logged about it); the only error is the first run's refused completion.
					expect(errorSpy).toHaveBeenCalledTimes(1);
					expect(errorSpy.mock.calls[0][1]).toBeInstanceOf(LeaseLostError);
					expect(String((errorSpy.mock.calls[0][1] as Error).message)).toMatch(/may have run twice/);
				},
			);
		} finally {
			release();
			warnSpy.mockRestore();
			errorSpy.mockRestore();
		}
	});

	it('refuses listeners on a queue-mode receiver and unknown modes', () => {
		expect(() => createReceiver({ secrets: secret, acknowledge: 'later' as never })).toThrow(/acknowledge must be/);
		expect(() => createReceiver({ secrets: secret, acknowledge: 'queue' })).toThrow(/needs queue/);
		const queue = {
			enqueue: async () => undefined,
			close: async () => undefined,
			persistenceChecked: Promise.resolve(undefined),
		};
		expect(() => createReceiver({ secrets: secret, acknowledge: 'queue', queue }).onAny(() => undefined)).toThrow(
			/register them on createQueueWorker/,
		);
	});
});
