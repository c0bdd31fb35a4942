import { createReceiver, isEventType, type DeliveryEvent } from '../src';
import { captureRefusalWarnings } from './consoleCapture';
import { jwtOnly, newSecret, signedDelivery, standardWebhooksOnly } from './helpers';

const secret = newSecret();
const post = (body: RequestInit['body'], headers: Record<string, string>, method = 'POST') =>
	new Request('http://127.0.0.1/hooks', {
		method,
		headers,
		body,
		...(body instanceof ReadableStream ? { duplex: 'half' } : {}),
	} as RequestInit);

describe('createReceiver().handle (web Request)', () => {
	it('answers 200 once verified, then runs typed listeners after the answer', async () => {
		const receiver = createReceiver({ acknowledge: 'onReceipt', secrets: secret });
		const seen: string[] = [];
		receiver.on('subscriber.stage', (event) => {
			seen.push(`stage:${event.data.stage}:${event.data.previous}`);
		});
		receiver.onAny((event) => {
			seen.push(`any:${event.type}`);
		});
		const delivery = await signedDelivery(secret, 'subscriber.stage');
		const response = await receiver.handle(post(delivery.body, delivery.headers));
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual({ received: true, id: delivery.id, duplicate: false });
		expect(seen).toEqual([]);
		await receiver.idle();
		expect(seen).toEqual(['stage:Qualified:New', 'any:subscriber.stage']);
	});

	it.each([
		['JWT', jwtOnly],
		['Standard Webhooks', standardWebhooksOnly],
	])('accepts %s alone', async (_scheme, pick) => {
		const receiver = createReceiver({ secrets: secret, dedupe: false });
		const delivery = await signedDelivery(secret, 'payment.success');
		const response = await receiver.handle(post(delivery.body, pick(delivery.headers)));
		expect(response.status).toBe(200);
	});

	it('answers a duplicate with 200 and does not emit it again', async () => {
		const receiver = createReceiver({ secrets: secret });
		const emitted: string[] = [];
		receiver.onAny((event) => void emitted.push(event.id));
		const delivery = await signedDelivery(secret);
		const first = await receiver.handle(post(delivery.body, delivery.headers));
		const again = await receiver.handle(post(delivery.body, standardWebhooksOnly(delivery.headers)));
		expect(first.status).toBe(200);
		expect(again.status).toBe(200);
		expect(await again.json()).toMatchObject({ duplicate: true });
		await receiver.idle();
		expect(emitted).toEqual([delivery.id]);
	});

	it('emits duplicates when deduplication is off', async () => {
		const receiver = createReceiver({ secrets: secret, dedupe: false });
		let count = 0;
		receiver.onAny(() => void count++);
		const delivery = await signedDelivery(secret);
		await receiver.handle(post(delivery.body, delivery.headers));
		await receiver.handle(post(delivery.body, delivery.headers));
		await receiver.idle();
		expect(count).toBe(2);
	});

	it('passes unknown event kinds to onAny only', async () => {
		const receiver = createReceiver({ secrets: secret });
		const typed = jest.fn();
		const any: DeliveryEvent[] = [];
		receiver.on('subscriber.new', typed).onAny((event) => void any.push(event));
		const delivery = await signedDelivery(secret, 'subscriber.tagged', { data: { tag: 'vip' } });
		expect((await receiver.handle(post(delivery.body, delivery.headers))).status).toBe(200);
		await receiver.idle();
		expect(typed).not.toHaveBeenCalled();
		expect(any).toHaveLength(1);
		expect(any[0]).toMatchObject({ type: 'subscriber.tagged', data: { tag: 'vip' } });
	});

	it('sends listener errors to onError, keeps running the other listeners, and has answered 200', async () => {
		const receiver = createReceiver({ acknowledge: 'onReceipt', secrets: secret });
		const failures: [unknown, string][] = [];
		const after = jest.fn();
		receiver
			.on('subscriber.new', () => {
				throw new Error('listener broke');
			})
			.onAny(after)
			.onError((error, event) => void failures.push([error, event!.id]));
		const delivery = await signedDelivery(secret);
		expect((await receiver.handle(post(delivery.body, delivery.headers))).status).toBe(200);
		await receiver.idle();
		expect(failures).toHaveLength(1);
		expect((failures[0][0] as Error).message).toBe('listener broke');
		expect(failures[0][1]).toBe(delivery.id);
		expect(after).toHaveBeenCalledTimes(1);
	});

	it('waits for a listener that returns a promise before the next one; a rejected promise goes to onError', async () => {
		const receiver = createReceiver({ acknowledge: 'onReceipt', secrets: secret });
		const calls: string[] = [];
		receiver
			.on('subscriber.new', async () => {
				await new Promise((resolve) => setTimeout(resolve, 5));
				calls.push('slow typed');
				throw new Error('async listener broke');
			})
			.onAny(() => void calls.push('any'))
			.onError(async (error) => {
				await new Promise((resolve) => setTimeout(resolve, 5));
				calls.push(`onError: ${(error as Error).message}`);
			});
		const delivery = await signedDelivery(secret);
		expect((await receiver.handle(post(delivery.body, delivery.headers))).status).toBe(200);
		await receiver.idle();
		expect(calls).toEqual(['slow typed', 'onError: async listener broke', 'any']);
	});

	it('sends a listener result whose then getter throws to onError and runs the next listeners', async () => {
		const receiver = createReceiver({ acknowledge: 'onReceipt', secrets: secret });
		const failures: string[] = [];
		const after = jest.fn();
		receiver
			.on('subscriber.new', () => ({
				get then(): never {
					throw new Error('then getter broke');
				},
			}))
			.onAny(after)
			.onError((error) => void failures.push((error as Error).message));
		const delivery = await signedDelivery(secret);
		expect((await receiver.handle(post(delivery.body, delivery.headers))).status).toBe(200);
		await receiver.idle();
		expect(failures).toEqual(['then getter broke']);
		expect(after).toHaveBeenCalledTimes(1);
	});

	it('idle() waits for the listeners of every accepted delivery, also those accepted while it waits', async () => {
		const receiver = createReceiver({ secrets: secret });
		await receiver.idle(); // nothing running: resolves at once
		const finished: string[] = [];
		const late = await signedDelivery(secret);
		receiver.onAny(async (event) => {
			await new Promise((resolve) => setTimeout(resolve, 10));
			finished.push(event.id);
			if (finished.length === 1) await receiver.handle(post(late.body, late.headers));
		});
		const deliveries = [await signedDelivery(secret), await signedDelivery(secret)];
		for (const delivery of deliveries) await receiver.handle(post(delivery.body, delivery.headers));
		await receiver.idle();
		expect(finished.sort()).toEqual([...deliveries.map((d) => d.id), late.id].sort());
	});

	it('runs the listeners registered when a delivery is dispatched, in order', async () => {
		const receiver = createReceiver({ secrets: secret });
		const calls: string[] = [];
		receiver.on('subscriber.new', () => {
			calls.push('typed');
			receiver.onAny(() => void calls.push('added later'));
		});
		receiver.onAny(() => void calls.push('any'));
		const first = await signedDelivery(secret);
		await receiver.handle(post(first.body, first.headers));
		await receiver.idle();
		expect(calls).toEqual(['typed', 'any']);
	});

	it("runs the listeners even when the platform's waitUntil throws", async () => {
		const receiver = createReceiver({ acknowledge: 'onReceipt', secrets: secret });
		const seen = jest.fn();
		receiver.onAny(seen);
		const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
		try {
			const delivery = await signedDelivery(secret);
			const waitUntil = () => {
				throw new Error('waitUntil outside a request');
			};
			expect((await receiver.handle(post(delivery.body, delivery.headers), { waitUntil })).status).toBe(200);
			await receiver.idle();
			expect(seen).toHaveBeenCalledTimes(1);
			expect(String(errors.mock.calls[0]?.[0])).toContain('waitUntil failed');
		} finally {
			errors.mockRestore();
		}
	});

	it('hands the listeners to waitUntil for serverless platforms', async () => {
		const receiver = createReceiver({ acknowledge: 'onReceipt', secrets: secret });
		const done = jest.fn();
		receiver.onAny(async () => {
			await new Promise((resolve) => setTimeout(resolve, 20));
			done();
		});
		const kept: Promise<unknown>[] = [];
		const delivery = await signedDelivery(secret);
		await receiver.handle(post(delivery.body, delivery.headers), { waitUntil: (promise) => kept.push(promise) });
		expect(kept).toHaveLength(1);
		expect(done).not.toHaveBeenCalled();
		await kept[0];
		expect(done).toHaveBeenCalled();
	});

	it('answers 405 to other methods, with Allow: POST', async () => {
		const receiver = createReceiver({ secrets: secret });
		const response = await receiver.handle(post(null, {}, 'GET'));
		expect(response.status).toBe(405);
		expect(response.headers.get('allow')).toBe('POST');
		expect(await response.json()).toMatchObject({ code: 'method_not_allowed' });
	});

	it.each([undefined, 'text/plain', 'application/x-www-form-urlencoded'])(
		'answers 415 to Content-Type %s',
		async (type) => {
			const receiver = createReceiver({ secrets: secret });
			const delivery = await signedDelivery(secret);
			const headers = { ...delivery.headers };
			delete (headers as Record<string, string | undefined>)['content-type'];
			const response = await receiver.handle(
				post(new TextEncoder().encode(delivery.body), type ? { ...headers, 'content-type': type } : headers),
			);
			expect(response.status).toBe(415);
		},
	);

	it('accepts application/json with parameters and +json media types', async () => {
		const receiver = createReceiver({ secrets: secret, dedupe: false });
		const delivery = await signedDelivery(secret);
		for (const type of ['application/json; charset=utf-8', 'application/vnd.mbb.event+json']) {
			expect((await receiver.handle(post(delivery.body, { ...delivery.headers, 'content-type': type }))).status).toBe(
				200,
			);
		}
	});

	it('answers 401 with the reason and never emits', async () => {
		const receiver = createReceiver({ secrets: newSecret() });
		const emitted = jest.fn();
		receiver.onAny(emitted);
		const delivery = await signedDelivery(secret);
		// A wrong secret over a delivery's body: the receiver logs its unverified hint (captured here).
		const warnings = captureRefusalWarnings();
		const response = await receiver.handle(post(delivery.body, delivery.headers));
		expect(warnings.refusals()).toEqual(['invalid_signature']);
		warnings.restore();
		expect(response.status).toBe(401);
		expect(await response.json()).toEqual({
			code: 'invalid_signature',
			error: 'JWT signature matches none of the configured secrets',
		});
		await receiver.idle();
		expect(emitted).not.toHaveBeenCalled();
	});

	it('answers 400 to a signed payload that fails its schema', async () => {
		const receiver = createReceiver({ secrets: secret });
		const delivery = await signedDelivery(secret, 'payment.success', { data: { payment: { id: 'pay_1' } } });
		const response = await receiver.handle(post(delivery.body, delivery.headers));
		expect(response.status).toBe(400);
		const answer = (await response.json()) as { code: string; error: string };
		expect(answer.code).toBe('invalid_payload');
		expect(answer.error).toMatch(/data\.payment\.amount/);
	});

	it('answers 413 from Content-Length before reading, and while streaming a body without one', async () => {
		const receiver = createReceiver({ secrets: secret, maxBodyBytes: 1000 });
		const delivery = await signedDelivery(secret);
		const declared = await receiver.handle(post(delivery.body, { ...delivery.headers, 'content-length': '5000000' }));
		expect(declared.status).toBe(413);

		let pulled = 0;
		const endless = new ReadableStream<Uint8Array>({
			pull(controller) {
				pulled += 1;
				controller.enqueue(new Uint8Array(400).fill(32));
			},
		});
		const streamed = await receiver.handle(post(endless, delivery.headers));
		expect(streamed.status).toBe(413);
		expect(await streamed.json()).toMatchObject({ code: 'body_too_large' });
		expect(pulled).toBeLessThan(10);
	});

	it('answers 503 when the deduplication store fails, so the sender retries', async () => {
		const receiver = createReceiver({
			secrets: secret,
			dedupe: {
				begin: () => Promise.reject(new Error('store down')),
				renew: () => false,
				complete: () => undefined,
				release: () => undefined,
			},
		});
		const emitted = jest.fn();
		receiver.onAny(emitted);
		const delivery = await signedDelivery(secret);
		const response = await receiver.handle(post(delivery.body, delivery.headers));
		expect(response.status).toBe(503);
		expect(await response.json()).toMatchObject({ code: 'dedupe_unavailable' });
		await receiver.idle();
		expect(emitted).not.toHaveBeenCalled();
	});

	it('refuses bad options with errors that name the option and hide the secret', () => {
		expect(() => createReceiver({})).toThrow('Configure at least one of secrets, publicKeys, jwks or jwksUrl');
		expect(() => createReceiver({ secrets: ['whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=', 'oops-my-secret'] })).toThrow(
			/^secrets\[1\] must be/,
		);
		expect(() => createReceiver({ secrets: 'oops-my-secret' })).not.toThrow(/oops/);
		expect(() => createReceiver({ secrets: secret, algorithms: ['none' as never] })).toThrow(
			/algorithms: "none" is not supported/,
		);
		expect(() => createReceiver({ secrets: secret, jwks: { keys: [] }, algorithms: ['HS256'] })).toThrow(
			/HS256 cannot be allowed together with jwks/,
		);
		expect(() => createReceiver({ secrets: secret, algorithms: ['ES256'] })).toThrow(/ES256 needs jwks or jwksUrl/);
		expect(() => createReceiver({ secrets: secret, toleranceSeconds: -1 })).toThrow(/toleranceSeconds/);
		expect(() => createReceiver({ secrets: secret, dedupe: {} as never })).toThrow(/dedupe must be a store/);
	});

	it('types listeners by event kind (checked by tsc)', () => {
		const receiver = createReceiver({ secrets: secret });
		receiver.on('subscriber.stage', (event) => {
			const stage: string = event.data.stage;
			const previous: string | null = event.data.previous;
			return [stage, previous];
		});
		receiver.on('payment.success', (event) => {
			const amount: number | string = event.data.payment.amount;
			return amount;
		});
		receiver.on('subscriber.new', (event) => {
			// @ts-expect-error a new subscriber has no stage field in its data
			const stage: string = event.data.stage;
			return stage;
		});
		// @ts-expect-error unknown kinds are not subscribed with on(): they reach onAny
		receiver.on('subscriber.tagged', () => undefined);
		receiver.onAny((event) => (isEventType(event, 'payment.success') ? event.data.payment.currency : event.type));
	});

	it('receive() works on a body already in memory (Fastify, Lambda)', async () => {
		const receiver = createReceiver({ secrets: secret });
		const delivery = await signedDelivery(secret);
		const answer = await receiver.receive({
			method: 'POST',
			headers: delivery.headers,
			body: Buffer.from(delivery.body),
		});
		expect(answer).toMatchObject({ status: 200, duplicate: false, event: { id: delivery.id } });
		await receiver.idle();
	});
});
