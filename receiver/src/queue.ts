import { createHash } from 'node:crypto';
import type { JobsOptions, Queue } from 'bullmq';
import type { DeliveryEvent } from '../../nodes/shared/delivery';
import type { DeliveryContext } from './listeners';
import { DEFAULT_LOGGER } from './observability/consoleLogger';
import { loggerOf, type ReceiverLogger } from './observability/logger';
import { positiveNumber } from './options';
import {
	connectEndingRedis,
	DEFAULT_COMMAND_TIMEOUT_MS,
	withTimeout,
	type EndingRedis,
	type RedisCommandClient,
} from './redisConnection';
import { reportPersistence } from './redisPersistence';
import type { VerifiedDelivery } from './nodeVerifier';

/** Where the queue lives. Keep `prefix` apart from other BullMQ users of the same Redis (n8n uses `bull`). */
export interface QueueLocation {
	/** Redis URL (`ioredis`, an optional peer dependency, connects to it). */
	url: string;
	/** BullMQ key prefix (default `mbb-receiver`). */
	prefix?: string;
	/** Queue name (default `deliveries`). */
	name?: string;
}

export interface DeliveryQueueOptions extends QueueLocation {
	/** Listener runs per event before it goes to the dead-letter set (default 8). */
	attempts?: number;
	/** First retry delay, doubled at each retry (default 1000 ms: the 8th run comes about 2 minutes after the first). */
	backoffMs?: number;
	/** How long a completed event is kept, so that its redeliveries are recognised (default 24 h: the dedupe window). */
	keepCompletedSeconds?: number;
	/** Longest wait for Redis to take an event before the delivery is answered 503 (default 2000 ms). */
	commandTimeoutMs?: number;
	/**
	 * Receives the one warning given when this Redis keeps nothing (or only snapshots) across restarts, as a line;
	 * `false`: no check. Default: the logger's `warn`.
	 */
	onWarning?: ((message: string) => void) | false;
	/** Where the queue's lines go (see docs/observability.md). Default: the console, as `[receiver] ...` lines. */
	logger?: ReceiverLogger;
}

/** Where a receiver with `acknowledge: 'queue'` puts verified events. */
export interface DeliveryQueue {
	/**
	 * Resolves once Redis holds the event (adding an event already held, done or dead-lettered changes nothing).
	 * `traceparent`: the delivery span's W3C trace context, kept in the job for the worker's span to link to.
	 */
	enqueue(delivery: VerifiedDelivery, traceparent?: string): Promise<void>;
	close(): Promise<void>;
	/** Resolves once the persistence check is done, with the warning it gave. */
	readonly persistenceChecked: Promise<string | undefined>;
}

/** What a job holds: the verified event and how it was verified. */
export interface QueuedDelivery {
	event: DeliveryEvent;
	scheme: DeliveryContext['scheme'];
	attemptId?: string;
	/** The W3C `traceparent` of the delivery's span, when an OpenTelemetry SDK recorded it. */
	traceparent?: string;
}

export const DEFAULT_QUEUE_PREFIX = 'mbb-receiver';
export const DEFAULT_QUEUE_ATTEMPTS = 8;
export const DEFAULT_QUEUE_BACKOFF_MS = 1000;
/** Completed jobs are kept for the dedupe window: 24 h. */
export const DEFAULT_KEEP_COMPLETED_SECONDS = 24 * 60 * 60;
export const DEFAULT_QUEUE_NAME = 'deliveries';

/**
 * The BullMQ job id of an event: BullMQ refuses ids with `:` and ids that look like integers, and the service's
 * event ids are not ours to constrain, so the id is a hash of the event id.
 */
export function jobIdOf(eventId: string): string {
	return `evt-${createHash('sha256').update(eventId).digest('hex')}`;
}

const QUEUE_PACKAGES_MISSING = 'The queue mode needs the "bullmq" and "ioredis" packages: npm install bullmq ioredis';

export async function loadBullmq(): Promise<typeof import('bullmq')> {
	try {
		return await import('bullmq');
	} catch (error) {
		throw new Error(QUEUE_PACKAGES_MISSING, { cause: error });
	}
}

export async function connect(url: string, forWorker: boolean): Promise<EndingRedis> {
	// A worker's blocking connection must retry forever (BullMQ requires it); a producer fails fast and answers 503.
	return connectEndingRedis(url, { maxRetriesPerRequest: forWorker ? null : 1 }, QUEUE_PACKAGES_MISSING);
}

export function location(options: QueueLocation): { url: string; prefix: string; name: string } {
	if (!options || typeof options.url !== 'string' || options.url === '')
		throw new TypeError('The queue needs url: a Redis URL');
	const name = options.name ?? DEFAULT_QUEUE_NAME;
	if (name.includes(':')) throw new TypeError('The queue name cannot contain ":"');
	return { url: options.url, prefix: options.prefix ?? DEFAULT_QUEUE_PREFIX, name };
}

export async function openQueue(options: QueueLocation): Promise<{ queue: Queue; redis: EndingRedis }> {
	const { url, prefix, name } = location(options);
	const [{ Queue }, redis] = await Promise.all([loadBullmq(), connect(url, false)]);
	const queue = new Queue(name, { connection: redis, prefix });
	queue.on('error', () => undefined);
	return { queue, redis };
}

export async function closeQueue({ queue, redis }: { queue: Queue; redis: EndingRedis }): Promise<void> {
	await queue.close().catch(() => undefined);
	if (redis.status === 'ready') await redis.quit().catch(() => redis.disconnect());
	else redis.disconnect();
}

/** The options of every job of the queue mode (the benchmark's raw BullMQ floor uses them too). */
export function queueJobOptions(attempts: number, backoffMs: number, keepCompletedSeconds: number): JobsOptions {
	return {
		attempts,
		backoff: { type: 'exponential', delay: backoffMs },
		removeOnComplete: { age: keepCompletedSeconds },
		removeOnFail: false,
	};
}

/**
 * The producer side of the queue mode: a BullMQ queue on Redis. Each event becomes one job whose id is derived from
 * the event id, so a redelivery (a retry, another receiver process) finds the job and adds nothing; completed jobs
 * are kept for the dedupe window, failed ones (the dead-letter set) until replayed.
 */
export function deliveryQueue(options: DeliveryQueueOptions): DeliveryQueue {
	location(options);
	const attempts = options.attempts ?? DEFAULT_QUEUE_ATTEMPTS;
	if (!Number.isInteger(attempts) || attempts < 1) throw new TypeError('attempts must be a positive whole number');
	const backoffMs = positiveNumber(options.backoffMs, DEFAULT_QUEUE_BACKOFF_MS, 'backoffMs');
	const keepCompletedSeconds = positiveNumber(
		options.keepCompletedSeconds,
		DEFAULT_KEEP_COMPLETED_SECONDS,
		'keepCompletedSeconds',
	);
	const timeoutMs = positiveNumber(options.commandTimeoutMs, DEFAULT_COMMAND_TIMEOUT_MS, 'commandTimeoutMs');
	const logger = loggerOf(options.logger, DEFAULT_LOGGER);
	const opened = openQueue(options);
	opened.catch(() => undefined);
	const persistenceChecked = reportPersistence(
		opened.then(({ redis }) => redis as unknown as RedisCommandClient),
		timeoutMs,
		'delivery queue',
		{ onWarning: options.onWarning, logger },
	);
	const jobOptions = queueJobOptions(attempts, backoffMs, keepCompletedSeconds);

	/**
	 * Enqueues that arrive in one turn of the event loop go to Redis together, in one `addBulk` (one pipelined write, one
	 * timer; a lone one with `add`), sent on the next turn. Each caller's promise settles only when its batch has: resolved once Redis has
	 * added (or already held) every job of the batch, rejected when the batch failed or timed out. A failed batch may
	 * have added some of its jobs; their deliveries are answered 503 all the same, and the sender's retries find the
	 * job by its id and add nothing.
	 */
	let gathering: PendingEnqueue[] = [];
	const sendGathered = () => {
		const batch = gathering;
		gathering = [];
		for (let start = 0; start < batch.length; start += MAX_ENQUEUE_BATCH) {
			const part = batch.slice(start, start + MAX_ENQUEUE_BATCH);
			withTimeout(
				// A lone job (one delivery in the turn: most of them unless deliveries arrive together) is added by itself:
				// `addBulk` wraps its jobs in MULTI/EXEC, three commands and replies where `add` needs one.
				opened.then<unknown>(({ queue }) =>
					part.length === 1
						? queue.add(part[0].job.name, part[0].job.data, part[0].job.opts)
						: queue.addBulk(part.map(({ job }) => job)),
				),
				timeoutMs,
				'the enqueue',
			).then(
				() => {
					for (const pending of part) pending.resolve();
				},
				(error: unknown) => {
					for (const pending of part) pending.reject(error);
				},
			);
		}
	};

	return {
		persistenceChecked,
		enqueue({ event, scheme, attemptId }, traceparent) {
			const data: QueuedDelivery = attemptId === undefined ? { event, scheme } : { event, scheme, attemptId };
			if (traceparent !== undefined) data.traceparent = traceparent;
			return new Promise<void>((resolve, reject) => {
				if (gathering.length === 0) setImmediate(sendGathered);
				gathering.push({
					job: { name: event.type, data, opts: { ...jobOptions, jobId: jobIdOf(event.id) } },
					resolve,
					reject,
				});
			});
		},
		async close() {
			await persistenceChecked;
			await closeQueue(await opened);
		},
	};
}

/** An enqueue waiting for its batch. */
interface PendingEnqueue {
	job: { name: string; data: QueuedDelivery; opts: JobsOptions };
	resolve: () => void;
	reject: (error: unknown) => void;
}

/** Jobs per `addBulk`: a turn that gathers more sends several batches. */
const MAX_ENQUEUE_BATCH = 200;
