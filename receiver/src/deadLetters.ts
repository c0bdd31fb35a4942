import type { Job } from 'bullmq';
import { closeQueue, jobIdOf, openQueue, type QueuedDelivery, type QueueLocation } from './queue';

/** An event whose listeners failed on every attempt (BullMQ's failed set). */
export interface DeadLetter {
	eventId: string;
	type: string;
	jobId: string;
	attempts: number;
	failedReason: string;
	failedAt: string | null;
}

/** Which dead letters to list or replay: those that failed since a time, of one event kind, or both. */
export interface DeadLetterFilter {
	/** Only those whose last attempt failed at or after this time. */
	since?: Date;
	/** Only the events of this kind (`payment.success`, or a kind this version does not know). */
	kind?: string;
}

/** A job read back from Redis (a listing may hold gaps for jobs removed meanwhile); such a job has its id. */
function isStoredJob(job: Job<QueuedDelivery> | undefined): job is Job<QueuedDelivery> & { id: string } {
	return Boolean(job) && typeof job?.id === 'string';
}

/** The filter as a test on a job, after checking it (before Redis is opened: a bad filter opens nothing). */
function matcherOf(filter: DeadLetterFilter): (job: Job<QueuedDelivery>) => boolean {
	const { since, kind } = filter;
	if (since !== undefined && !(since instanceof Date && Number.isFinite(since.getTime())))
		throw new TypeError('since must be a valid Date');
	if (kind !== undefined && (typeof kind !== 'string' || kind === ''))
		throw new TypeError('kind must be a non-empty event kind');
	const sinceMs = since?.getTime();
	return (job) =>
		(sinceMs === undefined || (job.finishedOn ?? 0) >= sinceMs) && (kind === undefined || job.data.event.type === kind);
}

/** The dead-lettered jobs, newest first, that pass `filter`. */
async function failedJobs(
	queue: Awaited<ReturnType<typeof openQueue>>['queue'],
	matches: (job: Job<QueuedDelivery>) => boolean,
): Promise<(Job<QueuedDelivery> & { id: string })[]> {
	const jobs = (await queue.getFailed(0, -1)) as (Job<QueuedDelivery> | undefined)[];
	return jobs.filter(isStoredJob).filter(matches);
}

/** Lists the dead-lettered events, newest first: all of them, or those that pass `filter`. */
export async function listDeadLetters(options: QueueLocation, filter: DeadLetterFilter = {}): Promise<DeadLetter[]> {
	const matches = matcherOf(filter);
	const opened = await openQueue(options);
	try {
		return (await failedJobs(opened.queue, matches)).map((job) => ({
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
 * Moves dead-lettered events back to the queue with their attempts reset: all of them (no second argument), those
 * of `eventIds`, or those that pass a filter (`{ since: new Date(...), kind: 'payment.success' }`). Resolves to the
 * event ids replayed; an id given that is not dead-lettered is reported in `notFound`.
 */
export async function replayDeadLetters(
	options: QueueLocation,
	which?: readonly string[] | DeadLetterFilter,
): Promise<{ replayed: string[]; notFound: string[] }> {
	const eventIds = Array.isArray(which) ? (which as readonly string[]) : undefined;
	const filter = eventIds ? {} : ((which as DeadLetterFilter | undefined) ?? {});
	const matches = matcherOf(filter);
	const opened = await openQueue(options);
	try {
		const { queue } = opened;
		const replayed: string[] = [];
		const notFound: string[] = [];
		const jobs: (Job<QueuedDelivery> | undefined)[] =
			eventIds === undefined
				? await failedJobs(queue, matches)
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
