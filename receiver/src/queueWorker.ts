import type { Job, Queue, Worker } from 'bullmq';
import type { DeliveryEvent, EventMap, KnownEventType } from '../../nodes/shared/delivery';
import { LeaseLostError, Listeners, RunContext, type ErrorHandler, type EventHandler } from './listeners';
import { DEFAULT_LOGGER } from './observability/consoleLogger';
import { loggerOf, type ReceiverLogger } from './observability/logger';
import { DeadLetterWatch, JobTrace, observeQueue, type QueueSizes } from './observability/queueTelemetry';
import { makeInstruments, type Instruments } from './observability/telemetry';
import { positiveNumber } from './options';
import { connect, loadBullmq, location, type QueueLocation, type QueuedDelivery } from './queue';
import { DEFAULT_COMMAND_TIMEOUT_MS, withTimeout, type EndingRedis } from './redisConnection';

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
	/** Where the worker's lines go (see docs/observability.md). Default: the console, as `[receiver] ...` lines. */
	logger?: ReceiverLogger;
	/**
	 * A warning (`queue.dead_letters_piling_up`) when the dead-letter set reaches this many events: checked at start
	 * and each time a job fails its last attempt (default 100; `false`: never).
	 */
	deadLetterWarningThreshold?: number | false;
}

/** A queue worker's default {@link QueueWorkerOptions.deadLetterWarningThreshold}. */
export const DEFAULT_DEAD_LETTER_WARNING_THRESHOLD = 100;

/** What a running worker holds: BullMQ's worker, its connection, and a queue on it for the sizes. */
interface RunningWorker {
	worker: Worker;
	redis: EndingRedis;
	sizes: Queue;
	stopObserving: () => void;
}

/** A queue worker's default {@link QueueWorkerOptions.maxRunMs}. */
export const DEFAULT_QUEUE_MAX_RUN_MS = 5 * 60_000;

/** A process that runs the listeners of queued events. */
export class QueueWorker {
	readonly #options: QueueWorkerOptions;
	readonly #listeners: Listeners;
	readonly #instruments: Instruments | undefined;
	#running: Promise<RunningWorker> | undefined;
	/** The runs of listeners in this process, until each has settled. */
	readonly #inFlight = new Set<Promise<void>>();

	constructor(options: QueueWorkerOptions) {
		location(options);
		this.#options = options;
		this.#listeners = new Listeners(loggerOf(options.logger, DEFAULT_LOGGER));
		this.#instruments = makeInstruments();
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

	async #open(): Promise<RunningWorker> {
		const { url, prefix, name } = location(this.#options);
		const [{ Worker, Queue }, redis] = await Promise.all([loadBullmq(), connect(url, true)]);
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
			this.#listeners.reportFault(error, 'queue worker', 'queue.worker_error');
		});
		// The job's lock is gone (it lapsed and another worker may have taken the job): abort its listeners' signal.
		worker.on('lockRenewalFailed', (jobIds) => {
			for (const jobId of jobIds)
				worker.cancelJob(jobId, 'the lock on this job could not be renewed: another worker may run it meanwhile');
		});
		// On the worker's connection (shared: closing the queue leaves it open).
		const sizes = new Queue(name, { connection: redis, prefix });
		sizes.on('error', () => undefined);
		const read = () => readSizes(sizes);
		this.#watchDeadLetters(worker, name, read);
		return { worker, redis, sizes, stopObserving: observeQueue(this.#instruments, name, read) };
	}

	/** Checks the dead-letter set at start and each time a job fails its last attempt. */
	#watchDeadLetters(worker: Worker, name: string, read: () => Promise<QueueSizes>): void {
		const threshold = this.#options.deadLetterWarningThreshold ?? DEFAULT_DEAD_LETTER_WARNING_THRESHOLD;
		if (threshold === false) return;
		const watch = new DeadLetterWatch(threshold, name, this.#listeners.logger);
		const check = () =>
			void read().then(
				({ deadLetters }) => watch.check(deadLetters),
				() => undefined,
			);
		worker.once('ready', check);
		worker.on('failed', (job) => {
			if (job && job.attemptsMade >= (job.opts.attempts ?? 1)) check();
		});
	}

	#process(job: Job<QueuedDelivery>, maxRunMs: number, signal: AbortSignal | undefined): Promise<void> {
		const { event, scheme, attemptId, traceparent } = job.data;
		const run = new RunContext(scheme, attemptId);
		const trace = new JobTrace(this.#instruments, event, job.attemptsMade + 1, traceparent);
		const lost = () =>
			run.abort(new LeaseLostError(`job of event ${event.id}: ${String(signal?.reason ?? 'cancelled')}`));
		if (signal?.aborted) lost();
		else signal?.addEventListener('abort', lost, { once: true });
		const running = new Promise<void>((resolve, reject) => {
			const timer = setTimeout(() => {
				const message = `the listeners of event ${event.id} ran longer than maxRunMs (${maxRunMs} ms): the job fails, to be retried or dead-lettered`;
				this.#listeners.logger.warn(`queue worker: ${message}`, {
					code: 'queue.max_run_exceeded',
					eventId: event.id,
					eventType: event.type,
				});
				run.abort(new LeaseLostError(message));
				reject(new Error(message));
			}, maxRunMs);
			trace.runListeners(() =>
				this.#listeners.run(event, run, (failed, error) => {
					clearTimeout(timer);
					signal?.removeEventListener('abort', lost);
					trace.ended(failed);
					if (failed) reject(error);
					else resolve();
				}),
			);
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
		const { worker, redis, sizes, stopObserving } = await this.#running;
		stopObserving();
		await sizes.close().catch(() => undefined);
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

/** The queue's depth and dead-letter count, within the command timeout (the worker's connection retries forever). */
async function readSizes(queue: Queue): Promise<QueueSizes> {
	const counts = await withTimeout(
		queue.getJobCounts('waiting', 'delayed', 'prioritized', 'failed'),
		DEFAULT_COMMAND_TIMEOUT_MS,
		'the queue sizes',
	);
	const count = (state: string) => counts[state] ?? 0;
	return {
		depth: count('waiting') + count('delayed') + count('prioritized'),
		deadLetters: count('failed'),
	};
}
