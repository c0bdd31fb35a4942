import { createHash } from 'node:crypto';
import type { Job, JobsOptions, Queue, Worker } from 'bullmq';
import type { DeliveryEvent, EventMap, KnownEventType } from '../../nodes/shared/delivery';
import {
	LeaseLostError,
	Listeners,
	RunContext,
	type DeliveryContext,
	type ErrorHandler,
	type EventHandler,
} from './listeners';
import { positiveNumber } from './options';
import {
	connectEndingRedis,
	DEFAULT_COMMAND_TIMEOUT_MS,
	persistenceWarning,
	withTimeout,
	type EndingRedis,
	type RedisCommandClient,
} from './redisConnection';
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
	/** Receives the one warning given when this Redis keeps nothing (or only snapshots) across restarts; `false`: no check. */
	onWarning?: ((message: string) => void) | false;
}

/** Where a receiver with `acknowledge: 'queue'` puts verified events. */
export interface DeliveryQueue {
	/** Resolves once Redis holds the event (adding an event already held, done or dead-lettered changes nothing). */
	enqueue(delivery: VerifiedDelivery): Promise<void>;
	close(): Promise<void>;
	/** Resolves once the persistence check is done, with the warning it gave. */
	readonly persistenceChecked: Promise<string | undefined>;
}

/** What a job holds: the verified event and how it was verified. */
export interface QueuedDelivery {
	event: DeliveryEvent;
	scheme: DeliveryContext['scheme'];
	attemptId?: string;
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

async function loadBullmq(): Promise<typeof import('bullmq')> {
	try {
		return await import('bullmq');
	} catch (error) {
		throw new Error(QUEUE_PACKAGES_MISSING, { cause: error });
	}
}

async function connect(url: string, forWorker: boolean): Promise<EndingRedis> {
	// A worker's blocking connection must retry forever (BullMQ requires it); a producer fails fast and answers 503.
	return connectEndingRedis(url, { maxRetriesPerRequest: forWorker ? null : 1 }, QUEUE_PACKAGES_MISSING);
}

function location(options: QueueLocation): { url: string; prefix: string; name: string } {
	if (!options || typeof options.url !== 'string' || options.url === '')
		throw new TypeError('The queue needs url: a Redis URL');
	const name = options.name ?? DEFAULT_QUEUE_NAME;
	if (name.includes(':')) throw new TypeError('The queue name cannot contain ":"');
	return { url: options.url, prefix: options.prefix ?? DEFAULT_QUEUE_PREFIX, name };
}

async function openQueue(options: QueueLocation): Promise<{ queue: Queue; redis: EndingRedis }> {
	const { url, prefix, name } = location(options);
	const [{ Queue }, redis] = await Promise.all([loadBullmq(), connect(url, false)]);
	const queue = new Queue(name, { connection: redis, prefix });
	queue.on('error', () => undefined);
	return { queue, redis };
}

async function closeQueue({ queue, redis }: { queue: Queue; redis: EndingRedis }): Promise<void> {
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
	const opened = openQueue(options);
	opened.catch(() => undefined);
	const warn = options.onWarning === undefined ? (message: string) => console.warn(message) : options.onWarning;
	const persistenceChecked = warn
		? opened.then(
				async ({ redis }) => {
					const warning = await persistenceWarning(redis as unknown as RedisCommandClient, timeoutMs, 'delivery queue');
					if (warning) warn(warning);
					return warning;
				},
				() => undefined,
			)
		: Promise.resolve(undefined);
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
		enqueue({ event, scheme, attemptId }) {
			const data: QueuedDelivery = attemptId === undefined ? { event, scheme } : { event, scheme, attemptId };
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

export interface QueueWorkerOptions extends QueueLocation {
	/** Events processed at once by this process (default 4). */
	concurrency?: number;
	/** The lease on a running job, renewed while its listeners run; a job whose lease lapses runs again (default 30 000 ms). */
	lockMs?: number;
	/** How often lapsed leases are looked for (default: lockMs). */
	stalledIntervalMs?: number;
	/** Lapsed leases tolerated per job before it goes to the dead-letter set (default 3). */
	maxStalledCount?: number;
	/**
	 * Longest run of one job's listeners (default 5 minutes): then the job fails (a retry with backoff, after the last
	 * attempt the dead-letter set), the listeners' `signal` is aborted and a line is logged. A listener that ignores
	 * the signal keeps running in this process while the retry may run elsewhere.
	 */
	maxRunMs?: number;
}

/** A queue worker's default {@link QueueWorkerOptions.maxRunMs}. */
export const DEFAULT_QUEUE_MAX_RUN_MS = 5 * 60_000;

/** A process that runs the listeners of queued events. */
export class QueueWorker {
	readonly #options: QueueWorkerOptions;
	readonly #listeners = new Listeners();
	#running: Promise<{ worker: Worker; redis: EndingRedis }> | undefined;
	/** The runs of listeners in this process, until each has settled. */
	readonly #inFlight = new Set<Promise<void>>();

	constructor(options: QueueWorkerOptions) {
		location(options);
		this.#options = options;
	}

	on<T extends KnownEventType>(type: T, handler: EventHandler<EventMap[T]>): this {
		this.#listeners.on(type, handler);
		return this;
	}

	onAny(handler: EventHandler<DeliveryEvent>): this {
		this.#listeners.onAny(handler);
		return this;
	}

	/** Receives each listener error; the job is retried with backoff, then dead-lettered. */
	onError(handler: ErrorHandler): this {
		this.#listeners.onError(handler);
		return this;
	}

	/** Starts taking jobs; resolves once connected. */
	async start(): Promise<void> {
		this.#running ??= this.#open();
		const { worker } = await this.#running;
		await worker.waitUntilReady();
	}

	async #open(): Promise<{ worker: Worker; redis: EndingRedis }> {
		const { url, prefix, name } = location(this.#options);
		const [{ Worker }, redis] = await Promise.all([loadBullmq(), connect(url, true)]);
		const lockDuration = positiveNumber(this.#options.lockMs, 30_000, 'lockMs');
		const maxRunMs = positiveNumber(this.#options.maxRunMs, DEFAULT_QUEUE_MAX_RUN_MS, 'maxRunMs');
		// Three parameters: BullMQ passes an AbortSignal only to processors that declare one.
		const processor = (job: Job<QueuedDelivery>, _token?: string, signal?: AbortSignal) =>
			this.#process(job, maxRunMs, signal);
		const worker = new Worker<QueuedDelivery>(name, processor, {
			connection: redis,
			prefix,
			concurrency: this.#options.concurrency ?? 4,
			lockDuration,
			stalledInterval: positiveNumber(this.#options.stalledIntervalMs, lockDuration, 'stalledIntervalMs'),
			maxStalledCount: this.#options.maxStalledCount ?? 3,
		});
		let lastReported = 0;
		worker.on('error', (error) => {
			// Connection errors repeat while Redis is away; one line per 10 s is enough.
			if (Date.now() - lastReported < 10_000) return;
			lastReported = Date.now();
			this.#listeners.reportFault(error, 'queue worker');
		});
		// The job's lock is gone (it lapsed and another worker may have taken the job): abort its listeners' signal.
		worker.on('lockRenewalFailed', (jobIds) => {
			for (const jobId of jobIds)
				worker.cancelJob(jobId, 'the lock on this job could not be renewed: another worker may run it meanwhile');
		});
		return { worker, redis };
	}

	#process(job: Job<QueuedDelivery>, maxRunMs: number, signal: AbortSignal | undefined): Promise<void> {
		const { event, scheme, attemptId } = job.data;
		const run = new RunContext(scheme, attemptId);
		const lost = () =>
			run.abort(new LeaseLostError(`job of event ${event.id}: ${String(signal?.reason ?? 'cancelled')}`));
		if (signal?.aborted) lost();
		else signal?.addEventListener('abort', lost, { once: true });
		const running = new Promise<void>((resolve, reject) => {
			const timer = setTimeout(() => {
				const message = `the listeners of event ${event.id} ran longer than maxRunMs (${maxRunMs} ms): the job fails, to be retried or dead-lettered`;
				console.warn(`[receiver] queue worker: ${message}`);
				run.abort(new LeaseLostError(message));
				reject(new Error(message));
			}, maxRunMs);
			this.#listeners.run(event, run, (failed, error) => {
				clearTimeout(timer);
				signal?.removeEventListener('abort', lost);
				if (failed) reject(error);
				else resolve();
			});
		});
		const settled = running.then(
			() => undefined,
			() => undefined,
		);
		this.#inFlight.add(settled);
		void settled.then(() => this.#inFlight.delete(settled));
		return running;
	}

	/**
	 * Stops taking jobs, waits for the listeners running in this process, and closes the connection. While Redis is
	 * reachable, it also waits until their jobs are recorded as done. While it is down, or once it goes away during the
	 * close, it stops waiting for it (BullMQ's own close would wait forever): a job whose completion could not be
	 * recorded runs again once its lock lapses.
	 */
	async close(): Promise<void> {
		if (!this.#running) return;
		const { worker, redis } = await this.#running;
		if (redis.status === 'ready') {
			let stopWatching = () => undefined as void;
			const dropped = new Promise<'dropped'>((resolve) => {
				const onClose = () => resolve('dropped');
				redis.once('close', onClose);
				stopWatching = () => void redis.off('close', onClose);
			});
			const closing = worker.close().then(() => 'closed' as const);
			const outcome = await Promise.race([closing, dropped]);
			stopWatching();
			if (outcome === 'closed') {
				await redis.quit().catch(() => redis.disconnect());
				return;
			}
			await this.#closeWithoutRedis(redis, closing);
			return;
		}
		await this.#closeWithoutRedis(redis, worker.close(true));
	}

	/** Waits for the listeners running here, then ends every connection, which fails the Redis calls BullMQ waits on. */
	async #closeWithoutRedis(redis: EndingRedis, closing: Promise<unknown>): Promise<void> {
		await Promise.all(this.#inFlight);
		redis.disconnectAll();
		await closing;
	}
}

export function createQueueWorker(options: QueueWorkerOptions): QueueWorker {
	return new QueueWorker(options);
}

/** An event whose listeners failed on every attempt (BullMQ's failed set). */
export interface DeadLetter {
	eventId: string;
	type: string;
	jobId: string;
	attempts: number;
	failedReason: string;
	failedAt: string | null;
}

/** A job read back from Redis (a listing may hold gaps for jobs removed meanwhile); such a job has its id. */
function isStoredJob(job: Job<QueuedDelivery> | undefined): job is Job<QueuedDelivery> & { id: string } {
	return Boolean(job) && typeof job?.id === 'string';
}

/** Lists the dead-lettered events, newest first. */
export async function listDeadLetters(options: QueueLocation): Promise<DeadLetter[]> {
	const opened = await openQueue(options);
	try {
		const jobs = (await opened.queue.getFailed(0, -1)) as Job<QueuedDelivery>[];
		return jobs.filter(isStoredJob).map((job) => ({
			eventId: job.data.event.id,
			type: job.data.event.type,
			jobId: job.id,
			attempts: job.attemptsMade,
			failedReason: job.failedReason,
			failedAt: job.finishedOn ? new Date(job.finishedOn).toISOString() : null,
		}));
	} finally {
		await closeQueue(opened);
	}
}

/**
 * Moves dead-lettered events back to the queue with their attempts reset: all of them, or those of `eventIds`.
 * Resolves to the event ids replayed; an id that is not dead-lettered is reported in `notFound`.
 */
export async function replayDeadLetters(
	options: QueueLocation,
	eventIds?: readonly string[],
): Promise<{ replayed: string[]; notFound: string[] }> {
	const opened = await openQueue(options);
	try {
		const { queue } = opened;
		const replayed: string[] = [];
		const notFound: string[] = [];
		const jobs: (Job<QueuedDelivery> | undefined)[] =
			eventIds === undefined
				? ((await queue.getFailed(0, -1)) as Job<QueuedDelivery>[])
				: await Promise.all(eventIds.map((id) => queue.getJob(jobIdOf(id))));
		for (const [index, job] of jobs.entries()) {
			if (!job || (await job.getState()) !== 'failed') {
				notFound.push(eventIds?.[index] ?? job?.data.event.id ?? '?');
				continue;
			}
			await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
			replayed.push(job.data.event.id);
		}
		return { replayed, notFound };
	} finally {
		await closeQueue(opened);
	}
}
