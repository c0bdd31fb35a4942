import { chaosDraw, planChaos, resolveChaos, type DeliveryChaos } from '../src/delivery/chaos';
import { chaosFromFlags } from '../src/delivery/chaosFlags';
import { openSandbox, type OpenSandbox } from './client';
import { eventually, secretBytes, TestReceiver, verifyDeliveryJwt } from './hooksTestReceiver';

/** A delivery as /sandbox/deliveries shows it (the fields these tests read). */
interface ChaosDelivery {
	id: string;
	status: string;
	outcome: string | null;
	event: { id: string };
	chaos: string[];
	attempts: { n: number; id: string; status: number | null; error: string | null; at: string }[];
}

const RETRY_SCHEDULE = [0.05, 0.05];

describe('delivery chaos: settings', () => {
	test('are off by default, and a seed makes each setting choose the same deliveries, independently of the others', () => {
		const off = resolveChaos();
		expect(off).toMatchObject({ duplicate: 0, reorder: 0, delay: 0, cut: 0, slow: 0 });
		expect(Array.from({ length: 200 }, (_, n) => planChaos(off, n))).toEqual(Array(200).fill(undefined));

		const settings = resolveChaos({ duplicate: 0.3, delay: 0.3, delayMs: 40, seed: 42 });
		const plans = Array.from({ length: 1000 }, (_, n) => planChaos(settings, n));
		expect(Array.from({ length: 1000 }, (_, n) => planChaos({ ...settings }, n))).toEqual(plans);
		const duplicated = plans.filter((plan) => plan?.duplicate).length;
		expect(duplicated).toBeGreaterThan(230);
		expect(duplicated).toBeLessThan(370);
		// Raising another rate leaves the deliveries chosen for duplicates as they were.
		const more = resolveChaos({ ...settings, cut: 0.9, delay: 0 });
		const duplicatedAgain = Array.from({ length: 1000 }, (_, n) => planChaos(more, n)?.duplicate === true);
		expect(duplicatedAgain).toEqual(plans.map((plan) => plan?.duplicate === true));
		expect(plans.find((plan) => plan?.delayMs !== undefined)?.delayMs).toBe(40);
		// Another seed chooses other deliveries.
		const otherSeed = Array.from({ length: 1000 }, (_, n) => chaosDraw(43, n, 'duplicate') < 0.3);
		expect(otherSeed).not.toEqual(plans.map((plan) => plan?.duplicate === true));
	});

	test('refuse values out of range, from code, the command line and the control route', async () => {
		expect(() => resolveChaos({ cut: 1.5 })).toThrow('chaos cut must be a share from 0 to 1');
		expect(() => resolveChaos({ delayMs: -1 })).toThrow(/chaos delayMs must be a whole number of milliseconds/);
		expect(() => chaosFromFlags({ 'chaos-slow': 'often' })).toThrow(
			'--chaos-slow must be a share from 0 to 1, got "often"',
		);
		expect(chaosFromFlags({})).toBeUndefined();
		expect(chaosFromFlags({ 'chaos-duplicate': '0.2', 'chaos-seed': '7', 'chaos-delay-ms': '1500' })).toEqual({
			duplicate: 0.2,
			seed: 7,
			delayMs: 1500,
		});
		const open = await openSandbox();
		try {
			const refused = await open.routes.post('/sandbox/chaos', { duplicate: 2 });
			expect(refused.status).toBe(422);
			expect(refused.body).toMatchObject({ code: 'invalid_param', param: 'duplicate' });
			expect((await open.routes.get<{ chaos: DeliveryChaos }>('/sandbox/chaos')).body.chaos).toMatchObject({
				duplicate: 0,
				reorder: 0,
				delay: 0,
				cut: 0,
				slow: 0,
			});
		} finally {
			await open.close();
		}
	});
});

test('the same seed makes the same chaos of the same events, in another sandbox too', async () => {
	const notes = async (seed: number) => {
		const receiver = await TestReceiver.start();
		const open = await openSandbox({
			retrySchedule: RETRY_SCHEDULE,
			deliveryChaos: { duplicate: 0.5, delay: 0.5, delayMs: 1, seed },
		});
		try {
			await open.api.post('/hook/create', { name: 'seeded', url: receiver.url, events: ['payment.success'] });
			for (let i = 0; i < 16; i += 1) {
				const paid = { botid: 'bot_tg', clientid: '100001', messenger: 'telegram', amount: 1, currency: 'EUR' };
				expect((await open.routes.post('/sandbox/payments', paid)).status).toBe(200);
			}
			const all = await eventually(async () => {
				const items = (await open.routes.get<{ items: ChaosDelivery[] }>('/sandbox/deliveries', { limit: 100 })).body
					.items;
				return items.length === 16 && items.every((delivery) => delivery.status === 'delivered') && items;
			}, 10_000);
			return all.reverse().map((delivery) => delivery.chaos);
		} finally {
			await open.close();
			await receiver.close();
		}
	};
	const first = await notes(2024);
	expect(await notes(2024)).toEqual(first);
	expect(first.flat()).toContain('delayed 1 ms');
	expect(first.flat()).toContain('duplicated: attempts 1 and 2 sent at once');
	expect(await notes(2025)).not.toEqual(first);
});

describe('delivery chaos: what each setting does to a delivery', () => {
	let open: OpenSandbox;
	let receiver: TestReceiver;
	let secret: string;
	let hookId: string;

	beforeAll(async () => {
		open = await openSandbox({ retrySchedule: RETRY_SCHEDULE, deliveryTimeoutMs: 2000 });
	});
	afterAll(() => open.close());

	beforeEach(async () => {
		receiver = await TestReceiver.start();
		const created = await open.api.post('/hook/create', {
			name: 'chaos',
			url: receiver.url,
			events: ['payment.success'],
		});
		({ secret } = created.body as { secret: string });
		hookId = (created.body as { hook: { id: string } }).hook.id;
	});
	afterEach(async () => {
		await open.api.post('/hook/delete', { id: hookId });
		await open.routes.post('/sandbox/chaos', {});
		await receiver.close();
	});

	const setChaos = async (settings: Partial<DeliveryChaos>) => {
		const answer = await open.routes.post<{ chaos: DeliveryChaos }>('/sandbox/chaos', settings);
		expect(answer.status).toBe(200);
		return answer.body.chaos;
	};
	const pay = async () => {
		const answer = await open.routes.post('/sandbox/payments', {
			botid: 'bot_tg',
			clientid: '100001',
			messenger: 'telegram',
			amount: 5,
			currency: 'EUR',
		});
		expect(answer.status).toBe(200);
	};
	const deliveries = async () =>
		(await open.routes.get<{ items: ChaosDelivery[] }>('/sandbox/deliveries', { hook: hookId, limit: 1000 })).body
			.items;
	const settled = (count: number) =>
		eventually(async () => {
			const all = await deliveries();
			return all.length === count && all.every((delivery) => delivery.status !== 'pending') && all;
		}, 10_000);

	test('without chaos nothing changes: one POST per attempt, an empty chaos record', async () => {
		await pay();
		const [delivery] = await settled(1);
		expect(delivery).toMatchObject({ status: 'delivered', chaos: [] });
		expect(delivery.attempts).toHaveLength(1);
		expect(receiver.received).toHaveLength(1);
	});

	test('duplicate: two concurrent POSTs of the same event, each freshly signed; the round counts once for backoff', async () => {
		expect(await setChaos({ duplicate: 1, seed: 1 })).toMatchObject({ duplicate: 1, seed: 1 });
		await pay();
		const [delivery] = await settled(1);
		expect(delivery.status).toBe('delivered');
		expect(delivery.chaos).toEqual(['duplicated: attempts 1 and 2 sent at once']);
		const copies = await receiver.waitFor(2);
		expect(copies.map((copy) => copy.event.id)).toEqual([delivery.event.id, delivery.event.id]);
		const claims = await Promise.all(copies.map((copy) => verifyDeliveryJwt(copy, secretBytes(secret), 'HS256')));
		expect(new Set(claims.map((claim) => claim.jti)).size).toBe(2);
		// Both left before either was answered.
		expect(Math.abs(Date.parse(delivery.attempts[0].at) - Date.parse(delivery.attempts[1].at))).toBeLessThan(200);

		// A failing receiver: the schedule has two retries, so three rounds (four POSTs) before giving up.
		receiver.answer = () => ({ status: 500 });
		await pay();
		const given = (await settled(2)).find((each) => each.id !== delivery.id) as ChaosDelivery;
		expect(given.outcome).toBe('gave up after 3 attempts');
		expect(given.attempts.map((attempt) => attempt.n)).toEqual([1, 2, 3, 4]);
	});

	test('delay: the first attempt leaves the chosen delay late', async () => {
		await setChaos({ delay: 1, delayMs: 300 });
		const sent = Date.now();
		await pay();
		const [arrived] = await receiver.waitFor(1);
		expect(arrived.at - sent).toBeGreaterThanOrEqual(290);
		const [delivery] = await settled(1);
		expect(delivery.chaos).toEqual(['delayed 300 ms']);
	});

	test('reorder: a held event goes once a later one of its hook has been sent, or when its longest hold ends', async () => {
		await setChaos({ reorder: 1, holdMs: 5000 });
		await pay();
		await setChaos({});
		await pay();
		const [first, second] = await receiver.waitFor(2);
		const all = await settled(2);
		const held = all[1]; // newest first: the held one was queued first
		expect(first.event.id).toBe(all[0].event.id);
		expect(second.event.id).toBe(held.event.id);
		expect(held.chaos).toEqual([`held back until a later event (${all[0].event.id}) was sent`]);

		await setChaos({ reorder: 1, holdMs: 200 });
		const sent = Date.now();
		await pay();
		const [alone] = (await receiver.waitFor(3)).slice(2);
		expect(alone.at - sent).toBeGreaterThanOrEqual(190);
		expect((await settled(3))[0].chaos).toEqual(['held back 200 ms: no later event was sent first']);
	});

	test('cut: the connection is destroyed once the request is sent; the retry delivers the same event', async () => {
		await setChaos({ cut: 1 });
		await pay();
		const [delivery] = await settled(1);
		expect(delivery.status).toBe('delivered');
		expect(delivery.attempts.map((attempt) => [attempt.status, attempt.error])).toEqual([
			[null, 'connection cut after the request was sent (chaos)'],
			[200, null],
		]);
		expect(delivery.chaos).toEqual(['connection cut after the request (attempt 1)']);
		const arrived = await receiver.waitFor(1);
		expect(arrived.every((each) => each.event.id === delivery.event.id)).toBe(true);
	});

	test('slow: an answer counted as later than the timeout fails the attempt; the retry reaches a receiver that has it', async () => {
		await setChaos({ slow: 1 });
		await pay();
		const [delivery] = await settled(1);
		expect(delivery.status).toBe('delivered');
		expect(delivery.attempts.map((attempt) => attempt.status)).toEqual([null, 200]);
		expect(delivery.attempts[0].error).toBe(
			"no answer within the attempt's timeout (chaos: the receiver answered 200 later)",
		);
		expect(delivery.chaos).toEqual([
			expect.stringMatching(/^answer counted as later than the timeout \(it was 200 after [\d.]+ ms\) \(attempt 1\)$/),
		]);
		const copies = await receiver.waitFor(2);
		expect(copies.map((copy) => copy.event.id)).toEqual([delivery.event.id, delivery.event.id]);
	});

	test('everything at once still ends with every event delivered', async () => {
		receiver.answer = (index) => ({ status: 200, delayMs: index % 3 });
		await setChaos({ duplicate: 0.3, reorder: 0.3, delay: 0.3, cut: 0.3, slow: 0.3, delayMs: 30, holdMs: 100 });
		await Promise.all(Array.from({ length: 30 }, () => pay()));
		const all = await settled(30).catch(async (error) => {
			throw new Error(`${error}: ${JSON.stringify(await deliveries(), null, 1)}`);
		});
		expect(all.filter((delivery) => delivery.status !== 'delivered')).toEqual([]);
		expect(all.filter((delivery) => delivery.chaos.length > 0).length).toBeGreaterThan(10);
		const seen = new Set(receiver.received.map((each) => each.event.id));
		expect(all.every((delivery) => seen.has(delivery.event.id))).toBe(true);
	});
});
