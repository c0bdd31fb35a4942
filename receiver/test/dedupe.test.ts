import { randomUUID } from 'node:crypto';
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
