import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import Redis from 'ioredis';
import { memoryDedupeStore, redisDedupeStore } from '../src';

describe('memoryDedupeStore', () => {
  it('claims an id once within its lifetime, and again after it expires', async () => {
    let now = 0;
    const store = memoryDedupeStore({ ttlSeconds: 10, now: () => now });
    expect(await store.claim('evt_1')).toBe(true);
    expect(await store.claim('evt_1')).toBe(false);
    now = 9_999;
    expect(await store.claim('evt_1')).toBe(false);
    now = 10_000;
    expect(await store.claim('evt_1')).toBe(true);
  });

  it('is bounded: the oldest ids are forgotten first and expired ones are dropped', async () => {
    let now = 0;
    const store = memoryDedupeStore({ maxEntries: 3, ttlSeconds: 60, now: () => now });
    for (const id of ['a', 'b', 'c', 'd']) await store.claim(id);
    expect(store.size).toBe(3);
    expect(await store.claim('a')).toBe(true);
    expect(await store.claim('d')).toBe(false);
    now = 61_000;
    await store.claim('e');
    expect(store.size).toBe(1);
  });

  it('expires each id at its own time, also after older ids were forgotten for room', async () => {
    let now = 0;
    const store = memoryDedupeStore({ maxEntries: 2, ttlSeconds: 10, now: () => now });
    expect(await store.claim('a')).toBe(true); // expires at 10 000
    now = 5_000;
    expect(await store.claim('b')).toBe(true); // expires at 15 000
    now = 6_000;
    expect(await store.claim('c')).toBe(true); // expires at 16 000; 'a' is forgotten for room
    now = 14_999;
    expect(await store.claim('b')).toBe(false);
    expect(store.size).toBe(2);
    now = 15_000;
    expect(await store.claim('b')).toBe(true);
    expect(await store.claim('c')).toBe(false);
    now = 16_000;
    expect(await store.claim('c')).toBe(true);
    now = 40_000;
    expect(await store.claim('d')).toBe(true);
    expect(store.size).toBe(1);
  });

  it('refuses bad options', () => {
    expect(() => memoryDedupeStore({ maxEntries: 0 })).toThrow('maxEntries must be a positive integer');
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
    const step = fc.oneof({ weight: 4, arbitrary: id.map((value) => ({ claim: value })) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 7_000 }).map((ms) => ({ wait: ms })) });
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
          expect(store.claim(action.claim)).toBe(first);
          expect(store.size).toBe(model.length);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('keeps every id of a full store of 100 000 apart (no collisions between similar ids)', () => {
    const store = memoryDedupeStore();
    const ids = Array.from({ length: 100_000 }, (_, i) => `evt_${i.toString(16).padStart(24, '0')}`);
    expect(ids.every((value) => store.claim(value))).toBe(true);
    expect(ids.every((value) => !store.claim(value))).toBe(true);
    expect(store.claim('evt_new')).toBe(true); // the oldest is forgotten for room
    expect(store.claim(ids[0])).toBe(true);
    expect(store.claim(ids[99_999])).toBe(false);
  });
});

describe('redisDedupeStore (real Redis on 127.0.0.1:6379)', () => {
  const prefix = `mbb:test:${randomUUID()}:`;
  let client: Redis;
  beforeAll(() => {
    client = new Redis('redis://127.0.0.1:6379', { lazyConnect: false });
  });
  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length) await client.del(...keys);
    await client.quit();
  });

  it('claims an id exactly once across many concurrent claimers with their own connections', async () => {
    const stores = Array.from({ length: 4 }, () => redisDedupeStore({ url: 'redis://127.0.0.1:6379', prefix }));
    try {
      const ids = Array.from({ length: 50 }, (_, i) => `evt_race_${i}`);
      const results = await Promise.all(ids.flatMap((id) => stores.map((store) => store.claim(id).then((won) => (won ? id : null)))));
      const winners = results.filter((id) => id !== null);
      expect(winners.sort()).toEqual([...ids].sort());
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('uses a shared client, and the key expires after ttlSeconds', async () => {
    const store = redisDedupeStore({ client, prefix, ttlSeconds: 60 });
    expect(await store.claim('evt_ttl')).toBe(true);
    expect(await store.claim('evt_ttl')).toBe(false);
    const ttl = await client.ttl(`${prefix}evt_ttl`);
    expect(ttl).toBeGreaterThan(50);
    expect(ttl).toBeLessThanOrEqual(60);
    await store.close();
    expect(client.status).toBe('ready');
  });

  it('rejects (so the receiver answers 503) when Redis cannot be reached', async () => {
    const store = redisDedupeStore({ url: 'redis://127.0.0.1:1', prefix });
    try {
      await expect(store.claim('evt_down')).rejects.toThrow();
    } finally {
      await store.close().catch(() => undefined);
    }
  });

  it('refuses bad options', () => {
    expect(() => redisDedupeStore({})).toThrow('redisDedupeStore needs client or url');
    expect(() => redisDedupeStore({ client, ttlSeconds: 1.5 })).toThrow('ttlSeconds must be a positive whole number');
  });
});
