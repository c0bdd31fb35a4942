import type { Attributes, Counter, Histogram, Span, Tracer } from '@opentelemetry/api';
import { INSTRUMENTATION_SCOPE, otelApi, type OtelApiModule } from './otelApi';

/** How a delivery ended, as counted by `messenger_bot_builder.deliveries` and set on its span. */
export type DeliveryOutcome = 'processed' | 'listener_failed' | 'duplicate' | 'queued' | 'refused' | 'failed';

export const DELIVERY_SPAN = 'messenger_bot_builder.delivery';
export const ATTR_EVENT_ID = 'messenger_bot_builder.event.id';
export const ATTR_EVENT_KIND = 'messenger_bot_builder.event.kind';
export const ATTR_OUTCOME = 'messenger_bot_builder.outcome';
/** The refusal's error code, on the refusals counter and the span (OpenTelemetry's name for an error's class). */
export const ATTR_ERROR_TYPE = 'error.type';

/**
 * Histogram buckets in seconds, from a verification (well under a millisecond) to a long listener run (the default
 * buckets of the SDK suit milliseconds).
 */
const SECONDS_BUCKETS = [
	0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];

/** The instruments and tracer every delivery of a receiver (or job of a worker) records with. */
export interface Instruments {
	api: OtelApiModule;
	tracer: Tracer;
	deliveries: Counter;
	refusals: Counter;
	verification: Histogram;
	listeners: Histogram;
}

/**
 * The tracer and instruments, made once per receiver or worker; undefined without `@opentelemetry/api`. Meters are
 * taken from the MeterProvider registered at this moment (the API has no proxy for them): register the SDK before
 * creating the receiver.
 */
export function makeInstruments(): Instruments | undefined {
	const api = otelApi();
	if (!api) return undefined;
	const meter = api.metrics.getMeter(INSTRUMENTATION_SCOPE);
	return {
		api,
		tracer: api.trace.getTracer(INSTRUMENTATION_SCOPE),
		deliveries: meter.createCounter('messenger_bot_builder.deliveries', {
			description: 'Deliveries handled, by outcome',
		}),
		refusals: meter.createCounter('messenger_bot_builder.refusals', {
			description: 'Deliveries refused, by error code (error.type)',
		}),
		verification: meter.createHistogram('messenger_bot_builder.verification.duration', {
			description: 'Time to verify a delivery (signature, timestamp, event shape)',
			unit: 's',
			advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
		}),
		listeners: meter.createHistogram('messenger_bot_builder.listeners.duration', {
			description: "Time an event's listeners ran, by outcome",
			unit: 's',
			advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
		}),
	};
}

/** One attribute set per value, made once: recording a metric then allocates nothing. */
export function attributeCache(key: string): (value: string) => Attributes {
	const cache = new Map<string, Attributes>();
	return (value) => {
		let attributes = cache.get(value);
		if (!attributes) {
			attributes = { [key]: value };
			cache.set(value, attributes);
		}
		return attributes;
	};
}

const outcomeAttributes = attributeCache(ATTR_OUTCOME);
const errorTypeAttributes = attributeCache(ATTR_ERROR_TYPE);

/** Seconds since `start` (a `performance.now()` reading). */
export function secondsSince(start: number): number {
	return (performance.now() - start) / 1000;
}

/**
 * One delivery's span and measurements, from its arrival to its answer (refusals, duplicates, the enqueue) or to the
 * end of its listeners. Attributes are set only on a span that records: without an SDK the API's span is a no-op.
 */
export class DeliveryTrace {
	readonly #instruments: Instruments;
	readonly span: Span;
	#mark = 0;
	#ended = false;

	constructor(instruments: Instruments) {
		this.#instruments = instruments;
		this.span = instruments.tracer.startSpan(DELIVERY_SPAN, { kind: instruments.api.SpanKind.SERVER });
	}

	verifying(): void {
		this.#mark = performance.now();
	}

	verified(eventId: string, eventKind: string): void {
		this.#instruments.verification.record(secondsSince(this.#mark));
		if (this.span.isRecording()) {
			this.span.setAttribute(ATTR_EVENT_ID, eventId);
			this.span.setAttribute(ATTR_EVENT_KIND, eventKind);
		}
	}

	/** Runs the listeners with this delivery's span as the active one (their own spans become its children). */
	runListeners(run: () => void): void {
		this.#mark = performance.now();
		if (!this.span.isRecording()) return run();
		const { api } = this.#instruments;
		api.context.with(api.trace.setSpan(api.context.active(), this.span), run);
	}

	listenersEnded(failed: boolean): void {
		const outcome = failed ? 'listener_failed' : 'processed';
		this.#instruments.listeners.record(secondsSince(this.#mark), outcomeAttributes(outcome));
		this.end(outcome);
	}

	refused(code: string): void {
		if (this.#ended) return;
		this.#instruments.refusals.add(1, errorTypeAttributes(code));
		if (this.span.isRecording()) {
			this.span.setAttribute(ATTR_ERROR_TYPE, code);
			this.span.setStatus({ code: this.#instruments.api.SpanStatusCode.ERROR, message: code });
		}
		this.end('refused');
	}

	end(outcome: DeliveryOutcome): void {
		if (this.#ended) return;
		this.#ended = true;
		this.#instruments.deliveries.add(1, outcomeAttributes(outcome));
		if (this.span.isRecording()) {
			this.span.setAttribute(ATTR_OUTCOME, outcome);
			if (outcome === 'failed' || outcome === 'listener_failed')
				this.span.setStatus({ code: this.#instruments.api.SpanStatusCode.ERROR });
		}
		this.span.end();
	}

	/** The span's W3C `traceparent`, carried in a queued job so that the worker's span links to it. */
	traceparent(): string | undefined {
		const context = this.span.spanContext();
		if (!this.#instruments.api.isSpanContextValid(context)) return undefined;
		return `00-${context.traceId}-${context.spanId}-${(context.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
	}
}

/** A delivery when `@opentelemetry/api` is not installed: nothing is recorded. */
export class UntracedDelivery {
	verifying(): void {}
	verified(): void {}
	runListeners(run: () => void): void {
		run();
	}
	listenersEnded(): void {}
	refused(): void {}
	end(): void {}
	traceparent(): string | undefined {
		return undefined;
	}
}

export type DeliveryTracing = Pick<
	DeliveryTrace,
	'verifying' | 'verified' | 'runListeners' | 'listenersEnded' | 'refused' | 'end' | 'traceparent'
>;

const UNTRACED = new UntracedDelivery();

/** Starts a delivery's trace, or the shared untraced one. */
export function traceDelivery(instruments: Instruments | undefined): DeliveryTracing {
	return instruments ? new DeliveryTrace(instruments) : UNTRACED;
}
