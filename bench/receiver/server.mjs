// One benchmark target per process: node server.mjs <scenario> <secret>. Prints its URL on stdout.
// Every scenario but `bare` (an Express route, the floor run.mjs compares with) is a plain node:http server, so that
// no framework's work is counted in any of them.
// bullmq-raw is the queue mode's floor: it always loads this checkout's receiver build for the job options and id.
// BENCH_RECEIVER_MODULE (a path to a build's index.js) loads another build of the receiver, to compare two builds.
// BENCH_NOW (unix seconds) fixes the receiver's clock (its `now` option), for deliveries signed at that time: a slow
// run (under valgrind) then never sees a signature expire. The server keeps idle connections open for as long as the
// client does (no keep-alive, headers or request timeout), so a slow run loses no connection either.
import { createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';
import express from 'express';
import { Webhooks, createNodeMiddleware } from '@octokit/webhooks';
import { Webhook as StandardWebhook } from 'standardwebhooks';

const { createReceiver, redisDedupeStore, deliveryQueue } = await import(
	process.env.BENCH_RECEIVER_MODULE
		? pathToFileURL(process.env.BENCH_RECEIVER_MODULE).href
		: '@messenger-bot-builder/receiver'
);

const [scenario, secret] = process.argv.slice(2);
// Redis scenarios use the shared Redis with a key prefix of this process, removed on exit.
const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const KEY_PREFIX = `mbb-bench-${process.pid}`;
const now = process.env.BENCH_NOW ? Number(process.env.BENCH_NOW) : undefined;
const cleanups = [];
let handled = 0;
let requests = 0;
/** The delivery route's handler, a `(req, res)` function of node:http. */
let hooks;

switch (scenario) {
	case 'bare': {
		// Reads the whole body and answers through Express (whose res.json also hashes the answer for an ETag).
		const app = express();
		app.post('/hooks', (req, res) => {
			const chunks = [];
			req.on('data', (chunk) => chunks.push(chunk));
			req.on('end', () => {
				Buffer.concat(chunks);
				handled += 1;
				res.status(200).json({ received: true });
			});
		});
		hooks = app;
		break;
	}
	case 'bare-node':
		// The floor any webhook route pays: node:http, the whole body read, a fixed answer.
		hooks = (req, res) => {
			const chunks = [];
			req.on('data', (chunk) => chunks.push(chunk));
			req.on('end', () => {
				Buffer.concat(chunks);
				handled += 1;
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': 17 }).end('{"received":true}');
			});
		};
		break;
	case 'receiver-jwt':
	case 'receiver-standard-webhooks': {
		// onReceipt with the in-memory store: the answer does not wait for the listeners.
		const receiver = createReceiver({ secrets: secret, acknowledge: 'onReceipt', now });
		receiver.onAny(() => {
			handled += 1;
		});
		hooks = receiver.middleware();
		break;
	}
	case 'standard-webhooks-no-dedupe': {
		// A reference, not a product: receiver-standard-webhooks without deduplication (`dedupe: false`), to show what the
		// store costs against the goals.
		const receiver = createReceiver({ secrets: secret, acknowledge: 'onReceipt', dedupe: false, now });
		receiver.onAny(() => {
			handled += 1;
		});
		hooks = receiver.middleware();
		break;
	}
	case 'standardwebhooks-npm': {
		// The Standard Webhooks reference library (npm `standardwebhooks`): the body read, `verify` (HMAC over id,
		// timestamp and body, its timestamp window on the real clock: it has no clock option), a direct answer. No
		// deduplication, no event checks beyond JSON.parse.
		const webhook = new StandardWebhook(secret);
		hooks = (req, res) => {
			const chunks = [];
			req.on('data', (chunk) => chunks.push(chunk));
			req.on('end', () => {
				const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
				let event;
				try {
					event = webhook.verify(body.toString(), req.headers);
				} catch {
					res.writeHead(401, { 'content-type': 'application/json' }).end('{"code":"invalid_signature"}');
					return;
				}
				handled += 1;
				const answer = `{"received":true,"id":${JSON.stringify(event.id)}}`;
				res
					.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
					.end(answer);
			});
		};
		break;
	}
	case 'onReceipt-redis':
	case 'afterListeners':
	case 'afterListeners-redis': {
		const redis = scenario.endsWith('-redis');
		const dedupe = redis ? redisDedupeStore({ url: REDIS_URL, prefix: `${KEY_PREFIX}:`, onWarning: false }) : undefined;
		if (dedupe) cleanups.push(() => dedupe.close());
		const receiver = createReceiver({
			secrets: secret,
			acknowledge: scenario.startsWith('onReceipt') ? 'onReceipt' : 'afterListeners',
			dedupe,
			now,
		});
		receiver.onAny(() => {
			handled += 1;
		});
		hooks = receiver.middleware();
		break;
	}
	case 'queue': {
		// The receiving side only (verify, then enqueue into BullMQ); workers are separate processes and not measured.
		// BENCH_QUEUE_COMMAND_TIMEOUT_MS: the bench's own bound on an enqueue (instructions.mjs: under valgrind an enqueue
		// takes longer than the product's 2 s default, which answered 503 queue_unavailable); unset, the default.
		const commandTimeoutMs = process.env.BENCH_QUEUE_COMMAND_TIMEOUT_MS
			? Number(process.env.BENCH_QUEUE_COMMAND_TIMEOUT_MS)
			: undefined;
		const queue = deliveryQueue({ url: REDIS_URL, prefix: KEY_PREFIX, onWarning: false, commandTimeoutMs });
		cleanups.push(() => queue.close());
		const counted = { ...queue, enqueue: (delivery) => queue.enqueue(delivery).then(() => void (handled += 1)) };
		const receiver = createReceiver({ secrets: secret, acknowledge: 'queue', queue: counted, now });
		hooks = receiver.middleware();
		break;
	}
	case 'bullmq-raw': {
		// The floor of the queue mode: the body parsed and added to BullMQ as it is, unverified, one `add` per request,
		// with the job options and job id the receiver's queue uses (so Redis does the same work); 200 once it is added.
		const queueModule = new URL('../../receiver/dist/receiver/src/queue.js', import.meta.url);
		const [{ Queue }, { default: Redis }, defaults] = await Promise.all([
			import('bullmq'),
			import('ioredis'),
			import(queueModule.href),
		]);
		const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
		const queue = new Queue('deliveries', { connection, prefix: KEY_PREFIX });
		cleanups.push(async () => {
			await queue.close();
			await connection.quit();
		});
		const {
			jobIdOf,
			queueJobOptions,
			DEFAULT_QUEUE_ATTEMPTS,
			DEFAULT_QUEUE_BACKOFF_MS,
			DEFAULT_KEEP_COMPLETED_SECONDS,
		} = defaults;
		const jobOptions = queueJobOptions(
			DEFAULT_QUEUE_ATTEMPTS,
			DEFAULT_QUEUE_BACKOFF_MS,
			DEFAULT_KEEP_COMPLETED_SECONDS,
		);
		const answer = (res, status, body) => {
			const text = JSON.stringify(body);
			res
				.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
				.end(text);
		};
		hooks = (req, res) => {
			const chunks = [];
			req.on('data', (chunk) => chunks.push(chunk));
			req.on('end', () => {
				const event = JSON.parse(Buffer.concat(chunks).toString());
				queue.add(event.type, { event, scheme: 'jwt' }, { ...jobOptions, jobId: jobIdOf(event.id) }).then(
					() => {
						handled += 1;
						answer(res, 200, { received: true, id: event.id, queued: true });
					},
					(error) => answer(res, 503, { code: 'queue_unavailable', error: error.message }),
				);
			});
		};
		break;
	}
	case 'hmac-floor': {
		// The least any verifying route pays, as a reference: the body read as the receiver reads it, one HMAC-SHA256 over
		// it compared in constant time (the octokit-signed requests), and a fixed answer. Nothing else: no JSON.parse,
		// no deduplication, no event checks, no listeners. A receiver can only approach it; its ratio to octokit bounds theirs.
		const answer = '{"received":true}';
		// A KeyObject, as the receiver keeps its secrets: Node prepares a key given as a string again for every HMAC.
		const key = createSecretKey(Buffer.from(secret));
		hooks = (req, res) => {
			const chunks = [];
			req.on('data', (chunk) => chunks.push(chunk));
			req.on('end', () => {
				const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
				const received = Buffer.from(String(req.headers['x-hub-signature-256']).slice('sha256='.length), 'hex');
				const expected = createHmac('sha256', key).update(body).digest();
				if (received.length !== expected.length || !timingSafeEqual(received, expected)) {
					res.writeHead(401, { 'content-type': 'application/json' }).end('{"code":"invalid_signature"}');
					return;
				}
				handled += 1;
				res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer);
			});
		};
		break;
	}
	case 'octokit': {
		const webhooks = new Webhooks({ secret });
		webhooks.onAny(() => {
			handled += 1;
		});
		hooks = createNodeMiddleware(webhooks, {
			path: '/hooks',
			log: { debug() {}, info() {}, warn() {}, error: console.error },
		});
		break;
	}
	default:
		console.error(`unknown scenario ${scenario}`);
		process.exit(2);
}

// The speed of the machine for this process right now: a fixed amount of work (HMAC-SHA256 of 1 KiB, 3 000 times), in
// µs of wall time. On a shared virtual machine the CPU slows down by up to 2x for tens of seconds at a time; the runner
// probes before and after each measurement and measures again when it was slowed down.
const PROBE_INPUT = Buffer.alloc(1024, 7);
function probe() {
	const started = process.hrtime.bigint();
	for (let i = 0; i < 3000; i += 1) createHmac('sha256', 'probe').update(PROBE_INPUT).digest();
	return { micros: Number(process.hrtime.bigint() - started) / 1000 };
}
/** CPU time of this process, for CPU per delivery: steadier than throughput on a busy machine. */
function stats() {
	const { user, system } = process.cpuUsage();
	return { handled, requests, cpuMicros: user + system };
}
function json(res, body) {
	const text = JSON.stringify(body);
	res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}
const server = createServer((req, res) => {
	if (req.url === '/hooks') {
		// Every delivery request, answered or refused.
		requests += 1;
		hooks(req, res);
	} else if (req.url === '/stats') json(res, stats());
	else if (req.url === '/probe') json(res, probe());
	else if (req.url === '/gc' && typeof globalThis.gc === 'function') {
		// A full collection (node --expose-gc), so that a measured window starts from the same heap every time.
		globalThis.gc();
		json(res, { collected: true });
	} else res.writeHead(404).end();
});
server.keepAliveTimeout = 0;
server.headersTimeout = 0;
server.requestTimeout = 0;
server.timeout = 0;
server.listen(0, '127.0.0.1', () => {
	console.log(JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` }));
});
/** Removes this process's keys from the shared Redis. */
async function dropKeys() {
	const { default: Redis } = await import('ioredis');
	const redis = new Redis(REDIS_URL);
	let cursor = '0';
	do {
		const [next, keys] = await redis.scan(cursor, 'MATCH', `${KEY_PREFIX}:*`, 'COUNT', 1000);
		if (keys.length) await redis.unlink(...keys);
		cursor = next;
	} while (cursor !== '0');
	await redis.quit();
}
process.on('SIGTERM', () =>
	server.close(async () => {
		for (const cleanup of cleanups) await cleanup().catch(() => undefined);
		if (cleanups.length)
			await dropKeys().catch((error) => console.error('could not remove the benchmark keys:', error));
		process.exit(0);
	}),
);
