import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSandbox, TestClient, type OpenSandbox } from './client';
import { eventually, TestReceiver, verifyDeliveryJwt, verifyStandardWebhook, secretBytes } from './hooksTestReceiver';

/** Times written by the demo data depend on when it was seeded: compared without them. */
const withoutTimes = (value: unknown) =>
	JSON.parse(
		JSON.stringify(value)
			.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
			.replace(/\d\d\.\d\d\.\d{4} \d\d:\d\d/g, '<date>'),
	);

/** What a test can observe of the whole state through the API. */
async function observe(api: TestClient) {
	return withoutTimes({
		lists: (await api.get('/list/all')).body.items,
		leads: (await api.get('/list/rows/get', { list: 'Leads', limit: 1000 })).body,
		subscribers: (await api.get('/subscriber/list', { limit: 1000 })).body,
		keys: (await api.get('/account/get')).body.used,
		catalog: (await api.post('/account/summary')).body,
		hooks: (await api.get('/hook/list')).body.items.map((hook: { id: string }) => hook.id),
	});
}

describe('sandbox control: reset, snapshot and restore', () => {
	let open: OpenSandbox;
	beforeAll(async () => {
		open = await openSandbox();
	});
	afterAll(() => open.close());

	test('the control routes need the account key', async () => {
		const reader = await open.api.withNewKey(['lists:read']);
		for (const path of [
			'/sandbox/reset',
			'/sandbox/snapshot',
			'/sandbox/restore',
			'/sandbox/deliveries',
			'/sandbox/deliveries/redeliver',
			'/sandbox/chaos',
		]) {
			expect((await new TestClient(open.sandbox.url, reader.key).post(path, {})).status).toBe(401);
			expect((await new TestClient(open.sandbox.url, undefined).post(path, {})).status).toBe(401);
		}
		expect((await new TestClient(open.sandbox.url, reader.key).get('/sandbox/deliveries')).status).toBe(401);
		expect((await new TestClient(open.sandbox.url, reader.key).get('/sandbox/chaos')).status).toBe(401);
	});

	test('reset brings the demo data back, forgets every change, keeps the account key and sets the clock back', async () => {
		// The key made by the test before is gone after a reset: the state is a new sandbox's.
		const fresh = await observe(open.api);
		expect(fresh.keys.keys).toBe(2);
		fresh.keys.keys = 1;
		await open.api.post('/list/create', { name: 'Temporary', headers: ['A'] });
		await open.api.post('/list/rows/add', { list: 'Leads', rows: [{ Name: 'extra' }] });
		await open.api.post('/subscriber/delete', { botid: 'bot_tg', clientid: '100003', messenger: 'telegram' });
		await open.api.post('/key/create', { name: 'extra', scopes: ['lists:read'] });
		await open.routes.post('/sandbox/clock', { advanceSeconds: 86_400 * 30 });
		expect(await observe(open.api)).not.toEqual(fresh);

		expect((await open.routes.post('/sandbox/reset')).body).toEqual({ ok: true });
		expect(await observe(open.api)).toEqual(fresh);
		const now = Date.parse((await open.routes.post('/sandbox/clock', { advanceSeconds: 0 })).body.now);
		expect(Math.abs(now - Date.now())).toBeLessThan(60_000);
		// Writes after a reset work and number from the start again, as in a new sandbox.
		const added = await open.api.post('/list/rows/add', { list: 'Leads', rows: [{ Name: 'after reset' }] });
		expect(added.body.rows[0].id).toBe(4);
	});

	test('restore brings back exactly the state of the snapshot, as often as asked', async () => {
		await open.api.post('/list/create', { name: 'Kept', headers: ['A', 'B'] });
		await open.api.post('/list/rows/add', {
			list: 'Kept',
			rows: [
				['1', '2'],
				['3', '4'],
			],
		});
		const taken = await open.routes.post('/sandbox/snapshot');
		expect(taken.status).toBe(200);
		expect(taken.body.snapshot).toMatch(/^snap_\d+$/);
		const atSnapshot = await observe(open.api);
		const keptRows = (await open.api.get('/list/rows/get', { list: 'Kept' })).body;

		for (let round = 0; round < 2; round++) {
			await open.api.post('/list/clear', { list: 'Kept' });
			await open.api.post('/list/rows/add', { list: 'Leads', rows: [{ Name: `later ${round}` }] });
			await open.api.post('/subscriber/create', { botid: 'bot_wa', clientid: `later-${round}` });
			await open.api.post('/subscriber/delete', { botid: 'bot_tg', clientid: '100001', messenger: 'telegram' });
			expect(await observe(open.api)).not.toEqual(atSnapshot);

			expect((await open.routes.post('/sandbox/restore', { snapshot: taken.body.snapshot })).body).toEqual({
				ok: true,
				snapshot: taken.body.snapshot,
			});
			expect(await observe(open.api)).toEqual(atSnapshot);
			expect((await open.api.get('/list/rows/get', { list: 'Kept' })).body).toEqual(keptRows);
		}
	});

	test('restore of an unknown snapshot is a 422 and changes nothing', async () => {
		const before = await observe(open.api);
		for (const snapshot of ['snap_999999', 'nope', 12]) {
			const response = await open.routes.post('/sandbox/restore', { snapshot });
			expect(response.status).toBe(422);
			expect(response.body).toMatchObject({ code: 'not_found', param: 'snapshot' });
		}
		expect((await open.routes.post('/sandbox/restore', {})).body).toMatchObject({
			code: 'missing_param',
			param: 'snapshot',
		});
		expect(await observe(open.api)).toEqual(before);
	});

	test('startSandbox offers the same control to tests', async () => {
		const { control: direct } = open.sandbox;
		const snapshot = direct.snapshot();
		await open.api.post('/list/create', { name: 'Direct', headers: ['A'] });
		direct.restore(snapshot);
		expect((await open.api.get('/list/all')).body.items.map((list: { name: string }) => list.name)).not.toContain(
			'Direct',
		);
		direct.reset();
		expect((await open.api.get('/list/all')).body.items.map((list: { name: string }) => list.name)).toEqual(['Leads']);
	});
});

describe('sandbox control: snapshots are kept in the data file', () => {
	const dir = mkdtempSync(join(tmpdir(), 'sandbox-control-'));
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	test('a snapshot taken before a restart restores after it', async () => {
		const dataFile = join(dir, 'state.sqlite');
		const first = await openSandbox({ dataFile });
		const snapshot = first.sandbox.control.snapshot();
		await first.api.post('/list/rows/add', { list: 'Leads', rows: [{ Name: 'after snapshot' }] });
		await first.close();
		const second = await openSandbox({ dataFile });
		try {
			expect((await second.api.get('/list/rows/get', { list: 'Leads' })).body.total).toBe(4);
			expect(
				(await new TestClient(second.sandbox.url, second.sandbox.adminKey).post('/sandbox/restore', { snapshot }))
					.status,
			).toBe(200);
			expect((await second.api.get('/list/rows/get', { list: 'Leads' })).body.total).toBe(3);
		} finally {
			await second.close();
		}
	});
});

describe('sandbox control: deliveries and redelivery', () => {
	test('every attempt is shown with status, latency, headers, body and signature schemes; a given-up delivery can be sent again', async () => {
		let failing = true;
		const receiver = await TestReceiver.start(() => ({ status: failing ? 500 : 200 }));
		const open = await openSandbox({ retrySchedule: [0.05] });
		try {
			const { hook, secret } = (
				await open.api.post('/hook/create', { name: 'control', url: receiver.url, events: ['subscriber.new'] })
			).body;
			await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'control-1' });
			const givenUp = await eventually(async () => {
				const items = (await open.routes.get('/sandbox/deliveries', { hook: hook.id })).body.items;
				return items.length === 1 && items[0].status === 'failed' && items[0];
			});
			expect(receiver.received).toHaveLength(2);
			expect(givenUp).toMatchObject({
				hook: hook.id,
				type: 'subscriber.new',
				outcome: 'gave up after 2 attempts',
				body: receiver.received[0].body,
			});
			expect(givenUp.attempts).toHaveLength(2);
			for (const [index, attempt] of givenUp.attempts.entries()) {
				const sent = receiver.received[index];
				expect(attempt).toMatchObject({
					n: index + 1,
					status: 500,
					error: 'receiver answered 500',
					responseBody: '{}',
					schemes: ['jwt-HS256', 'standard-webhooks-v1'],
				});
				expect(attempt.latencyMs).toBeGreaterThan(0);
				expect(attempt.headers?.['x-signature']).toBe(sent.headers['x-signature']);
				expect(attempt.headers?.['webhook-signature']).toBe(sent.headers['webhook-signature']);
				expect(attempt.headers?.['content-type']).toBe('application/json');
			}
			// The API's own history does not show signatures.
			const apiView = (await open.api.get('/hook/deliveries', { hook: hook.id })).body.items[0];
			expect(Object.keys(apiView.attempts[0]).sort()).toEqual(['at', 'durationMs', 'error', 'id', 'n', 'status']);

			failing = false;
			const redelivered = await open.routes.post('/sandbox/deliveries/redeliver', { id: givenUp.id });
			expect(redelivered.status).toBe(200);
			expect(redelivered.body.delivery).toMatchObject({ id: givenUp.id, status: 'pending' });
			const third = (await receiver.waitFor(3))[2];
			expect(third.event.id).toBe(receiver.received[0].event.id);
			expect(third.body).toBe(receiver.received[0].body);
			await verifyDeliveryJwt(third, secretBytes(secret), 'HS256');
			verifyStandardWebhook(third, secret);
			const delivered = await eventually(async () => {
				const item = (await open.routes.get('/sandbox/deliveries', { hook: hook.id })).body.items[0];
				return item.status === 'delivered' && item;
			});
			expect(delivered.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200]);
			expect(delivered.outcome).toBe('receiver answered 200');

			// A delivered one may be sent again too; a failed redelivery finishes again instead of retrying.
			failing = true;
			await open.routes.post('/sandbox/deliveries/redeliver', { id: givenUp.id });
			const again = await eventually(async () => {
				const item = open.sandbox.control.deliveries({ hook: hook.id })[0];
				return item.status === 'failed' && item;
			});
			expect(again.attempts.map((attempt) => attempt.status)).toEqual([500, 500, 200, 500]);
			expect(again.outcome).toBe('redelivery failed: receiver answered 500');
			expect(receiver.received).toHaveLength(4);

			const unknown = await open.routes.post('/sandbox/deliveries/redeliver', { id: 'dlv_unknown' });
			expect([unknown.status, unknown.body]).toEqual([
				422,
				expect.objectContaining({ code: 'not_found', param: 'id' }),
			]);
			const missing = await open.routes.post('/sandbox/deliveries/redeliver', {});
			expect([missing.status, missing.body]).toEqual([
				422,
				expect.objectContaining({ code: 'missing_param', param: 'id' }),
			]);
			await open.api.post('/hook/delete', { id: hook.id });
			expect((await open.routes.post('/sandbox/deliveries/redeliver', { id: givenUp.id })).body).toMatchObject({
				code: 'hook_deleted',
				param: 'id',
			});
		} finally {
			await open.close();
			await receiver.close();
		}
	});

	test('a restore while an attempt is out reads the delivery again but sends it once; the attempt is recorded on it', async () => {
		const receiver = await TestReceiver.start(() => ({ status: 200, delayMs: 800 }));
		const open = await openSandbox({ retrySchedule: [0.05] });
		try {
			const { hook } = (
				await open.api.post('/hook/create', { name: 'slow', url: receiver.url, events: ['subscriber.new'] })
			).body;
			await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'restore-1' });
			await receiver.waitFor(1);
			const { snapshot } = (await open.routes.post('/sandbox/snapshot', {})).body;
			expect((await open.routes.post('/sandbox/restore', { snapshot })).status).toBe(200);
			const done = await eventually(() => {
				const [item] = open.sandbox.control.deliveries({ hook: hook.id });
				return item.status === 'delivered' && item;
			});
			expect(done.attempts).toHaveLength(1);
			expect(done.attempts[0].status).toBe(200);
			// Long enough for a second attempt to have arrived: the retry schedule is 50 ms.
			await new Promise((resolve) => setTimeout(resolve, 300));
			expect(receiver.received.map((delivery) => delivery.event.id)).toEqual([(done.event as { id: string }).id]);
		} finally {
			await open.close();
			await receiver.close();
		}
	});

	test('a redelivery while an attempt is under way is refused (409) instead of sending twice at once', async () => {
		const receiver = await TestReceiver.start(() => ({ status: 200, delayMs: 800 }));
		const open = await openSandbox({ retrySchedule: [0.05] });
		try {
			const { hook } = (
				await open.api.post('/hook/create', { name: 'slow', url: receiver.url, events: ['subscriber.new'] })
			).body;
			await open.api.post('/subscriber/create', { botid: 'bot_tg', clientid: 'slow-1' });
			await receiver.waitFor(1);
			const [delivery] = open.sandbox.control.deliveries({ hook: hook.id });
			const refused = await open.routes.post('/sandbox/deliveries/redeliver', { id: delivery.id });
			expect(refused.status).toBe(409);
			expect(refused.body).toMatchObject({ code: 'attempt_under_way', param: 'id' });
			const done = await eventually(() => {
				const [item] = open.sandbox.control.deliveries({ hook: hook.id });
				return item.status === 'delivered' && item;
			});
			expect(done.attempts).toHaveLength(1);
			expect(receiver.received).toHaveLength(1);
		} finally {
			await open.close();
			await receiver.close();
		}
	});
});
