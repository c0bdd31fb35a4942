import { createHash, randomUUID } from 'node:crypto';
import {
	closeOwned,
	connectRedis,
	DEFAULT_COMMAND_TIMEOUT_MS,
	RedisTimeoutError,
	withTimeout,
	type OwnedRedisClient,
	type RedisCommandClient,
} from '../redisConnection';
import { DEFAULT_LOGGER } from '../observability/consoleLogger';
import { loggerOf, type ReceiverLogger } from '../observability/logger';
import { positiveNumber } from '../options';
import { reportPersistence } from '../redisPersistence';
import { DEFAULT_DEDUPE_TTL_SECONDS, DONE, IN_PROGRESS, type BeginOutcome, type DedupeStore } from './store';

export interface RedisDedupeStoreOptions {
	/** An existing `ioredis` client or cluster (shared with the application); or give `url`. */
	client?: RedisCommandClient;
	/** Redis URL; `ioredis` (an optional peer dependency) is loaded on first use to connect to it. */
	url?: string;
	/** Key prefix (default `mbb:receiver:event:`). */
	prefix?: string;
	/** How long a done id is remembered, in seconds (default 24 h). */
	ttlSeconds?: number;
	/** Longest wait for one Redis command before the delivery is answered 503 (default 2000 ms). */
	commandTimeoutMs?: number;
	/**
	 * Receives the one warning given when this Redis keeps nothing (or only snapshots) across restarts, as a line.
	 * Default: the logger's `warn`; `false` skips the check.
	 */
	onWarning?: ((message: string) => void) | false;
	/** Where this store's lines go (see docs/observability.md). Default: the console, as `[receiver] ...` lines. */
	logger?: ReceiverLogger;
}

export interface RedisDedupeStore extends DedupeStore {
	begin(eventId: string, leaseMs: number): Promise<BeginOutcome>;
	renew(eventId: string, token: string, leaseMs: number): Promise<boolean>;
	complete(eventId: string, token: string): Promise<boolean>;
	release(eventId: string, token: string): Promise<void>;
	/** Closes the connection this store opened from `url` (a given `client` is left open). */
	close(): Promise<void>;
	/** Resolves once the persistence check is done, with the warning it gave (tests, start-up logs). */
	readonly persistenceChecked: Promise<string | undefined>;
}

/**
 * A key holds `lease:<token>` (PX = the lease) while in progress, `done` (EX = the dedupe window) once done. Every
 * change after `begin` is checked against the token: only the lease's holder renews, releases or completes it
 * (`complete` also when the lease lapsed and nobody took it; it answers 0 when another delivery holds or completed
 * the event).
 */
const SCRIPTS = {
	begin: `local v = redis.call('GET', KEYS[1])
if v then
  if string.sub(v, 1, 6) == 'lease:' then return 'in_progress' end
  return 'done'
end
redis.call('SET', KEYS[1], 'lease:' .. ARGV[1], 'PX', ARGV[2])
return 'acquired'`,
	renew: `if redis.call('GET', KEYS[1]) == 'lease:' .. ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`,
	release: `if redis.call('GET', KEYS[1]) == 'lease:' .. ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
	complete: `local v = redis.call('GET', KEYS[1])
if v == 'lease:' .. ARGV[1] or not v then
  redis.call('SET', KEYS[1], 'done', 'EX', ARGV[2])
  return 1
end
return 0`,
} as const;

type ScriptName = keyof typeof SCRIPTS;
const SHAS = Object.fromEntries(
	Object.entries(SCRIPTS).map(([name, source]) => [name, createHash('sha1').update(source).digest('hex')]),
) as Record<ScriptName, string>;

type ScriptArgs = (string | number)[];

/** Runs the store's scripts on one event's key: `untimed` as the client runs them, `timed` within the command timeout. */
interface ScriptRunner {
	untimed(name: ScriptName, eventId: string, ...args: ScriptArgs): Promise<unknown>;
	timed(name: ScriptName, eventId: string, ...args: ScriptArgs): Promise<unknown>;
}

function scriptRunner(client: Promise<RedisCommandClient>, prefix: string, timeoutMs: number): ScriptRunner {
	/** A script as the client runs it, with no timeout: it settles whenever Redis (or the client) gives up or answers. */
	const untimed = async (name: ScriptName, eventId: string, ...args: ScriptArgs): Promise<unknown> => {
		const redis = await client;
		try {
			return await redis.call('EVALSHA', SHAS[name], 1, prefix + eventId, ...args);
		} catch (error) {
			if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
			return redis.call('EVAL', SCRIPTS[name], 1, prefix + eventId, ...args);
		}
	};
	return {
		untimed,
		timed: (name, eventId, ...args) => withTimeout(untimed(name, eventId, ...args), timeoutMs, name),
	};
}

/** Where the store's Redis is: a client given by the application, or a URL to connect to. */
type RedisSource = { client: RedisCommandClient; url?: undefined } | { client?: undefined; url: string };

function redisSourceOf(options: RedisDedupeStoreOptions): RedisSource {
	const needs = () => new TypeError('redisDedupeStore needs client or url');
	if (!options) throw needs();
	const { client, url } = options;
	if (client) {
		if (typeof client.call !== 'function')
			throw new TypeError('redisDedupeStore: client must be an ioredis client (with call())');
		return { client };
	}
	if (!url) throw needs();
	return { url };
}

/** The client to use, and the connection this store opened itself (from a URL), which `close` closes. */
function connectionOf(source: RedisSource): {
	client: Promise<RedisCommandClient>;
	owned?: Promise<OwnedRedisClient>;
} {
	if (source.client) return { client: Promise.resolve(source.client) };
	const owned = connectRedis(source.url, 'redisDedupeStore');
	// Avoid an unhandled rejection when nothing has used the store yet; each command reports the failure.
	owned.catch(() => undefined);
	return { client: owned, owned };
}

/** A begin that timed out took the lease after all: give it back, so that the event's next delivery is processed. */
function releaseOrphan(scripts: ScriptRunner, logger: ReceiverLogger, eventId: string, token: string): Promise<void> {
	return scripts.timed('release', eventId, token).then(
		(released) => {
			if (released === 1)
				logger.warn(`a begin on event ${eventId} that timed out took the lease when Redis answered; released it`, {
					code: 'redis.orphan_lease_released',
					eventId,
				});
		},
		(error: unknown) =>
			logger.error(
				`a begin on event ${eventId} that timed out took the lease later and it could not be released; it lapses by itself`,
				{ code: 'redis.orphan_lease_release_failed', error, eventId },
			),
	);
}

/** Takes the lease; a begin that times out is watched, and a lease it takes later is released. */
async function begin(
	scripts: ScriptRunner,
	logger: ReceiverLogger,
	timeoutMs: number,
	eventId: string,
	leaseMs: number,
): Promise<BeginOutcome> {
	const token = randomUUID();
	const running = scripts.untimed('begin', eventId, token, Math.ceil(leaseMs));
	let state: unknown;
	try {
		state = await withTimeout(running, timeoutMs, 'begin');
	} catch (error) {
		if (error instanceof RedisTimeoutError) {
			running.then(
				(late) => (late === 'acquired' ? releaseOrphan(scripts, logger, eventId, token) : undefined),
				() => undefined,
			);
		}
		throw error;
	}
	if (state === 'acquired') return { state, token };
	return state === 'in_progress' ? IN_PROGRESS : DONE;
}

/**
 * Shared store for several receiver processes: each state change is one atomic script on one key, so at most one
 * delivery holds a live lease on an event at any moment, and an expired lease frees the event for its next delivery.
 * A lease can lapse while its holder still runs (Redis stalled longer than the lease): the receiver then aborts that
 * run's `signal`, and its `complete` is refused (answers false) if another delivery took the event meanwhile.
 *
 * A `begin` that times out is not forgotten: the command stays queued in the client (and ioredis re-sends it after a
 * reconnect), so it may still take the lease once Redis answers. Its outcome is watched, and a lease it took is
 * released at once (token-checked), so that nobody is left waiting on a lease that nobody holds.
 */
export function redisDedupeStore(options: RedisDedupeStoreOptions): RedisDedupeStore {
	const source = redisSourceOf(options);
	const prefix = options.prefix ?? 'mbb:receiver:event:';
	const ttlSeconds = options.ttlSeconds ?? DEFAULT_DEDUPE_TTL_SECONDS;
	if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1)
		throw new TypeError('ttlSeconds must be a positive whole number');
	const timeoutMs = positiveNumber(options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS, 'commandTimeoutMs');
	const { client, owned } = connectionOf(source);
	const scripts = scriptRunner(client, prefix, timeoutMs);
	const logger = loggerOf(options.logger, DEFAULT_LOGGER);
	const persistenceChecked = reportPersistence(client, timeoutMs, 'deduplication store', {
		onWarning: options.onWarning,
		logger,
	});

	return {
		persistenceChecked,
		begin: (eventId, leaseMs) => begin(scripts, logger, timeoutMs, eventId, leaseMs),
		async renew(eventId, token, leaseMs) {
			return (await scripts.timed('renew', eventId, token, Math.ceil(leaseMs))) === 1;
		},
		async complete(eventId, token) {
			return (await scripts.timed('complete', eventId, token, ttlSeconds)) === 1;
		},
		async release(eventId, token) {
			await scripts.timed('release', eventId, token);
		},
		async close() {
			await persistenceChecked;
			if (owned) await closeOwned(await owned);
		},
	};
}
