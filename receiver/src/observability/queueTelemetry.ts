import type { BatchObservableCallback, Link, Span } from '@opentelemetry/api';
import type { DeliveryEvent } from '../../../nodes/shared/delivery';
import type { ReceiverLogger } from './logger';
import { INSTRUMENTATION_SCOPE } from './otelApi';
import {
	ATTR_EVENT_ID,
	ATTR_EVENT_KIND,
	ATTR_OUTCOME,
	attributeCache,
	secondsSince,
	type Instruments,
} from './telemetry';

export const QUEUE_JOB_SPAN = 'messenger_bot_builder.queue_job';
export const ATTR_JOB_ATTEMPT = 'messenger_bot_builder.job.attempt';
export const ATTR_QUEUE_NAME = 'messenger_bot_builder.queue.name';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The link to the delivery span whose W3C `traceparent` a job carries; none for a job queued without one. */
function linkTo(instruments: Instruments, traceparent: string | undefined): Link[] | undefined {
	const parts = traceparent === undefined ? null : TRACEPARENT.exec(traceparent);
	if (!parts) return undefined;
	const context = { traceId: parts[1], spanId: parts[2], traceFlags: Number.parseInt(parts[3], 16), isRemote: true };
	return instruments.api.isSpanContextValid(context) ? [{ context }] : undefined;
}

const outcomeAttributes = attributeCache(ATTR_OUTCOME);

/**
 * One job's run in a queue worker: a span linked to (not a child of) the delivery's span, since the job may run much
 * later, several times, in another process; and the listeners' duration.
 */
export class JobTrace {
	readonly #instruments: Instruments | undefined;
	readonly #span: Span | undefined;
	#startedAt = 0;

	constructor(instruments: Instruments | undefined, event: DeliveryEvent, attempt: number, traceparent?: string) {
		this.#instruments = instruments;
		if (!instruments) return;
		const links = linkTo(instruments, traceparent);
		this.#span = instruments.tracer.startSpan(QUEUE_JOB_SPAN, {
			kind: instruments.api.SpanKind.CONSUMER,
			...(links ? { links } : {}),
		});
		if (this.#span.isRecording()) {
			this.#span.setAttribute(ATTR_EVENT_ID, event.id);
			this.#span.setAttribute(ATTR_EVENT_KIND, event.type);
			this.#span.setAttribute(ATTR_JOB_ATTEMPT, attempt);
		}
	}

	/** Runs the listeners with the job's span as the active one. */
	runListeners(run: () => void): void {
		this.#startedAt = performance.now();
		const span = this.#span;
		if (!this.#instruments || !span?.isRecording()) return run();
		const { api } = this.#instruments;
		api.context.with(api.trace.setSpan(api.context.active(), span), run);
	}

	ended(failed: boolean): void {
		if (!this.#instruments || !this.#span) return;
		const outcome = failed ? 'listener_failed' : 'processed';
		this.#instruments.listeners.record(secondsSince(this.#startedAt), outcomeAttributes(outcome));
		if (this.#span.isRecording()) {
			this.#span.setAttribute(ATTR_OUTCOME, outcome);
			if (failed) this.#span.setStatus({ code: this.#instruments.api.SpanStatusCode.ERROR });
		}
		this.#span.end();
	}
}

/** The sizes a queue's gauges report. */
export interface QueueSizes {
	/** Jobs waiting to run (waiting, delayed for a retry, prioritized). */
	depth: number;
	/** Jobs that failed every attempt (BullMQ's failed set). */
	deadLetters: number;
}

/**
 * Registers the queue's observable gauges, read at each collection; returns what unregisters them. Nothing without
 * `@opentelemetry/api`.
 */
export function observeQueue(
	instruments: Instruments | undefined,
	queueName: string,
	read: () => Promise<QueueSizes>,
): () => void {
	if (!instruments) return () => undefined;
	const meter = instruments.api.metrics.getMeter(INSTRUMENTATION_SCOPE);
	const depth = meter.createObservableGauge('messenger_bot_builder.queue.depth', {
		description: 'Jobs waiting to run: waiting, delayed for a retry, prioritized',
	});
	const deadLetters = meter.createObservableGauge('messenger_bot_builder.queue.dead_letters', {
		description: 'Events whose listeners failed every attempt (the dead-letter set)',
	});
	const attributes = { [ATTR_QUEUE_NAME]: queueName };
	const callback: BatchObservableCallback = async (result) => {
		const sizes = await read().catch(() => undefined);
		if (!sizes) return;
		result.observe(depth, sizes.depth, attributes);
		result.observe(deadLetters, sizes.deadLetters, attributes);
	};
	meter.addBatchObservableCallback(callback, [depth, deadLetters]);
	return () => meter.removeBatchObservableCallback(callback, [depth, deadLetters]);
}

/**
 * Warns once when the dead-letter set reaches `threshold`, and again only after it went back below it (replayed or
 * removed): one line per pile-up, not one per failure.
 */
export class DeadLetterWatch {
	#warned = false;

	constructor(
		readonly threshold: number,
		readonly queueName: string,
		readonly logger: ReceiverLogger,
	) {}

	check(deadLetters: number): void {
		if (deadLetters < this.threshold) {
			this.#warned = false;
			return;
		}
		if (this.#warned) return;
		this.#warned = true;
		this.logger.warn(
			`the dead-letter set of queue ${this.queueName} holds ${deadLetters} events (threshold ${this.threshold}): their listeners failed every attempt; list them with mbb-receiver-queue list, replay them with mbb-receiver-queue replay`,
			{ code: 'queue.dead_letters_piling_up', deadLetters, threshold: this.threshold, queue: this.queueName },
		);
	}
}
