import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { generateHookSecret } from '../src';
import { testRedis } from '../../test/support/testRedis';
import { buildReceiver, signedDelivery, startExampleApp, type ExampleApp } from './helpers';

/**
 * Two receiver processes (the runnable example app) behind a "load balancer" share Redis: every delivery is sent to
 * both, several times, concurrently; each event must be emitted by exactly one process, once.
 */
const secret = generateHookSecret();
const prefix = `mbb:test:${randomUUID()}:`;

describe('two receiver processes sharing Redis', () => {
	let instances: ExampleApp[] = [];
	beforeAll(async () => {
		buildReceiver();
		const env = { MBB_HOOK_SECRET: secret, REDIS_URL: testRedis().url, MBB_DEDUPE_PREFIX: prefix };
		instances = await Promise.all([startExampleApp(env), startExampleApp(env)]);
	}, 60_000);
	afterAll(async () => {
		await Promise.all(instances.map((instance) => instance.stop()));
		const redis = new Redis(testRedis().url);
		const keys = await redis.keys(`${prefix}*`);
		if (keys.length) await redis.del(...keys);
		await redis.quit();
	});

	it("print a refused delivery's diagnostic as a line of their log (an hour-old signature: the clocks)", async () => {
		const hourOld = await signedDelivery(secret, 'subscriber.new', { timestamp: Math.floor(Date.now() / 1000) - 3600 });
		const response = await fetch(instances[0].url, { method: 'POST', headers: hourOld.headers, body: hourOld.body });
		expect([response.status, ((await response.json()) as { code: string }).code]).toEqual([401, 'expired']);
		const refused = await instances[0].waitFor(
			(lines) => lines.find((line) => line.refused !== undefined),
			'the refusal in its log',
		);
		expect(refused).toEqual({
			pid: instances[0].child.pid,
			refused: 'expired',
			diagnostic: expect.stringMatching(/^The JWT's "iat" is 3\d{3} s behind this server's clock/),
			unverified: false,
		});
	}, 120_000);

	it('emit each event exactly once', async () => {
		const kinds = ['subscriber.new', 'subscriber.stage', 'payment.success'];
		const deliveries = await Promise.all(Array.from({ length: 30 }, (_, i) => signedDelivery(secret, kinds[i % 3])));
		const answers = await Promise.all(
			deliveries.flatMap((delivery, i) =>
				(i % 2 === 0 ? [0, 1, 0, 1] : [1, 0, 1, 0]).map((which) =>
					fetch(instances[which].url, { method: 'POST', headers: delivery.headers, body: delivery.body }).then(
						async (r) => ({ status: r.status, body: (await r.json()) as { id?: string; duplicate?: boolean } }),
					),
				),
			),
		);
		// afterListeners (the default): a copy that arrives while another process runs the event is answered 503 (the
		// sender retries it later); at least one copy of each event is answered 200.
		const statuses = answers.map((answer) => answer.status);
		expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
		deliveries.forEach((_delivery, i) => expect(statuses.slice(i * 4, i * 4 + 4)).toContain(200));
		// Each 200 that is not a duplicate ran the listeners (which print a line) before it was sent: one per event.
		const ran = answers
			.filter((answer) => answer.status === 200 && answer.body.duplicate === false)
			.map((answer) => answer.body.id as string);
		expect(ran.sort()).toEqual(deliveries.map((delivery) => delivery.id).sort());
		const ids = new Set(deliveries.map((delivery) => delivery.id));
		const emitted = () => instances.flatMap((instance) => instance.lines.filter((line) => ids.has(line.id as string)));
		// Checked on each line either process prints: the last one may come from either.
		await Promise.race(
			instances.map((instance) =>
				instance.waitFor(() => (emitted().length >= ids.size ? true : undefined), 'every event was emitted'),
			),
		);
		const counts = new Map<string, number>();
		for (const line of emitted()) counts.set(line.id as string, (counts.get(line.id as string) ?? 0) + 1);
		expect(counts.size).toBe(ids.size);
		expect([...counts.entries()].filter(([, count]) => count !== 1)).toEqual([]);
	}, 120_000);
});
