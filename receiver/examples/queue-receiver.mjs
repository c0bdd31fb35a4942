// Queue mode, the receiving side: verifies each delivery and answers 200 once the event is in Redis (BullMQ). Run as
// many as you like behind a load balancer; the listeners run in queue-worker.mjs processes.
//
//   REDIS_URL=redis://127.0.0.1:6379 MBB_HOOK_SECRET=whsec_... node examples/queue-receiver.mjs
//
// Environment: MBB_HOOK_SECRET (comma-separated during a rotation), MBB_HOOK_ID (optional), REDIS_URL,
// QUEUE_PREFIX (optional, default mbb-receiver), HOST, PORT (default 127.0.0.1:3000).
import express from 'express';
import { createReceiver, deliveryQueue } from '@messenger-bot-builder/receiver';

const env = process.env;
const queue = deliveryQueue({ url: env.REDIS_URL, prefix: env.QUEUE_PREFIX || undefined });
const receiver = createReceiver({
	secrets: (env.MBB_HOOK_SECRET ?? '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean),
	audience: env.MBB_HOOK_ID || undefined,
	acknowledge: 'queue',
	queue,
});

const app = express();
app.post('/hooks', receiver.middleware());
const server = app.listen(Number(env.PORT ?? 3000), env.HOST ?? '127.0.0.1', (error) => {
	if (error) {
		console.error(`cannot listen: ${error.message}`);
		process.exit(1);
	}
	const { address, port } = server.address();
	console.log(JSON.stringify({ listening: `http://${address}:${port}/hooks` }));
});

const stop = async () => {
	server.close();
	await queue.close();
	process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
