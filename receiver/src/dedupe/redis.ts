import { DEFAULT_DEDUPE_TTL_SECONDS, type DedupeStore } from './store';

/** The one command the store needs; an `ioredis` client (or cluster) has it. */
export interface RedisSetNxClient {
  set(key: string, value: string, expiryMode: 'EX', seconds: number, mode: 'NX'): Promise<string | null>;
}

export interface RedisDedupeStoreOptions {
  /** An existing `ioredis` client (shared with the application); or give `url`. */
  client?: RedisSetNxClient;
  /** Redis URL; `ioredis` (an optional peer dependency) is loaded on first use to connect to it. */
  url?: string;
  /** Key prefix (default `mbb:receiver:event:`). */
  prefix?: string;
  /** How long an id is remembered, in seconds (default 24 h). */
  ttlSeconds?: number;
}

export interface RedisDedupeStore extends DedupeStore {
  claim(eventId: string): Promise<boolean>;
  /** Closes the connection this store opened from `url` (a given `client` is left open). */
  close(): Promise<void>;
}

type OwnedClient = RedisSetNxClient & { status: string; quit(): Promise<unknown>; disconnect(): void };

async function connect(url: string): Promise<OwnedClient> {
  let Redis: typeof import('ioredis').default;
  try {
    Redis = (await import('ioredis')).default;
  } catch (error) {
    throw new Error('redisDedupeStore({ url }) needs the "ioredis" package: npm install ioredis', { cause: error });
  }
  // Fail fast while Redis is down (the receiver then answers 503 and the sender retries) but reconnect by itself.
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  // Connection errors reach callers as rejected claims; without a listener ioredis would also print each one.
  redis.on('error', () => undefined);
  return redis;
}

/**
 * Shared store for several receiver processes: `SET key 1 EX ttl NX` claims an id atomically, so exactly one
 * process emits each event.
 */
export function redisDedupeStore(options: RedisDedupeStoreOptions): RedisDedupeStore {
  if (!options || (!options.client && !options.url)) throw new TypeError('redisDedupeStore needs client or url');
  const prefix = options.prefix ?? 'mbb:receiver:event:';
  const ttlSeconds = options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1) throw new TypeError('ttlSeconds must be a positive whole number');
  const owned = options.client ? undefined : connect(options.url!);
  const client: Promise<RedisSetNxClient> = options.client ? Promise.resolve(options.client) : owned!;
  // Avoid an unhandled rejection when nothing has claimed yet; claim() reports the failure.
  owned?.catch(() => undefined);

  return {
    async claim(eventId) {
      const answer = await (await client).set(prefix + eventId, '1', 'EX', ttlSeconds, 'NX');
      return answer === 'OK';
    },
    async close() {
      if (!owned) return;
      const redis = await owned;
      // QUIT needs a live connection; otherwise stop reconnecting at once.
      if (redis.status === 'ready') await redis.quit();
      else redis.disconnect();
    },
  };
}
