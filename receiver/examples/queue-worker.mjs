// Queue mode, the processing side: runs the listeners of queued events, with retries and backoff; events whose every
// attempt failed wait in the dead-letter set (npx mbb-receiver-queue list / replay). Run as many as the work needs.
//
//   REDIS_URL=redis://127.0.0.1:6379 node examples/queue-worker.mjs
//
// Environment: REDIS_URL, QUEUE_PREFIX (optional, default mbb-receiver), CONCURRENCY (default 4).
import { createQueueWorker } from '@messenger-bot-builder/receiver';

const env = process.env;
const worker = createQueueWorker({
	url: env.REDIS_URL,
	prefix: env.QUEUE_PREFIX || undefined,
	concurrency: Number(env.CONCURRENCY ?? 4),
});
const log = (record) => console.log(JSON.stringify({ pid: process.pid, ...record }));

worker
	// A listener may run more than once for the same event (a retry after a crash): make its effect idempotent, for
	// example by applying it and recording event.id in one database transaction.
	.on('payment.success', (event) =>
		log({ type: event.type, id: event.id, amount: event.data.payment.amount, currency: event.data.payment.currency }),
	)
	.on('subscriber.new', (event) => log({ type: event.type, id: event.id, subscriber: event.data.subscriber.clientid }))
	.on('subscriber.stage', (event) => log({ type: event.type, id: event.id, stage: event.data.stage }))
	.onError((error, event) =>
		console.error(`listener failed for ${event.type} ${event.id} (it will be retried):`, error),
	);

await worker.start();
log({ ready: true });

const stop = async () => {
	await worker.close();
	process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
