import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import express from 'express';
import {
	createReceiver,
	decodeHookSecret,
	redisDedupeStore,
	sampleEvent,
	verifyDelivery,
	LeaseLostError,
	memoryDedupeStore,
	type DeliveryContext,
	type DeliveryEvent,
	type Receiver,
	type ReceiverOptions,
	type RedisDedupeStore,
} from '../src';
import { createWebHandler } from '../src/web';
import {
	HOOK_ID,
	eventually,
	jwtOnly,
	newSecret,
	serve,
	signedDelivery,
	startOwnRedis,
	type OwnRedis,
	type RunningServer,
} from './helpers';

/**
 * The edges, over real HTTP, through Express 5 (`middleware()`) and through `handle()` behind a `node:http` adapter
 * like the ones Hono and Next.js use; and Redis as an operator meets it (a server of the test's own that is
 * stopped, paused with SIGSTOP and restarted).
 */
const secret = newSecret();

interface Served {
	running: RunningServer;
	url: string;
	/** Errors that reached Express's error handling, or rejections of handle(). */
	faults: unknown[];
	/** Requests the receiver is done with (answered, or let go). */
	settled: () => number;
}

type Framework = (receiver: Receiver) => Promise<Served>;

const viaExpress: Framework = async (receiver) => {
	const faults: unknown[] = [];
	let settled = 0;
	const app = express();
	app.post(
		'/hooks',
		(req, res, next) => {
			// Counted once the receiver had its turn on both events (its listeners were attached after this one).
			const done = () => setImmediate(() => (settled += 1));
			let counted = false;
			const once = () => counted || ((counted = true), done());
			res.once('finish', once);
			req.once('close', once);
			next();
		},
		receiver.middleware(),
	);
	app.use((error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
		faults.push(error);
		res.status(500).end();
	});
	const running = await serve(app);
	return { running, url: `${running.url}/hooks`, faults, settled: () => settled };
};

const viaHandle: Framework = async (receiver) => {
	const faults: unknown[] = [];
	let settled = 0;
	const running = await serve(async (req: IncomingMessage, res: ServerResponse) => {
		const headers = new Headers();
		for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
		const request = new Request(`http://127.0.0.1${req.url}`, {
			method: req.method,
			headers,
			body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
			duplex: 'half',
		} as RequestInit);
		try {
			const response = await receiver.handle(request);
			settled += 1;
			if (res.destroyed) return;
			const body = Buffer.from(await response.arrayBuffer());
			res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': body.length });
			res.end(body);
		} catch (error) {
			faults.push(error);
			res.destroy();
		}
	});
	return { running, url: `${running.url}/hooks`, faults, settled: () => settled };
};

const FRAMEWORKS: [string, Framework][] = [
	['Express 5', viaExpress],
	['handle()', viaHandle],
];

interface RawAnswer {
	status: number;
	body: string;
	ms: number;
}

/** Sends a request head, then the body in `parts` (`everyMs` apart); resolves with the answer, or when aborted. */
function rawPost(
	url: string,
	headers: Record<string, string>,
	parts: Buffer[],
	options: { everyMs?: number; abortAfterMs?: number; contentLength?: number } = {},
) {
	const { port } = new URL(url);
	const length = options.contentLength ?? parts.reduce((sum, part) => sum + part.length, 0);
	return new Promise<RawAnswer | 'aborted'>((resolve) => {
		const started = Date.now();
		const socket = connect(Number(port), '127.0.0.1');
		let received = '';
		const head = [
			`POST /hooks HTTP/1.1`,
			`host: 127.0.0.1:${port}`,
			`content-length: ${length}`,
			...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
		];
		socket.write(`${head.join('\r\n')}\r\n\r\n`);
		let index = 0;
		const timer = setInterval(() => {
			if (index < parts.length && !socket.destroyed) socket.write(parts[index++]);
		}, options.everyMs ?? 0);
		if (options.abortAfterMs !== undefined) {
			setTimeout(() => {
				clearInterval(timer);
				socket.destroy();
				resolve('aborted');
			}, options.abortAfterMs);
		}
		socket.on('data', (chunk) => {
			received += chunk.toString();
			const [headPart, ...rest] = received.split('\r\n\r\n');
			const lengthMatch = /content-length: (\d+)/i.exec(headPart);
			if (lengthMatch && rest.join('\r\n\r\n').length >= Number(lengthMatch[1])) {
				clearInterval(timer);
				socket.destroy();
				resolve({ status: Number(headPart.split(' ')[1]), body: rest.join('\r\n\r\n'), ms: Date.now() - started });
			}
		});
		socket.on('error', () => undefined);
		// Closed without a complete answer: the status line, if any, says what came.
		socket.on('close', () => {
			clearInterval(timer);
			resolve({
				status: Number(received.split(' ')[1] ?? 0),
				body: received.split('\r\n\r\n').slice(1).join('\r\n\r\n'),
				ms: Date.now() - started,
			});
		});
	});
}

/** A Standard Webhooks delivery over arbitrary body bytes (signDelivery only signs strings). */
function signBytes(body: Buffer, eventId: string) {
	const timestamp = Math.floor(Date.now() / 1000);
	const mac = createHmac('sha256', decodeHookSecret(secret))
		.update(Buffer.concat([Buffer.from(`${eventId}.${timestamp}.`), body]))
		.digest('base64');
	return {
		'content-type': 'application/json',
		'webhook-id': eventId,
		'webhook-timestamp': String(timestamp),
		'webhook-signature': `v1,${mac}`,
	};
}

/** A promise that listeners wait on until the test releases it. */
function gated(): { gate: Promise<void>; release: () => void } {
	let release!: () => void;
	const gate = new Promise<void>((resolve) => (release = resolve));
	return { gate, release };
}

function post(url: string, delivery: { headers: Record<string, string>; body: string }) {
	return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
}

describe.each(FRAMEWORKS)('edges over HTTP through %s', (_name, frame) => {
	let receiver: Receiver;
	let served: Served;
	const emitted: DeliveryEvent[] = [];
	let errorSpy: jest.SpyInstance;

	beforeAll(async () => {
		receiver = createReceiver({ secrets: secret, bodyTimeoutMs: 400 });
		receiver.onAny((event) => void emitted.push(event));
		served = await frame(receiver);
	});
	beforeEach(() => {
		errorSpy = jest.spyOn(console, 'error');
	});
	afterEach(() => errorSpy.mockRestore());
	afterAll(() => served.running.close());

	it('a client that goes away mid-body is let go quietly: no fault, no log; the next delivery is answered', async () => {
		const delivery = await signedDelivery(secret);
		const before = served.settled();
		const outcome = await rawPost(served.url, delivery.headers, [Buffer.from(delivery.body.slice(0, 20))], {
			contentLength: delivery.body.length,
			abortAfterMs: 100,
		});
		expect(outcome).toBe('aborted');
		await eventually(() => served.settled() === before + 1, 3000, 'the aborted request to be settled');
		expect(served.faults).toEqual([]);
		expect(errorSpy).not.toHaveBeenCalled();
		const response = await post(served.url, delivery);
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
	});

	it('a body trickling in slower than bodyTimeoutMs gets 408 body_timeout, and the connection is closed', async () => {
		const delivery = await signedDelivery(secret);
		const bytes = Buffer.from(delivery.body);
		const parts = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
		const answer = (await rawPost(served.url, delivery.headers, parts, { everyMs: 100 })) as RawAnswer;
		expect(answer.status).toBe(408);
		expect(JSON.parse(answer.body)).toMatchObject({ code: 'body_timeout' });
		expect(answer.ms).toBeGreaterThanOrEqual(380);
		expect(answer.ms).toBeLessThan(3000);
		expect(emitted.some((event) => event.id === delivery.id)).toBe(false);
	});

	it('20 trickling connections at once all get their 408 within the timeout', async () => {
		const deliveries = await Promise.all(Array.from({ length: 20 }, () => signedDelivery(secret)));
		const answers = (await Promise.all(
			deliveries.map((delivery) => {
				const bytes = Buffer.from(delivery.body);
				return rawPost(
					served.url,
					delivery.headers,
					Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1)),
					{ everyMs: 150 },
				);
			}),
		)) as RawAnswer[];
		expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(408));
		expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(3000);
	});

	it('a signed body with invalid UTF-8 inside a string is refused 400 malformed_json, not decoded lossily', async () => {
		const event = sampleEvent('subscriber.new', { hook: HOOK_ID });
		const json = JSON.stringify({
			...event,
			data: { ...event.data, subscriber: { ...event.data.subscriber, name: 'XX' } },
		});
		const body = Buffer.from(json);
		const at = body.indexOf('"XX"') + 1;
		body[at] = 0xc3; // a lead byte followed by "X": not UTF-8
		body[at + 1] = 0x28;
		const answer = (await rawPost(served.url, signBytes(body, event.id), [body])) as RawAnswer;
		expect(answer.status).toBe(400);
		expect(JSON.parse(answer.body)).toMatchObject({ code: 'malformed_json', error: 'The body is not valid UTF-8' });
		expect(emitted.some((item) => item.id === event.id)).toBe(false);
	});

	it('an X-Signature longer than the cap is refused 401 malformed_signature before any parsing', async () => {
		const delivery = await signedDelivery(secret);
		const headers = {
			...jwtOnly(delivery.headers),
			'x-signature': `${jwtOnly(delivery.headers)['x-signature']}.${'a'.repeat(9000)}`,
		};
		const response = await fetch(served.url, { method: 'POST', headers, body: delivery.body });
		expect(response.status).toBe(401);
		expect(await response.json()).toMatchObject({
			code: 'malformed_signature',
			error: 'X-Signature is longer than 8192 characters',
		});
	});
});

describe('the X-Signature cap without HTTP', () => {
	it('applies to receive() and verifyDelivery() as it does over HTTP', async () => {
		const delivery = await signedDelivery(secret);
		const headers = { ...jwtOnly(delivery.headers), 'x-signature': 'e'.repeat(100_000) };
		const answer = await createReceiver({ secrets: secret }).receive({ method: 'POST', headers, body: delivery.body });
		expect(answer.status).toBe(401);
		expect(answer.error?.code).toBe('malformed_signature');
		await expect(verifyDelivery(delivery.body, headers, { secrets: secret })).rejects.toMatchObject({
			code: 'malformed_signature',
		});
		// A real token just under the cap is still read (and refused for what it is).
		const long = { ...headers, 'x-signature': 'e'.repeat(8192) };
		await expect(verifyDelivery(delivery.body, long, { secrets: secret })).rejects.toMatchObject({
			code: 'malformed_signature',
		});
	});
});

describe('the /web entry (createWebHandler) keeps the same edges', () => {
	it('a body that does not arrive within bodyTimeoutMs is 408 body_timeout, and onEvent never runs', async () => {
		const delivery = await signedDelivery(secret);
		const events: DeliveryEvent[] = [];
		const handle = createWebHandler({
			secrets: secret,
			bodyTimeoutMs: 300,
			onEvent: (event) => void events.push(event),
		});
		const half = Math.floor(delivery.body.length / 2);
		let pulls = 0;
		// The first half of the body, then nothing more: the stream stays open, as a client that stalls keeps it.
		const body = new ReadableStream<Uint8Array>({
			pull(controller) {
				pulls += 1;
				if (pulls === 1) controller.enqueue(new TextEncoder().encode(delivery.body.slice(0, half)));
				return new Promise(() => undefined);
			},
		});
		const started = Date.now();
		const request = new Request('http://127.0.0.1/hooks', {
			method: 'POST',
			headers: delivery.headers,
			body,
			duplex: 'half',
		} as RequestInit);
		const response = await handle(request);
		const elapsed = Date.now() - started;
		expect(response.status).toBe(408);
		expect(await response.json()).toEqual({ code: 'body_timeout', error: 'The body did not arrive within 300 ms' });
		expect(elapsed).toBeGreaterThanOrEqual(280);
		expect(events).toEqual([]);
		expect(() => createWebHandler({ secrets: secret, bodyTimeoutMs: 0, onEvent: () => undefined })).toThrow(
			'bodyTimeoutMs must be a positive number',
		);
	});

	it('a signed body with invalid UTF-8 is 400 malformed_json there too', async () => {
		const event = sampleEvent('subscriber.new', { hook: HOOK_ID });
		const json = JSON.stringify({
			...event,
			data: { ...event.data, subscriber: { ...event.data.subscriber, name: 'XX' } },
		});
		const bytes = Buffer.from(json);
		const at = bytes.indexOf('"XX"') + 1;
		bytes[at] = 0xc3;
		bytes[at + 1] = 0x28;
		const events: DeliveryEvent[] = [];
		const handle = createWebHandler({ secrets: secret, onEvent: (received) => void events.push(received) });
		const response = await handle(
			new Request('http://127.0.0.1/hooks', { method: 'POST', headers: signBytes(bytes, event.id), body: bytes }),
		);
		expect(response.status).toBe(400);
		expect(await response.json()).toEqual({ code: 'malformed_json', error: 'The body is not valid UTF-8' });
		expect(events).toEqual([]);
	});
});

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
