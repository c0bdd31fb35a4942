import type { RunningSandbox } from '../src';
import { openSandbox, TestClient } from './client';
import {
	eventually,
	secretBytes,
	TestReceiver,
	verifyDeliveryJwt,
	verifyStandardWebhook,
	type Answer,
} from './hooksTestReceiver';

const RETRY_SCHEDULE = [0.05, 0.1];
const TIMEOUT_MS = 300;

let clientCounter = 0;
const nextClientId = () => `client_${Date.now()}_${++clientCounter}`;

async function createHook(api: TestClient, url: string, events: string[]) {
	const response = await api.post('/hook/create', { name: 'test hook', url, events });
	expect(response.status).toBe(200);
	return response.body as { hook: { id: string }; secret: string };
}

async function createSubscriber(api: TestClient, clientid = nextClientId()) {
	const response = await api.post('/subscriber/create', {
		botid: 'bot_tg',
		clientid,
		messenger: 'telegram',
		name: 'Ann',
	});
	expect(response.status).toBe(200);
	expect(response.body.created).toBe(true);
	return response.body.subscriber as { id: number; botid: string; clientid: string };
}

async function hookInList(api: TestClient, id: string) {
	return (await api.get('/hook/list', { limit: 1000 })).body.items.find((hook) => hook.id === id);
}

async function deliveriesOf(api: TestClient, hookId: string) {
	return (await api.get('/hook/deliveries', { hook: hookId })).body.items;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('sandbox deliveries: signed, retried with backoff, given up, disabled by 410, filtered by kind', () => {
	let sandbox: RunningSandbox;
	let api: TestClient;
	let close: () => Promise<void>;
	const receivers: TestReceiver[] = [];

	beforeAll(async () => {
		({ sandbox, api, close } = await openSandbox({ retrySchedule: RETRY_SCHEDULE, deliveryTimeoutMs: TIMEOUT_MS }));
	});
	afterAll(async () => {
		await close();
		await Promise.all(receivers.map((receiver) => receiver.close()));
	});

	const receiver = async (answer?: Answer) => {
		const started = await TestReceiver.start(answer);
		receivers.push(started);
		return started;
	};

	test('a new subscriber is delivered once, as the documented envelope, with both signatures valid', async () => {
		const inbox = await receiver();
		const { hook, secret } = await createHook(api, inbox.url, ['subscriber.new']);
		const subscriber = await createSubscriber(api);

		const [delivery] = await inbox.waitFor(1);
		expect(delivery.headers['content-type']).toBe('application/json');
		expect(delivery.event).toEqual({
			id: expect.stringMatching(/^evt_/),
			type: 'subscriber.new',
			created: expect.any(String),
			hook: hook.id,
			data: {
				subscriber: expect.objectContaining({ id: subscriber.id, botid: 'bot_tg', clientid: subscriber.clientid }),
			},
		});
		expect(Object.keys(JSON.parse(delivery.body))).toEqual(['id', 'type', 'created', 'hook', 'data']);
		const claims = await verifyDeliveryJwt(delivery, secretBytes(secret), 'HS256');
		expect(claims.aud).toBe(hook.id);
		verifyStandardWebhook(delivery, secret);

		const stats = await eventually(async () => {
			const listed = await hookInList(api, hook.id);
			return listed?.deliveries.delivered === 1 && listed.deliveries;
		});
		expect(stats).toEqual({
			pending: 0,
			delivered: 1,
			failed: 0,
			cancelled: 0,
			lastAttempt: expect.objectContaining({ n: 1, status: 200, error: null }),
		});
		const [record] = await deliveriesOf(api, hook.id);
		expect(record).toEqual(expect.objectContaining({ status: 'delivered', event: delivery.event, nextAttempt: null }));
		expect(record.attempts).toEqual([expect.objectContaining({ n: 1, id: claims.jti, status: 200, error: null })]);
		await pause(300);
		expect(inbox.received).toHaveLength(1);
	});

	test('a receiver failing twice gets the event on the 3rd attempt: same event id, fresh jti and signatures', async () => {
		const inbox = await receiver((index) => ({ status: index < 2 ? 500 : 200 }));
		const { hook, secret } = await createHook(api, inbox.url, ['subscriber.new']);
		await createSubscriber(api);

		const attempts = await inbox.waitFor(3);
		expect(new Set(attempts.map((attempt) => attempt.event.id)).size).toBe(1);
		expect(new Set(attempts.map((attempt) => attempt.body)).size).toBe(1);
		const jtis = [];
		for (const attempt of attempts) {
			jtis.push((await verifyDeliveryJwt(attempt, secretBytes(secret), 'HS256')).jti);
			verifyStandardWebhook(attempt, secret);
		}
		expect(new Set(jtis).size).toBe(3);
		// Waits follow the schedule (±10% jitter).
		expect(attempts[1].at - attempts[0].at).toBeGreaterThanOrEqual(RETRY_SCHEDULE[0] * 900 - 5);
		expect(attempts[2].at - attempts[1].at).toBeGreaterThanOrEqual(RETRY_SCHEDULE[1] * 900 - 5);

		const [record] = await eventually(async () => {
			const records = await deliveriesOf(api, hook.id);
			return records[0]?.status === 'delivered' && records;
		});
		expect(record.attempts.map((attempt) => [attempt.n, attempt.status])).toEqual([
			[1, 500],
			[2, 500],
			[3, 200],
		]);
		expect(record.attempts[0].error).toBe('receiver answered 500');
		expect(record.attempts.map((attempt) => attempt.id)).toEqual(jtis);
	});

	test('no answer within the delivery timeout counts as a failure and is retried', async () => {
		const inbox = await receiver((index) => (index === 0 ? { status: 200, delayMs: TIMEOUT_MS * 3 } : { status: 204 }));
		const { hook } = await createHook(api, inbox.url, ['subscriber.new']);
		await createSubscriber(api);

		const [first, second] = await inbox.waitFor(2);
		expect(second.event.id).toBe(first.event.id);
		const [record] = await eventually(async () => {
			const records = await deliveriesOf(api, hook.id);
			return records[0]?.status === 'delivered' && records;
		});
		expect(record.attempts[0]).toEqual(
			expect.objectContaining({ status: null, error: `no answer within ${TIMEOUT_MS} ms` }),
		);
		expect(record.attempts[1]).toEqual(expect.objectContaining({ status: 204, error: null }));
	});

	test('after the last retry the delivery is given up and the failure recorded', async () => {
		const inbox = await receiver(() => ({ status: 503 }));
		const { hook } = await createHook(api, inbox.url, ['subscriber.new']);
		await createSubscriber(api);

		await inbox.waitFor(RETRY_SCHEDULE.length + 1);
		const [record] = await eventually(async () => {
			const records = await deliveriesOf(api, hook.id);
			return records[0]?.status === 'failed' && records;
		});
		expect(record.outcome).toBe(`gave up after ${RETRY_SCHEDULE.length + 1} attempts`);
		expect(record.attempts.map((attempt) => attempt.status)).toEqual([503, 503, 503]);
		await pause(400);
		expect(inbox.received).toHaveLength(RETRY_SCHEDULE.length + 1);
		const listed = await hookInList(api, hook.id);
		expect(listed).toEqual(
			expect.objectContaining({ disabled: false, deliveries: expect.objectContaining({ failed: 1, pending: 0 }) }),
		);
	});

	test('an unreachable receiver is recorded as a network error, without the URL', async () => {
		const gone = await TestReceiver.start();
		await gone.close();
		const { hook } = await createHook(api, `${gone.url}?token=pw`, ['subscriber.new']);
		await createSubscriber(api);
		const [record] = await eventually(async () => {
			const records = await deliveriesOf(api, hook.id);
			return records[0]?.status === 'failed' && records;
		});
		expect(record.attempts[0]).toEqual(
			expect.objectContaining({ status: null, error: 'request failed: ECONNREFUSED' }),
		);
		expect(JSON.stringify(record.attempts)).not.toContain('pw');
	});

	test('a 410 answer disables the hook: no retry, no further deliveries', async () => {
		const inbox = await receiver(() => ({ status: 410 }));
		const { hook } = await createHook(api, inbox.url, ['subscriber.new', 'payment.success']);
		await createSubscriber(api);
		await inbox.waitFor(1);

		const listed = await eventually(async () => {
			const found = await hookInList(api, hook.id);
			return found?.disabled && found;
		});
		expect(listed).toEqual(
			expect.objectContaining({
				disabled: true,
				disabledAt: expect.any(String),
				disabledReason: expect.stringContaining('410'),
			}),
		);
		const [record] = await deliveriesOf(api, hook.id);
		expect(record).toEqual(expect.objectContaining({ status: 'failed', outcome: expect.stringContaining('410') }));

		await createSubscriber(api);
		const payment = await new TestClient(sandbox.url, sandbox.adminKey).post('/sandbox/payments', {
			botid: 'bot_tg',
			clientid: 'c',
			messenger: 'telegram',
			amount: 1,
			currency: 'USD',
		});
		expect(payment.status).toBe(200);
		await pause(400);
		expect(inbox.received).toHaveLength(1);
		expect(await deliveriesOf(api, hook.id)).toHaveLength(1);
	});

	test('a hook for subscriber.stage gets stage changes and no subscriber.new', async () => {
		const inbox = await receiver();
		const { hook, secret } = await createHook(api, inbox.url, ['subscriber.stage']);
		const subscriber = await createSubscriber(api);
		const staged = await api.post('/crm/stage/set', {
			botid: 'bot_tg',
			clientid: subscriber.clientid,
			stage: 'Qualified',
		});
		expect(staged.status).toBe(200);

		const [delivery] = await inbox.waitFor(1);
		expect(delivery.event).toEqual(
			expect.objectContaining({
				type: 'subscriber.stage',
				hook: hook.id,
				data: { subscriber: expect.objectContaining({ id: subscriber.id }), stage: 'Qualified', previous: null },
			}),
		);
		await verifyDeliveryJwt(delivery, secretBytes(secret), 'HS256');
		await pause(300);
		expect(inbox.received.map((received) => received.event.type)).toEqual(['subscriber.stage']);
	});

	test('every matching hook gets its own delivery with its own event id and audience', async () => {
		const [first, second] = await Promise.all([receiver(), receiver()]);
		const hookA = await createHook(api, first.url, ['subscriber.new']);
		const hookB = await createHook(api, second.url, ['subscriber.new']);
		const subscriber = await createSubscriber(api);
		const [a] = await first.waitFor(1);
		const [b] = await second.waitFor(1);
		expect(a.event.data.subscriber?.id).toBe(subscriber.id);
		expect(b.event.data.subscriber?.id).toBe(subscriber.id);
		expect(a.event.id).not.toBe(b.event.id);
		await verifyDeliveryJwt(a, secretBytes(hookA.secret), 'HS256');
		await verifyDeliveryJwt(b, secretBytes(hookB.secret), 'HS256');
		await expect(verifyDeliveryJwt(a, secretBytes(hookB.secret), 'HS256')).rejects.toThrow();
	});
});

describe('sandbox deliveries: removing a hook', () => {
	test('deleting a hook cancels its pending retries', async () => {
		const { api, close } = await openSandbox({ retrySchedule: [0.5] });
		const inbox = await TestReceiver.start(() => ({ status: 500 }));
		try {
			const { hook } = await createHook(api, inbox.url, ['subscriber.new']);
			await createSubscriber(api);
			await inbox.waitFor(1);
			const pending = await eventually(async () => {
				const records = await deliveriesOf(api, hook.id);
				return records[0]?.attempts.length === 1 && records[0];
			});
			expect(pending).toEqual(expect.objectContaining({ status: 'pending', nextAttempt: expect.any(String) }));
			expect((await api.post('/hook/delete', { id: hook.id })).status).toBe(200);
			await pause(800);
			expect(inbox.received).toHaveLength(1);
			const [record] = (await api.get('/hook/deliveries', { status: 'cancelled' })).body.items;
			expect(record).toEqual(
				expect.objectContaining({ id: pending.id, status: 'cancelled', outcome: 'hook deleted', nextAttempt: null }),
			);
		} finally {
			await close();
			await inbox.close();
		}
	});
});
