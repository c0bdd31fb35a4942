import { randomUUID } from 'node:crypto';
import { metrics, SpanKind, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import {
	AggregationTemporality,
	InMemoryMetricExporter,
	MeterProvider,
	PeriodicExportingMetricReader,
	type DataPoint,
	type Histogram,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import Redis from 'ioredis';
import { testRedis } from '../../test/support/testRedis';
import {
	createQueueWorker,
	createReceiver,
	deliveryQueue,
	listDeadLetters,
	type DeliveryQueue,
	type QueueWorker,
	type ReceiverLogger,
} from '../src';
import { eventually, newSecret, signedDelivery } from './helpers';

/**
 * OpenTelemetry through the API alone: with the SDK's in-memory exporters registered, the spans, links and metrics of
 * a known sequence of deliveries, and nothing of a body, a signature or a secret in them.
 */
const secret = newSecret();

interface Sdk {
	spans: InMemorySpanExporter;
	/** The metrics as collected now: name to data points. */
	collect(): Promise<Map<string, DataPoint<unknown>[]>>;
	shutdown(): Promise<void>;
}

/** Registers a TracerProvider and a MeterProvider with in-memory exporters, as an application's SDK set-up would. */
function registerSdk(): Sdk {
	const spans = new InMemorySpanExporter();
	const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
	const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
	// Exported only when asked (forceFlush): the interval is longer than any test.
	const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
	const meterProvider = new MeterProvider({ readers: [reader] });
	trace.setGlobalTracerProvider(tracerProvider);
	metrics.setGlobalMeterProvider(meterProvider);
	return {
		spans,
		async collect() {
			metricExporter.reset();
			await reader.forceFlush();
			const byName = new Map<string, DataPoint<unknown>[]>();
			for (const resource of metricExporter.getMetrics())
				for (const scope of resource.scopeMetrics)
					for (const metric of scope.metrics) byName.set(metric.descriptor.name, metric.dataPoints);
			return byName;
		},
		async shutdown() {
			trace.disable();
			metrics.disable();
			await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
		},
	};
}

/** The data points of a counter or gauge as `attributes -> value`, sorted. */
function values(points: DataPoint<unknown>[] | undefined): [Attributes, unknown][] {
	return (points ?? []).map((point): [Attributes, unknown] => [point.attributes, point.value]).sort(byJson);
}

/** The number of recordings of a histogram, by attributes. */
function counts(points: DataPoint<unknown>[] | undefined): [Attributes, number][] {
	return (points ?? [])
		.map((point): [Attributes, number] => [point.attributes, (point.value as Histogram).count])
		.sort(byJson);
}

function byJson(a: unknown, b: unknown): number {
	return JSON.stringify(a).localeCompare(JSON.stringify(b));
}

/** What a span shows an operator: everything that could carry a body, a signature or a secret. */
function visible(span: ReadableSpan): string {
	const { name, attributes, events, links, status } = span;
	return JSON.stringify({ name, attributes, events, links, status });
}

const quietLogger: ReceiverLogger = { debug() {}, info() {}, warn() {}, error() {} };

describe('a receiver with an OpenTelemetry SDK registered', () => {
	let sdk: Sdk;
	beforeAll(() => {
		sdk = registerSdk();
	});
	afterAll(() => sdk.shutdown());

	it('one span per delivery with its event, kind and outcome; counters and histograms by outcome and code', async () => {
		const receiver = createReceiver({ secrets: secret })
			.on('subscriber.new', () => undefined)
			.on('payment.success', () => {
				throw new Error('the ledger is down');
			})
			.onError(() => undefined);
		const a = await signedDelivery(secret, 'subscriber.new');
		const b = await signedDelivery(secret, 'payment.success');
		const forged = await signedDelivery(newSecret(), 'subscriber.new');
		const send = (delivery: typeof a, method = 'POST') =>
			receiver.receive({ method, headers: delivery.headers, body: delivery.body });

		expect((await send(a)).status).toBe(200);
		expect((await send(a)).duplicate).toBe(true);
		expect((await send(b)).status).toBe(500);
		expect((await send(forged)).error?.code).toBe('invalid_signature');
		expect((await send(a, 'GET')).error?.code).toBe('method_not_allowed');

		const spans = sdk.spans.getFinishedSpans();
		expect(spans.map((span) => [span.name, span.kind])).toEqual(
			Array.from({ length: 5 }, () => ['messenger_bot_builder.delivery', SpanKind.SERVER]),
		);
		expect(spans.map((span) => span.attributes)).toEqual([
			{
				'messenger_bot_builder.event.id': a.id,
				'messenger_bot_builder.event.kind': 'subscriber.new',
				'messenger_bot_builder.outcome': 'processed',
			},
			{
				'messenger_bot_builder.event.id': a.id,
				'messenger_bot_builder.event.kind': 'subscriber.new',
				'messenger_bot_builder.outcome': 'duplicate',
			},
			{
				'messenger_bot_builder.event.id': b.id,
				'messenger_bot_builder.event.kind': 'payment.success',
				'messenger_bot_builder.outcome': 'listener_failed',
			},
			{ 'error.type': 'invalid_signature', 'messenger_bot_builder.outcome': 'refused' },
			{ 'error.type': 'method_not_allowed', 'messenger_bot_builder.outcome': 'refused' },
		]);
		expect(spans.map((span) => span.status.code)).toEqual([
			SpanStatusCode.UNSET,
			SpanStatusCode.UNSET,
			SpanStatusCode.ERROR,
			SpanStatusCode.ERROR,
			SpanStatusCode.ERROR,
		]);
		const shown = spans.map(visible).join('\n');
		const signatures = [a, b, forged].flatMap(({ headers }) => [headers['x-signature'], headers['webhook-signature']]);
		expect(signatures.every((signature) => typeof signature === 'string' && signature.length > 20)).toBe(true);
		for (const secretThing of [secret, secret.slice('whsec_'.length), a.body, b.body, ...signatures])
			expect(shown).not.toContain(secretThing);
		expect(shown).not.toContain('"data"');

		const collected = await sdk.collect();
		expect(values(collected.get('messenger_bot_builder.deliveries'))).toEqual([
			[{ 'messenger_bot_builder.outcome': 'duplicate' }, 1],
			[{ 'messenger_bot_builder.outcome': 'listener_failed' }, 1],
			[{ 'messenger_bot_builder.outcome': 'processed' }, 1],
			[{ 'messenger_bot_builder.outcome': 'refused' }, 2],
		]);
		expect(values(collected.get('messenger_bot_builder.refusals'))).toEqual([
			[{ 'error.type': 'invalid_signature' }, 1],
			[{ 'error.type': 'method_not_allowed' }, 1],
		]);
		expect(counts(collected.get('messenger_bot_builder.verification.duration'))).toEqual([[{}, 3]]);
		expect(counts(collected.get('messenger_bot_builder.listeners.duration'))).toEqual([
			[{ 'messenger_bot_builder.outcome': 'listener_failed' }, 1],
			[{ 'messenger_bot_builder.outcome': 'processed' }, 1],
		]);
	});
});

describe('queue mode with an OpenTelemetry SDK registered (the shared Redis of the tests, TEST_REDIS_URL)', () => {
	const prefix = `mbb-test-otel-${randomUUID().slice(0, 8)}`;
	const where = { url: testRedis().url, prefix };
	let sdk: Sdk;
	let queue: DeliveryQueue;
	let worker: QueueWorker;
	beforeAll(() => {
		sdk = registerSdk();
	});
	afterAll(async () => {
		await Promise.all([worker?.close(), queue?.close()]);
		await sdk.shutdown();
		const redis = new Redis(testRedis().url);
		const keys = await redis.keys(`${prefix}:*`);
		if (keys.length) await redis.del(...keys);
		await redis.quit();
	});

	it("the worker's job span links to the delivery's span; gauges report the depth and the dead letters", async () => {
		queue = deliveryQueue({ ...where, attempts: 1, onWarning: false });
		const receiver = createReceiver({ secrets: secret, acknowledge: 'queue', queue });
		worker = createQueueWorker({ ...where, logger: quietLogger })
			.on('subscriber.new', () => undefined)
			.on('payment.success', () => {
				throw new Error('the ledger is down');
			})
			.onError(() => undefined);
		await worker.start();
		const ok = await signedDelivery(secret, 'subscriber.new');
		const failing = await signedDelivery(secret, 'payment.success');
		for (const delivery of [ok, failing]) {
			const answer = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
			expect(answer.status).toBe(200);
		}

		const jobSpans = await eventually(() => {
			const found = sdk.spans.getFinishedSpans().filter((span) => span.name === 'messenger_bot_builder.queue_job');
			return found.length === 2 ? found : false;
		});
		const deliverySpans = sdk.spans.getFinishedSpans().filter((span) => span.name === 'messenger_bot_builder.delivery');
		expect(deliverySpans.map((span) => span.attributes['messenger_bot_builder.outcome'])).toEqual(['queued', 'queued']);
		for (const delivery of [ok, failing]) {
			const sent = deliverySpans.find((span) => span.attributes['messenger_bot_builder.event.id'] === delivery.id);
			const job = jobSpans.find((span) => span.attributes['messenger_bot_builder.event.id'] === delivery.id);
			expect(job?.kind).toBe(SpanKind.CONSUMER);
			expect(job?.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
				[sent?.spanContext().traceId, sent?.spanContext().spanId],
			]);
		}
		expect(
			jobSpans
				.map((span) => [
					span.attributes['messenger_bot_builder.event.kind'],
					span.attributes['messenger_bot_builder.job.attempt'],
					span.attributes['messenger_bot_builder.outcome'],
				])
				.sort(byJson),
		).toEqual([
			['payment.success', 1, 'listener_failed'],
			['subscriber.new', 1, 'processed'],
		]);

		await eventually(async () => (await listDeadLetters(where)).length === 1);
		const collected = await sdk.collect();
		const queueName = { 'messenger_bot_builder.queue.name': 'deliveries' };
		expect(values(collected.get('messenger_bot_builder.queue.depth'))).toEqual([[queueName, 0]]);
		expect(values(collected.get('messenger_bot_builder.queue.dead_letters'))).toEqual([[queueName, 1]]);
		expect(values(collected.get('messenger_bot_builder.deliveries'))).toEqual([
			[{ 'messenger_bot_builder.outcome': 'queued' }, 2],
		]);
		expect(counts(collected.get('messenger_bot_builder.listeners.duration'))).toEqual([
			[{ 'messenger_bot_builder.outcome': 'listener_failed' }, 1],
			[{ 'messenger_bot_builder.outcome': 'processed' }, 1],
		]);
	}, 20_000);
});

describe('without @opentelemetry/api', () => {
	it('the receiver loads and answers as usual, recording nothing', async () => {
		const delivery = await signedDelivery(secret);
		const sdk = registerSdk();
		await jest.isolateModulesAsync(async () => {
			jest.doMock('node:module', () => ({
				createRequire: () => () => {
					throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), { code: 'MODULE_NOT_FOUND' });
				},
			}));
			const isolated = (await import('../src')) as typeof import('../src');
			const seen: string[] = [];
			const receiver = isolated.createReceiver({ secrets: secret }).onAny((event) => void seen.push(event.id));
			const answer = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
			expect(answer.status).toBe(200);
			expect(seen).toEqual([delivery.id]);
		});
		expect(sdk.spans.getFinishedSpans()).toEqual([]);
		expect((await sdk.collect()).size).toBe(0);
		await sdk.shutdown();
	});
});
