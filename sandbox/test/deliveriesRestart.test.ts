import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRemoteJWKSet } from 'jose';
import type { SandboxOptions } from '../src';
import { openSandbox, TestClient } from './client';
import { eventually, TestReceiver, verifyDeliveryJwt, verifyStandardWebhook } from './hooksTestReceiver';

describe('sandbox deliveries across a restart with a data file', () => {
	let dir: string;
	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'sandbox-deliveries-'));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	test('pending retries and attempts cut off by close resume with the same event ids, hook, secret and signing key', async () => {
		const options: SandboxOptions = {
			dataFile: join(dir, 'state.sqlite'),
			signingAlgorithm: 'ES256',
			retrySchedule: [1],
			deliveryTimeoutMs: 20000,
		};
		let restarted = false;
		// Before the restart: subscriber.new fails (503, retried in 1 s); payment.success hangs until the sandbox closes.
		const inbox = await TestReceiver.start((_index, delivery) => {
			if (restarted) return { status: 200 };
			return delivery.event.type === 'payment.success' ? { status: 200, delayMs: 15000 } : { status: 503 };
		});
		try {
			const first = await openSandbox(options);
			const { hook, secret } = (
				await first.api.post('/hook/create', {
					name: 'durable',
					url: inbox.url,
					events: ['subscriber.new', 'payment.success'],
				})
			).body;
			const kidBefore = (
				(await (await fetch(`${first.sandbox.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
			).keys[0].kid;
			expect(
				(await first.api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'durable-1', messenger: 'telegram' }))
					.status,
			).toBe(200);
			const paid = await new TestClient(first.sandbox.url, first.sandbox.adminKey).post('/sandbox/payments', {
				botid: 'bot_tg',
				clientid: 'durable-1',
				messenger: 'telegram',
				amount: 10,
				currency: 'USD',
			});
			expect(paid.status).toBe(200);

			const before = await inbox.waitFor(2);
			const eventIds = Object.fromEntries(before.map((delivery) => [delivery.event.type, delivery.event.id]));
			await eventually(async () => {
				const failed = (await first.api.get('/hook/deliveries', { event: eventIds['subscriber.new'] })).body.items[0];
				return failed?.attempts.length === 1;
			});
			const closing = Date.now();
			await first.close();
			expect(Date.now() - closing).toBeLessThan(2000);

			restarted = true;
			const second = await openSandbox(options);
			try {
				const after = await inbox.waitFor(4, 5000);
				const resumed = after.slice(2);
				expect(Object.fromEntries(resumed.map((delivery) => [delivery.event.type, delivery.event.id]))).toEqual(
					eventIds,
				);
				expect(resumed.find((delivery) => delivery.event.type === 'payment.success')!.event.data.payment).toEqual(
					paid.body.payment,
				);

				const keys = createRemoteJWKSet(new URL(`${second.sandbox.url}/.well-known/jwks.json`));
				for (const delivery of resumed) {
					const claims = await verifyDeliveryJwt(delivery, keys, 'ES256');
					expect(claims.aud).toBe(hook.id);
					verifyStandardWebhook(delivery, secret);
				}
				const jwks = (await (await fetch(`${second.sandbox.url}/.well-known/jwks.json`)).json()) as {
					keys: { kid: string }[];
				};
				expect(jwks.keys.map((key) => key.kid)).toEqual([kidBefore]);

				const records = await eventually(async () => {
					const items = (await second.api.get('/hook/deliveries', { hook: hook.id })).body.items;
					return items.length === 2 && items.every((item) => item.status === 'delivered') && items;
				});
				const attemptsByType = Object.fromEntries(
					records.map((record) => [record.event.type, record.attempts.map((attempt) => attempt.status)]),
				);
				// The attempt cut off by the close is not counted: it never got an answer.
				expect(attemptsByType).toEqual({ 'subscriber.new': [503, 200], 'payment.success': [200] });
				const listed = (await second.api.get('/hook/list')).body.items.find((item) => item.id === hook.id);
				expect(listed).toEqual(
					expect.objectContaining({
						disabled: false,
						deliveries: expect.objectContaining({ delivered: 2, pending: 0 }),
					}),
				);
			} finally {
				await second.close();
			}
		} finally {
			await inbox.close();
		}
	});
});
