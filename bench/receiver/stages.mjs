// The receiver's stages, each in a window of its own in one process, for instructions.mjs (under callgrind): it
// prints `ready <stage>`, waits for `go` on stdin (the runner has turned instrumentation on), makes the stage's calls,
// prints `done <stage> <calls>` and waits for `next` (the runner has dumped the counts). Each stage is warmed up on
// other inputs first, so the window counts V8's optimized code.
//   node stages.mjs <calls per window>      BENCH_NOW: the receiver's fixed clock and the signing time (unix seconds)
//   INSTRUCTIONS_STAGES=event-check,dedupe: only the stages named (to compare one stage's builds quickly)
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import {
	createReceiver,
	generateHookSecret,
	memoryDedupeStore,
	sampleEvent,
	signDelivery,
} from '@messenger-bot-builder/receiver';

const dist = new URL('../../receiver/dist/', import.meta.url);
const load = (path) => import(new URL(path, dist).href);
const [
	{ readNodeBody, checkRequestLine, BodyDeadlines },
	{ readNodeHeaders },
	{ locateRawBody },
	{ resolveVerifyOptions },
	{ verifyDeliveryNow },
	{ Listeners, RunContext },
	core,
	{ nodeCrypto },
] = await Promise.all([
	load('receiver/src/body.js'),
	load('nodes/shared/delivery/headers.js'),
	load('receiver/src/node.js'),
	load('receiver/src/options.js'),
	load('receiver/src/nodeVerifier.js'),
	load('receiver/src/listeners.js'),
	load('nodes/shared/delivery/index.js'),
	load('nodes/shared/delivery/nodeCrypto.js'),
]);
const { eventProblem, strictUtf8 } = core;

const calls = Number(process.argv[2] ?? 20_000);
const warmupCalls = Math.max(4000, Math.ceil(calls / 5));
const now = Number(process.env.BENCH_NOW ?? Math.floor(Date.now() / 1000));
const secret = generateHookSecret();
const KINDS = ['subscriber.new', 'subscriber.stage', 'payment.success'];

/** `count` deliveries signed at the fixed time, as the HTTP scenarios send them. */
async function deliveries(count) {
	const list = [];
	for (let i = 0; i < count; i += 1) {
		const event = sampleEvent(KINDS[i % KINDS.length], { hook: 'hook_bench' });
		const text = JSON.stringify(event);
		const { 'x-signature': jwt, ...standard } = await signDelivery({
			body: text,
			eventId: event.id,
			hookId: event.hook,
			secret,
			timestamp: now,
		});
		const body = Buffer.from(text);
		const common = { 'content-type': 'application/json', 'content-length': String(body.byteLength) };
		list.push({
			event,
			body,
			text,
			standardHeaders: { ...common, ...standard },
			jwtHeaders: { ...common, 'x-signature': jwt },
		});
	}
	return list;
}
const warmupInputs = await deliveries(warmupCalls);
const measuredInputs = await deliveries(calls);

const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
async function expect(word) {
	const { value, done } = await lines.next();
	if (done || value !== word) throw new Error(`expected "${word}" on stdin, got ${done ? 'the end' : `"${value}"`}`);
}

/**
 * One stage: `prepare(inputs)` makes what one window needs (fresh stores, readers), `window(prepared, inputs)` makes
 * `inputs.length` calls (it may be async). Warmed up, then measured between `go` and `done`.
 */
const only = process.env.INSTRUCTIONS_STAGES ? new Set(process.env.INSTRUCTIONS_STAGES.split(',')) : undefined;

/** The stages selected, in order; all are warmed up before the first window (see the end of this file). */
const stages = [];
function stage(name, prepare, window) {
	if (only && !only.has(name)) return;
	stages.push({ name, prepare, window });
}

const options = (extra = {}) => resolveVerifyOptions({ secrets: secret, now, ...extra }, nodeCrypto);
const sink = { value: undefined };

// Headers read, method, media type and declared length checked, the raw body located: before the body is read.
stage(
	'request-line',
	(inputs) => ({
		requests: inputs.map((input) => ({ method: 'POST', headers: input.standardHeaders, readableEnded: false })),
		max: options().maxBodyBytes,
	}),
	({ requests, max }) => {
		for (const req of requests) {
			sink.value = locateRawBody(req);
			const headers = readNodeHeaders(req.headers);
			checkRequestLine(req.method, headers, max);
		}
	},
);

/** Streams of one chunk each, read in batches by `read(stream, done)`. */
async function readStreams(inputs, read) {
	const batch = 500;
	for (let start = 0; start < inputs.length; start += batch) {
		const slice = inputs.slice(start, start + batch);
		await new Promise((resolve) => {
			let left = slice.length;
			const finished = () => --left === 0 && resolve();
			for (const input of slice) {
				const stream = new Readable({ read() {} });
				stream.push(input.body);
				stream.push(null);
				read(stream, finished);
			}
		});
	}
}

// The body of a one-chunk stream read as bare-node reads it (the reference), then as the receiver reads it.
stage(
	'body-read-plain',
	() => undefined,
	(_, inputs) =>
		readStreams(inputs, (stream, finished) => {
			const chunks = [];
			stream.on('data', (chunk) => chunks.push(chunk));
			stream.on('end', () => {
				sink.value = Buffer.concat(chunks);
				finished();
			});
		}),
);
stage(
	'body-read',
	() => new BodyDeadlines(10_000),
	(deadlines, inputs) =>
		readStreams(inputs, (stream, finished) =>
			readNodeBody(stream, 1024 * 1024, deadlines, (error, body) => {
				if (error) throw error;
				sink.value = body;
				finished();
			}),
		),
);

// Verification as a whole (signature, body decoded and parsed, event checked), for each scheme.
for (const [name, headersOf] of [
	['verify-standard-webhooks', (input) => input.standardHeaders],
	['verify-jwt', (input) => input.jwtHeaders],
]) {
	stage(
		name,
		(inputs) => ({ verifier: options(), readers: inputs.map((input) => readNodeHeaders(headersOf(input))) }),
		({ verifier, readers }, inputs) => {
			for (let i = 0; i < inputs.length; i += 1) {
				const verified = verifyDeliveryNow(inputs[i].body, readers[i], verifier);
				if (verified instanceof Promise) throw new Error('verification went asynchronous');
				sink.value = verified;
			}
		},
	);
}

// Of which: the Standard Webhooks signature alone (headers read, timestamp, signature list, MAC and its compare, the
// timestamp window), and in it the MAC alone, as the core asks node:crypto for it.
stage(
	'standard-webhooks-signature',
	(inputs) => ({ verifier: options(), readers: inputs.map((input) => readNodeHeaders(input.standardHeaders)) }),
	({ verifier, readers }, inputs) => {
		for (let i = 0; i < inputs.length; i += 1) {
			const headers = readers[i];
			const signed = {
				id: headers.get('webhook-id'),
				timestamp: headers.get('webhook-timestamp'),
				signatures: headers.getAll('webhook-signature'),
			};
			const keys = {
				secrets: verifier.secrets,
				publicKeys: verifier.publicKeys,
				keyCache: verifier.keyCache,
				now,
				toleranceSeconds: verifier.toleranceSeconds,
			};
			sink.value = core.runSteps(core.verifyStandardWebhooks(signed, inputs[i].body, keys));
		}
	},
);
stage(
	'hmac',
	(inputs) => ({
		secret: options().secrets[0],
		prefixes: inputs.map((input) => `${input.standardHeaders['webhook-id']}.${now}.`),
	}),
	({ secret: hmacSecret, prefixes }, inputs) => {
		for (let i = 0; i < inputs.length; i += 1) sink.value = hmacSecret.mac([prefixes[i], inputs[i].body], 'base64');
	},
);

// Of which: the body decoded as strict UTF-8 and parsed, and the event's shape checked.
stage(
	'utf8-and-parse',
	() => undefined,
	(_, inputs) => {
		for (const input of inputs) sink.value = JSON.parse(strictUtf8(input.body));
	},
);
stage(
	'event-check',
	(inputs) => inputs.map((input) => JSON.parse(input.text)),
	(events) => {
		for (const event of events) if (eventProblem(event) !== undefined) throw new Error('the sample event is refused');
	},
);

// Deduplication with the memory store: each event leased, then recorded as done.
stage(
	'dedupe',
	() => memoryDedupeStore(),
	(store, inputs) => {
		for (const { event } of inputs) {
			const outcome = store.begin(event.id, 30_000);
			if (outcome.state !== 'acquired') throw new Error(`a new event was ${outcome.state}`);
			store.complete(event.id, outcome.token);
		}
	},
);

// The event emitted to one listener that returns at once.
stage(
	'emit',
	() => {
		const listeners = new Listeners();
		let emitted = 0;
		listeners.onAny(() => void (emitted += 1));
		return { listeners, emitted: () => emitted };
	},
	({ listeners, emitted }, inputs) => {
		const before = emitted();
		for (const { event } of inputs)
			listeners.run(event, new RunContext('standard-webhooks', event.id), (failed) => failed && process.exit(4));
		if (emitted() - before !== inputs.length) throw new Error('an event was not emitted');
	},
);

// All of it but HTTP: `receive` (onReceipt, memory store; and without the store), the listeners' turn included.
for (const [name, extra] of [
	['receive-standard-webhooks', {}],
	['receive-no-dedupe', { dedupe: false }],
]) {
	stage(
		name,
		() => {
			const receiver = createReceiver({ secrets: secret, now, acknowledge: 'onReceipt', ...extra });
			let emitted = 0;
			receiver.onAny(() => void (emitted += 1));
			return { receiver, emitted: () => emitted };
		},
		async ({ receiver, emitted }, inputs) => {
			for (const input of inputs) {
				const answer = await receiver.receive({ method: 'POST', headers: input.standardHeaders, body: input.body });
				if (answer.status !== 200 || answer.duplicate !== false)
					throw new Error(`receive answered ${answer.status} ${answer.body}`);
			}
			await receiver.idle();
			if (emitted() !== inputs.length) throw new Error(`${emitted()} events emitted for ${inputs.length}`);
		},
	);
}
// Every stage is warmed up before any is measured: warmed up just before its own window, the first stage measured
// counted about 11k instructions per call more than when it came after the others (the same stage, 83k against 72k),
// as the code it shares with them (node:crypto's JavaScript, the core's helpers) was still being compiled during its
// window; a figure must not depend on which stages were selected. The full GC comes between two warm-up passes, never
// just before a window: V8's forced collection discards optimized code, which the next calls compile again.
for (const { prepare, window } of stages) await window(prepare(warmupInputs), warmupInputs);
globalThis.gc?.();
for (const { prepare, window } of stages) await window(prepare(warmupInputs), warmupInputs);
for (const { name, prepare, window } of stages) {
	const prepared = prepare(measuredInputs);
	console.log(`ready ${name}`);
	await expect('go');
	await window(prepared, measuredInputs);
	console.log(`done ${name} ${measuredInputs.length}`);
	await expect('next');
}
console.log('finished');
process.exit(0);
