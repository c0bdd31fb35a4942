import { createHmac } from 'node:crypto';
import {
	createReceiver,
	decodeHookSecret,
	sampleEvent,
	verifyDelivery,
	type DeliveryEvent,
	type Receiver,
} from '../src';
import { createWebHandler } from '../src/web';
import { HOOK_ID, eventually, jwtOnly, newSecret, signedDelivery } from './helpers';
import { FRAMEWORKS, post, rawPost, type RawAnswer, type Served } from './httpHarness';

/**
 * The edges of a delivery over real HTTP (a body too large, too slow, cut off, not UTF-8; the X-Signature cap),
 * through Express 5 and through `handle()`, and the same edges through the /web entry.
 */
const secret = newSecret();

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
