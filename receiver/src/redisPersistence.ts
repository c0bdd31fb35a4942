import type { LogFields, ReceiverLogger } from './observability/logger';
import { withTimeout, type RedisCommandClient } from './redisConnection';

/** What a restart of a Redis would forget, by its log code. */
export interface PersistenceWarning {
	code: Extract<LogFields['code'], `redis.persistence_${string}`>;
	message: string;
}

/** The least time the persistence check gives each of its commands. */
const PERSISTENCE_CHECK_TIMEOUT_MS = 10_000;

/**
 * Reads `INFO persistence` (and `CONFIG GET save` when AOF is off, `CONFIG GET appendfsync` when it is on) and says
 * what a restart of this Redis would forget, or nothing when its AOF is synced `always` or `everysec` (at most the
 * last second, on a power cut) or when a command is refused (managed Redis often refuses CONFIG: then we cannot
 * tell, and stay silent). `appendfsync no` is warned about: the OS flushes when it likes (typically every 30 s), so
 * a power cut or an OS crash forgets what it had not flushed.
 */
export async function persistenceWarning(
	client: RedisCommandClient,
	commandTimeoutMs: number,
	what: string,
): Promise<PersistenceWarning | undefined> {
	// A check at start, off every delivery's path: the first command also waits for the connection, which a busy
	// machine can make slower than a delivery's command timeout; a check that timed out would say nothing.
	const timeoutMs = Math.max(commandTimeoutMs, PERSISTENCE_CHECK_TIMEOUT_MS);
	let info: string;
	let save: string;
	try {
		info = String(await withTimeout(client.call('INFO', 'persistence'), timeoutMs, 'INFO persistence'));
		if (/^aof_enabled:1\s*$/m.test(info)) {
			const fsync = (await withTimeout(
				client.call('CONFIG', 'GET', 'appendfsync'),
				timeoutMs,
				'CONFIG GET appendfsync',
			)) as unknown[];
			if (!Array.isArray(fsync) || String(fsync[1]) !== 'no') return undefined;
			return {
				code: 'redis.persistence_fsync_no',
				message: `the Redis used by the ${what} has AOF with "appendfsync no": the OS flushes it when it likes (typically every 30 s), so a power cut or an OS crash forgets the writes not yet flushed. Use "appendfsync always" (see the receiver README).`,
			};
		}
		const reply = (await withTimeout(client.call('CONFIG', 'GET', 'save'), timeoutMs, 'CONFIG GET save')) as unknown[];
		if (!Array.isArray(reply) || reply.length < 2) return undefined;
		save = String(reply[1]).trim();
	} catch {
		return undefined;
	}
	if (save === '') {
		return {
			code: 'redis.persistence_none',
			message: `the Redis used by the ${what} keeps nothing across restarts (no AOF, no RDB snapshots): a restart forgets everything it holds. Enable "appendonly yes" with "appendfsync always" (see the receiver README).`,
		};
	}
	return {
		code: 'redis.persistence_snapshots_only',
		message: `the Redis used by the ${what} only takes RDB snapshots ("save ${save}"): a crash forgets what changed since the last one. Enable "appendonly yes" with "appendfsync always" (see the receiver README).`,
	};
}

/** Where the one persistence warning goes: `onWarning` when given (the line as printed), else the logger. */
export interface PersistenceReport {
	onWarning: ((message: string) => void) | false | undefined;
	logger: ReceiverLogger;
}

/**
 * The one warning given when the Redis behind `client` keeps nothing (or only snapshots) across restarts; `onWarning:
 * false` skips the check. Resolves to the warning's line (`[receiver] ...`), as the default logger prints it.
 */
export function reportPersistence(
	client: Promise<RedisCommandClient>,
	timeoutMs: number,
	what: string,
	{ onWarning, logger }: PersistenceReport,
): Promise<string | undefined> {
	if (onWarning === false) return Promise.resolve(undefined);
	return client.then(
		async (redis) => {
			const warning = await persistenceWarning(redis, timeoutMs, what);
			if (!warning) return undefined;
			const line = `[receiver] ${warning.message}`;
			if (onWarning) onWarning(line);
			else logger.warn(warning.message, { code: warning.code });
			return line;
		},
		() => undefined,
	);
}
