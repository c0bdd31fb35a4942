// One receiver process of the chaos run: verifies deliveries and hands them to the BullMQ queue (acknowledge: 'queue').
// Environment: MBB_HOOK_SECRET, MBB_HOOK_ID, REDIS_URL, QUEUE_PREFIX.
import { createServer } from 'node:http';
import { createReceiver, deliveryQueue } from '@messenger-bot-builder/receiver';
import './exitWithParent.mjs';

const env = process.env;
const queue = deliveryQueue({
	url: env.REDIS_URL,
	prefix: env.QUEUE_PREFIX,
	attempts: 6,
	backoffMs: 200,
	commandTimeoutMs: 1000,
	onWarning: false,
});
const receiver = createReceiver({
	secrets: env.MBB_HOOK_SECRET,
	audience: env.MBB_HOOK_ID,
	acknowledge: 'queue',
	queue,
});
const server = createServer(receiver.middleware());
server.listen(0, '127.0.0.1', () =>
	console.log(JSON.stringify({ listening: `http://127.0.0.1:${server.address().port}/hooks` })),
);
