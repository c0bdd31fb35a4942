import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import Redis from 'ioredis';
import { testRedis } from '../../test/support/testRedis';
import { memoryDedupeStore, redisDedupeStore, type DedupeStore } from '../src';

const LEASE_MS = 30_000;

/** Processes `id` at once: true when this caller ran it (took the lease and completed), false when done or leased. */
function processOnce(store: ReturnType<typeof memoryDedupeStore>, id: string): boolean {
	const outcome = store.begin(id, LEASE_MS);
	if (outcome.state !== 'acquired') return false;
	store.complete(id, outcome.token);
	return true;
}

async function processOnceAsync(store: DedupeStore, id: string): Promise<boolean> {
	const outcome = await store.begin(id, LEASE_MS);
	if (outcome.state !== 'acquired') return false;
	await store.complete(id, outcome.token);
	return true;
}

describe('memoryDedupeStore: processing state', () => {
	it('leases an event, refuses a second lease while it lives, and records it as done', () => {
		let now = 0;
		const store = memoryDedupeStore({ ttlSeconds: 60, now: () => now });
		const first = store.begin('evt_1', 1000);
		expect(first.state).toBe('acquired');
		expect(store.begin('evt_1', 1000)).toEqual({ state: 'in_progress' });
		now = 999;
		expect(store.begin('evt_1', 1000)).toEqual({ state: 'in_progress' });
		store.complete('evt_1', (first as { token: string }).token);
		expect(store.begin('evt_1', 1000)).toEqual({ state: 'done' });
		expect(store.leased).toBe(0);
	});

	it('a lease that expires without completion frees the event; the old holder can no longer renew or release it', () => {
		let now = 0;
		const store = memoryDedupeStore({ now: () => now });
		const first = store.begin('evt_1', 1000) as { state: 'acquired'; token: string };
		now = 500;
		expect(store.renew('evt_1', first.token, 1000)).toBe(true); // now lives until 1500
		now = 1499;
		expect(store.begin('evt_1', 1000).state).toBe('in_progress');
		now = 1500;
		const second = store.begin('evt_1', 1000) as { state: 'acquired'; token: string };
		expect(second.state).toBe('acquired');
		expect(second.token).not.toBe(first.token);
		expect(store.renew('evt_1', first.token, 1000)).toBe(false);
		store.release('evt_1', first.token); // the stale holder must not free the new lease
		expect(store.begin('evt_1', 1000).state).toBe('in_progress');
		store.release('evt_1', second.token);
		expect(store.begin('evt_1', 1000).state).toBe('acquired');
	});

	it('leases held for long keep their state, tokens and expiry while thousands of others begin and end around them', () => {
		let now = 0;
		const store = memoryDedupeStore({ ttlSeconds: 3600, now: () => now });
		const held = Array.from({ length: 10 }, (_, index) => {
			const outcome = store.begin(`evt_held_${index}`, 60_000) as { state: 'acquired'; token: string };
			expect(outcome.state).toBe('acquired');
			return { id: `evt_held_${index}`, token: outcome.token };
		});
		// Far more endings than the store replaces its lease table after (twice the leases held plus 256), both ways.
		for (let index = 0; index < 3000; index += 1) {
			now += 1;
			const id = `evt_churn_${index}`;
			const outcome = store.begin(id, 60_000) as { state: 'acquired'; token: string };
			expect(outcome.state).toBe('acquired');
			if (index % 2 === 0) expect(store.complete(id, outcome.token)).toBe(true);
			else store.release(id, outcome.token);
		}
		expect(store.leased).toBe(10);
		for (const { id } of held) {
			expect(store.begin(id, 60_000)).toEqual({ state: 'in_progress' });
			expect(store.renew(id, 'not the token', 60_000)).toBe(false);
			expect(store.complete(id, 'not the token')).toBe(false);
		}
		// Their expiry survived too: at 60 000 ms after they began (now is 3 000) they lapse, not before.
		now = 59_999;
		expect(store.begin(held[0].id, 60_000)).toEqual({ state: 'in_progress' });
		for (const { id, token } of held.slice(1)) expect(store.complete(id, token)).toBe(true);
		now = 60_000;
		expect(store.begin(held[0].id, 60_000).state).toBe('acquired');
		expect(store.begin('evt_churn_0', 60_000)).toEqual({ state: 'done' });
		expect(store.begin('evt_churn_1', 60_000).state).toBe('acquired');
		expect(store.size).toBe(1500 + 9);
	});
});

describe('memoryDedupeStore', () => {
	it('claims an id once within its lifetime, and again after it expires', async () => {
		let now = 0;
		const store = memoryDedupeStore({ ttlSeconds: 10, now: () => now });
		expect(processOnce(store, 'evt_1')).toBe(true);
		expect(processOnce(store, 'evt_1')).toBe(false);
		now = 9_999;
		expect(processOnce(store, 'evt_1')).toBe(false);
		now = 10_000;
		expect(processOnce(store, 'evt_1')).toBe(true);
	});

	it('is bounded: the oldest ids are forgotten first and expired ones are dropped', async () => {
		let now = 0;
		const store = memoryDedupeStore({ maxEntries: 3, ttlSeconds: 60, now: () => now });
		for (const id of ['a', 'b', 'c', 'd']) processOnce(store, id);
		expect(store.size).toBe(3);
		expect(processOnce(store, 'a')).toBe(true);
		expect(processOnce(store, 'd')).toBe(false);
		now = 61_000;
		processOnce(store, 'e');
		expect(store.size).toBe(1);
	});

	it('expires each id at its own time, also after older ids were forgotten for room', async () => {
		let now = 0;
		const store = memoryDedupeStore({ maxEntries: 2, ttlSeconds: 10, now: () => now });
		expect(processOnce(store, 'a')).toBe(true); // expires at 10 000
		now = 5_000;
		expect(processOnce(store, 'b')).toBe(true); // expires at 15 000
		now = 6_000;
		expect(processOnce(store, 'c')).toBe(true); // expires at 16 000; 'a' is forgotten for room
		now = 14_999;
		expect(processOnce(store, 'b')).toBe(false);
		expect(store.size).toBe(2);
		now = 15_000;
		expect(processOnce(store, 'b')).toBe(true);
		expect(processOnce(store, 'c')).toBe(false);
		now = 16_000;
		expect(processOnce(store, 'c')).toBe(true);
		now = 40_000;
		expect(processOnce(store, 'd')).toBe(true);
		expect(store.size).toBe(1);
	});

	it('refuses bad options', () => {
		expect(() => memoryDedupeStore({ maxEntries: 0 })).toThrow(
			'maxEntries must be a positive integer of at most 16777216',
		);
		expect(() => memoryDedupeStore({ maxEntries: 2 ** 24 + 1 })).toThrow(
			'maxEntries must be a positive integer of at most 16777216',
		);
		expect(() => memoryDedupeStore({ maxEntries: 2.5 })).toThrow(
			'maxEntries must be a positive integer of at most 16777216',
		);
		expect(() => memoryDedupeStore({ ttlSeconds: 0 })).toThrow('ttlSeconds must be a positive number');
	});

	it('answers like a plain list of remembered ids, whatever the ids, clock and bound (fast-check)', () => {
		// Ids with equal hashes (FNV-1a collisions), long ones and non-ASCII ones (kept as strings), prefixes of others.
		const id = fc.oneof(
			fc.constantFrom('costarring', 'liquid', 'declinate', 'macallums', 'altarage', 'zinke'),
			fc.constantFrom('evt_1', 'evt_10', 'evt_2', 'evt_é', 'evt_😀', 'e', ''),
			fc.string({ maxLength: 8 }),
			fc.string({ minLength: 60, maxLength: 70 }),
			fc.integer({ min: 0, max: 40 }).map((n) => `evt_${n}`),
		);
		const step = fc.oneof(
			{ weight: 4, arbitrary: id.map((value) => ({ claim: value })) },
			{ weight: 1, arbitrary: fc.integer({ min: 0, max: 7_000 }).map((ms) => ({ wait: ms })) },
		);
		fc.assert(
			fc.property(fc.integer({ min: 1, max: 2_100 }), fc.array(step, { maxLength: 3_000 }), (maxEntries, steps) => {
				let now = 0;
				const ttlMs = 10_000;
				const store = memoryDedupeStore({ maxEntries, ttlSeconds: ttlMs / 1000, now: () => now });
				// The model: remembered ids oldest first, each with its expiry.
				let model: { id: string; expiresAt: number }[] = [];
				for (const action of steps) {
					if ('wait' in action) {
						now += action.wait;
						continue;
					}
					model = model.filter((entry) => entry.expiresAt > now);
					const first = !model.some((entry) => entry.id === action.claim);
					if (first) model.push({ id: action.claim, expiresAt: now + ttlMs });
					if (model.length > maxEntries) model.shift();
					expect(processOnce(store, action.claim)).toBe(first);
					expect(store.size).toBe(model.length);
				}
			}),
			{ numRuns: 60 },
		);
	});

	it('keeps every id, in order of age, while its ring wraps around as the oldest expire, and once it is full', () => {
		let now = 0;
		const ttlMs = 1_000;
		const maxEntries = 3_000;
		const store = memoryDedupeStore({ maxEntries, ttlSeconds: ttlMs / 1000, now: () => now });
		// Every 7th id is not ASCII and every 11th longer than a slot: both are kept as strings, by entry.
		const idOf = (n: number) => (n % 7 === 0 ? `evt_é${n}` : n % 11 === 0 ? `evt_${n}_${'x'.repeat(70)}` : `evt_${n}`);
		// The model: id → expiry, oldest first (a Map keeps insertion order).
		const model = new Map<string, number>();
		let next = 0;
		// 1, 2, then 4 claims a millisecond with a 1 s TTL: the ids kept grow from under 1 024 to under 2 048, then to the
		// bound; each growth comes after the oldest ids expired and the ring's start moved, so its slots wrap around.
		const phases: [perMs: number, ms: number, fewest: number, most: number][] = [
			[1, 1_500, 600, 1_024],
			[2, 1_500, 1_025, 2_048],
			[4, 1_500, maxEntries, maxEntries],
		];
		let added = 0;
		for (const [perMs, ms, fewest, most] of phases) {
			for (let t = 0; t < ms; t += 1) {
				now += 1;
				for (const [id, expiresAt] of model) {
					if (expiresAt > now) break;
					model.delete(id);
				}
				for (let k = 0; k < perMs; k += 1) {
					// Every third millisecond, one claim repeats an id claimed about 0.5 s (still kept) or 1.2 s ago (expired).
					const id = k === 0 && t % 3 === 0 ? idOf(next - (t % 2 === 0 ? 500 : 1_200) * perMs) : idOf(next++);
					const first = !model.has(id);
					if (first) {
						added += 1;
						model.set(id, now + ttlMs);
						if (model.size > maxEntries) model.delete(model.keys().next().value!);
					}
					expect(processOnce(store, id)).toBe(first);
				}
			}
			expect(model.size).toBeGreaterThanOrEqual(fewest);
			expect(model.size).toBeLessThanOrEqual(most);
			expect(store.size).toBe(model.size);
			for (const id of model.keys()) expect(store.begin(id, LEASE_MS).state).toBe('done');
		}
		// Both kinds of repeat happened: 9 000 new ids (10 500 claims, 1 500 repeats), and some repeats claimed again.
		expect(next).toBe(9_000);
		expect(added).toBeGreaterThan(next);
	});

	it('keeps every id of a full store of 100 000 apart (no collisions between similar ids)', () => {
		const store = memoryDedupeStore();
		const ids = Array.from({ length: 100_000 }, (_, i) => `evt_${i.toString(16).padStart(24, '0')}`);
		expect(ids.every((value) => processOnce(store, value))).toBe(true);
		expect(ids.every((value) => !processOnce(store, value))).toBe(true);
		expect(processOnce(store, 'evt_new')).toBe(true); // the oldest is forgotten for room
		expect(processOnce(store, ids[0])).toBe(true);
		expect(processOnce(store, ids[99_999])).toBe(false);
	});
});

describe('redisDedupeStore (the shared Redis of the tests, TEST_REDIS_URL)', () => {
	const prefix = `mbb:test:${randomUUID()}:`;
	let client: Redis;
	beforeAll(() => {
		client = new Redis(testRedis().url, { lazyConnect: false });
	});
	afterAll(async () => {
		const keys = await client.keys(`${prefix}*`);
		if (keys.length) await client.del(...keys);
		await client.quit();
	});

	it('claims an id exactly once across many concurrent claimers with their own connections', async () => {
		const stores = Array.from({ length: 4 }, () =>
			redisDedupeStore({ url: testRedis().url, prefix, onWarning: false }),
		);
		try {
			const ids = Array.from({ length: 50 }, (_, i) => `evt_race_${i}`);
			const results = await Promise.all(
				ids.flatMap((id) => stores.map((store) => processOnceAsync(store, id).then((won) => (won ? id : null)))),
			);
			const winners = results.filter((id) => id !== null);
			expect(winners.sort()).toEqual([...ids].sort());
		} finally {
			await Promise.all(stores.map((store) => store.close()));
		}
	});

	it('uses a shared client, and the key expires after ttlSeconds', async () => {
		const store = redisDedupeStore({ client, prefix, ttlSeconds: 60, onWarning: false });
		expect(await processOnceAsync(store, 'evt_ttl')).toBe(true);
		expect(await processOnceAsync(store, 'evt_ttl')).toBe(false);
		const ttl = await client.ttl(`${prefix}evt_ttl`);
		expect(ttl).toBeGreaterThan(50);
		expect(ttl).toBeLessThanOrEqual(60);
		await store.close();
		expect(client.status).toBe('ready');
	});

	it('rejects (so the receiver answers 503) when Redis cannot be reached', async () => {
		const store = redisDedupeStore({ url: 'redis://127.0.0.1:1', prefix });
		try {
			await expect(store.begin('evt_down', LEASE_MS)).rejects.toThrow();
		} finally {
			await store.close().catch(() => undefined);
		}
	});

	it('keeps a lease for leaseMs, renews it for its holder only, and frees the event when it lapses', async () => {
		const store = redisDedupeStore({ client, prefix, onWarning: false });
		const first = await store.begin('evt_lease', 300);
		expect(first.state).toBe('acquired');
		const token = (first as { token: string }).token;
		expect(await store.begin('evt_lease', 300)).toEqual({ state: 'in_progress' });
		expect(await store.renew('evt_lease', 'someone-else', 300)).toBe(false);
		expect(await store.renew('evt_lease', token, 300)).toBe(true);
		const pttl = await client.pttl(`${prefix}evt_lease`);
		expect(pttl).toBeGreaterThan(0);
		expect(pttl).toBeLessThanOrEqual(300);
		await new Promise((resolve) => setTimeout(resolve, pttl + 50));
		const second = await store.begin('evt_lease', 5000);
		expect(second.state).toBe('acquired');
		await store.release('evt_lease', token); // stale holder: no effect
		expect((await store.begin('evt_lease', 5000)).state).toBe('in_progress');
		await store.release('evt_lease', (second as { token: string }).token);
		const third = await store.begin('evt_lease', 5000);
		expect(third.state).toBe('acquired');
		await store.complete('evt_lease', (third as { token: string }).token);
		expect(await store.begin('evt_lease', 5000)).toEqual({ state: 'done' });
		expect(await client.get(`${prefix}evt_lease`)).toBe('done');
	});

	it('refuses bad options', () => {
		expect(() => redisDedupeStore({})).toThrow('redisDedupeStore needs client or url');
		expect(() => redisDedupeStore({ client, ttlSeconds: 1.5 })).toThrow('ttlSeconds must be a positive whole number');
	});
});
