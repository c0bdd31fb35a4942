import { request as httpRequest } from 'node:http';
import express from 'express';
import { captureRawBody, createReceiver, sampleEvent, signDelivery, type DeliveryEvent, type Receiver } from '../src';
import { HOOK_ID, newSecret, serve, signedDelivery } from './helpers';
import { captureRefusalWarnings, type CapturedWarnings } from './consoleCapture';

// Some deliveries here are refused on purpose: their warnings are captured, not printed; any other warning fails the test.
let warnings: CapturedWarnings;
beforeEach(() => {
	warnings = captureRefusalWarnings();
});
afterEach(() => warnings.restore());

const secret = newSecret();

// Express 4 is installed under the alias "express4"; its API is the same for what is used here.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const express4 = require('express4') as typeof express;
const EXPRESS_VERSIONS: [string, typeof express][] = [
	['Express 5', express],
	['Express 4', express4],
];

type Mount = (app: express.Express, receiver: Receiver, framework: typeof express) => void;
const mounts: [string, Mount][] = [
	['mounted before any body parser', (app, receiver) => app.post('/hooks', receiver.middleware())],
	['after express.json()', (app, receiver, fw) => app.use(fw.json()).post('/hooks', receiver.middleware())],
	[
		'after express.json({ verify: captureRawBody })',
		(app, receiver, fw) => app.use(fw.json({ verify: captureRawBody })).post('/hooks', receiver.middleware()),
	],
	[
		'after express.raw()',
		(app, receiver, fw) => app.use(fw.raw({ type: 'application/json' })).post('/hooks', receiver.middleware()),
	],
	[
		'after express.text()',
		(app, receiver, fw) => app.use(fw.text({ type: 'application/json' })).post('/hooks', receiver.middleware()),
	],
];

async function startApp(
	mount: Mount,
	options: Parameters<typeof createReceiver>[0] = { secrets: secret },
	framework = express,
) {
	const receiver = createReceiver(options);
	const events: DeliveryEvent[] = [];
	receiver.onAny((event) => void events.push(event));
	const app = framework();
	mount(app, receiver, framework);
	const running = await serve(app);
	return { receiver, events, running };
}

describe.each(EXPRESS_VERSIONS)('receiver.middleware() in %s over HTTP', (_version, framework) => {
	describe.each(mounts)('%s', (_label, mount) => {
		let app: Awaited<ReturnType<typeof startApp>>;
		beforeAll(async () => {
			app = await startApp(mount, { secrets: secret }, framework);
		});
		afterAll(() => app.running.close());

		it('verifies, answers 200 and emits once; a retry is a 200 duplicate', async () => {
			const delivery = await signedDelivery(secret, 'subscriber.stage');
			const send = () =>
				fetch(`${app.running.url}/hooks`, { method: 'POST', headers: delivery.headers, body: delivery.body });
			const first = await send();
			expect(first.status).toBe(200);
			expect(await first.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
			const again = await send();
			expect(await again.json()).toMatchObject({ duplicate: true });
			await app.receiver.idle();
			expect(app.events.filter((event) => event.id === delivery.id)).toHaveLength(1);
			expect(app.events.at(-1)).toMatchObject({
				type: 'subscriber.stage',
				data: { stage: 'Qualified', previous: 'New' },
			});
		});

		it('refuses a tampered body with 401', async () => {
			const delivery = await signedDelivery(secret);
			const response = await fetch(`${app.running.url}/hooks`, {
				method: 'POST',
				headers: delivery.headers,
				body: delivery.body.replace('Ada', 'Eve'),
			});
			expect(response.status).toBe(401);
		});
	});

	it('explains how to mount it when express.json() re-serialization cannot match the signed bytes', async () => {
		const app = await startApp(mounts[1][1], { secrets: secret }, framework);
		try {
			const event = sampleEvent('subscriber.new', { hook: HOOK_ID });
			// Pretty-printed bytes are signed: express.json() drops the whitespace, so the re-serialized body differs.
			const pretty = JSON.stringify(event, null, 2);
			const headers = {
				'content-type': 'application/json',
				...(await signDelivery({ body: pretty, eventId: event.id, hookId: HOOK_ID, secret })),
			};
			const reported: [unknown, unknown][] = [];
			app.receiver.onError((error, refusedEvent) => void reported.push([error, refusedEvent]));
			const response = await fetch(`${app.running.url}/hooks`, { method: 'POST', headers, body: pretty });
			expect(response.status).toBe(401);
			const answer = (await response.json()) as { code: string; error: string };
			expect(answer.code).toBe('body_hash_mismatch');
			// The fix is for the developer (onError, logs), not for whoever sent the request.
			expect(answer.error).not.toMatch(/express\.json/);
			expect(reported).toHaveLength(1);
			const [error, refusedEvent] = reported[0];
			expect(refusedEvent).toBeUndefined();
			expect(error).toMatchObject({ code: 'body_hash_mismatch' });
			expect((error as { diagnostic: string }).diagnostic).toMatch(
				/mount the receiver before express\.json\(\), or use express\.json\(\{ verify: captureRawBody \}\)/,
			);
		} finally {
			await app.running.close();
		}
	});

	it('answers 405 and 415 before reading the body', async () => {
		const app = await startApp((a, receiver) => a.use('/hooks', receiver.middleware()), { secrets: secret }, framework);
		try {
			const get = await fetch(`${app.running.url}/hooks`);
			expect(get.status).toBe(405);
			expect(get.headers.get('allow')).toBe('POST');
			const text = await fetch(`${app.running.url}/hooks`, {
				method: 'POST',
				headers: { 'content-type': 'text/plain' },
				body: 'hi',
			});
			expect(text.status).toBe(415);
		} finally {
			await app.running.close();
		}
	});

	it('answers 413 to a chunked body over the limit without reading all of it', async () => {
		const app = await startApp(mounts[0][1], { secrets: secret, maxBodyBytes: 64 * 1024 }, framework);
		try {
			const { port } = new URL(app.running.url);
			const result = await new Promise<{ status: number; sent: number }>((resolve, reject) => {
				let sent = 0;
				let finished = false;
				const req = httpRequest(
					{ host: '127.0.0.1', port, path: '/hooks', method: 'POST', headers: { 'content-type': 'application/json' } },
					(res) => {
						finished = true;
						res.resume();
						resolve({ status: res.statusCode!, sent });
						req.destroy();
					},
				);
				req.on('error', (error) => (finished ? undefined : reject(error)));
				const chunk = Buffer.alloc(16 * 1024, 0x20);
				// Keep sending until the server answers (or 50 MB, which would mean it read everything).
				const pump = () => {
					while (!finished && sent < 50 * 1024 * 1024) {
						sent += chunk.length;
						if (!req.write(chunk)) return void req.once('drain', pump);
					}
					if (!finished) req.end();
				};
				pump();
			});
			expect(result.status).toBe(413);
			expect(result.sent).toBeLessThan(50 * 1024 * 1024);
		} finally {
			await app.running.close();
		}
	});
});

describe('receiver.middleware() without a framework', () => {
	it('works as a plain node:http handler', async () => {
		const receiver = createReceiver({ secrets: secret });
		const running = await serve(receiver.middleware());
		try {
			const delivery = await signedDelivery(secret, 'payment.success');
			const response = await fetch(`${running.url}/anything`, {
				method: 'POST',
				headers: delivery.headers,
				body: delivery.body,
			});
			expect(response.status).toBe(200);
		} finally {
			await running.close();
		}
	});

	it('starts the listeners only once the answer has been handed to the socket', async () => {
		const receiver = createReceiver({ acknowledge: 'onReceipt', secrets: secret });
		const middleware = receiver.middleware();
		const seen: string[] = [];
		let lastResponse: import('node:http').ServerResponse | undefined;
		receiver.onAny(() => void seen.push(`listener (answer ended: ${lastResponse?.writableEnded})`));
		const running = await serve((req, res) => {
			lastResponse = res;
			const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
			res.end = ((...args: unknown[]) => {
				seen.push('answer');
				return end(...args);
			}) as typeof res.end;
			middleware(req, res);
		});
		try {
			const delivery = await signedDelivery(secret);
			const response = await fetch(`${running.url}/hooks`, {
				method: 'POST',
				headers: delivery.headers,
				body: delivery.body,
			});
			expect(response.status).toBe(200);
			await receiver.idle();
			expect(seen).toEqual(['answer', 'listener (answer ended: true)']);
		} finally {
			await running.close();
		}
	});
});

describe('a client that goes away mid-body', () => {
	it('is dropped without emitting, and the next delivery still works', async () => {
		const receiver = createReceiver({ secrets: secret });
		const emitted: string[] = [];
		receiver.onAny((event) => void emitted.push(event.id));
		const running = await serve(receiver.middleware());
		try {
			const delivery = await signedDelivery(secret);
			const { port } = new URL(running.url);
			await new Promise<void>((resolve) => {
				const req = httpRequest({
					host: '127.0.0.1',
					port,
					path: '/hooks',
					method: 'POST',
					headers: { ...delivery.headers, 'content-length': String(Buffer.byteLength(delivery.body)) },
				});
				req.on('error', () => resolve());
				req.write(delivery.body.slice(0, 20), () => setTimeout(() => req.destroy(), 50));
				req.on('close', () => resolve());
			});
			const response = await fetch(`${running.url}/hooks`, {
				method: 'POST',
				headers: delivery.headers,
				body: delivery.body,
			});
			expect(response.status).toBe(200);
			await receiver.idle();
			expect(emitted).toEqual([delivery.id]);
		} finally {
			await running.close();
		}
	});
});
