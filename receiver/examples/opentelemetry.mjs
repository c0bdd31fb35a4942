// The receiver's spans and metrics printed by the OpenTelemetry SDK's console exporters: two deliveries, one
// processed and one refused (signed with another secret). The receiver depends on @opentelemetry/api only; the
// application registers an SDK, before it creates the receiver.
//
//   npm run build -w receiver && node receiver/examples/opentelemetry.mjs
//
// Needs @opentelemetry/api, @opentelemetry/sdk-trace and @opentelemetry/sdk-metrics (devDependencies of this
// repository; SDK 3.x runs on Node.js 22.15 or later).
import { metrics, trace } from '@opentelemetry/api';
import { ConsoleMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { ConsoleSpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createReceiver, generateHookSecret, sampleEvent, signDelivery } from '@messenger-bot-builder/receiver';

const tracerProvider = new TracerProvider({
	spanProcessors: [new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() })],
});
const meterProvider = new MeterProvider({
	readers: [new PeriodicExportingMetricReader({ exporter: new ConsoleMetricExporter(), exportIntervalMillis: 60_000 })],
});
trace.setGlobalTracerProvider(tracerProvider);
metrics.setGlobalMeterProvider(meterProvider);

const secret = generateHookSecret();
const receiver = createReceiver({ secrets: secret }).on('subscriber.new', (event) =>
	process.stdout.write(`listener: new subscriber ${event.data.subscriber.name}\n`),
);

/** A delivery as the service sends it, signed with `key`. */
async function delivery(key) {
	const event = sampleEvent('subscriber.new', { hook: 'hook_example' });
	const body = JSON.stringify(event);
	const headers = await signDelivery({ body, eventId: event.id, hookId: event.hook, secret: key });
	return { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body };
}

for (const key of [secret, generateHookSecret()]) {
	const answer = await receiver.receive(await delivery(key));
	process.stdout.write(`answer: ${answer.status} ${answer.body}\n`);
}
// Shutting down exports what is left: the metrics, once.
await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
