#!/usr/bin/env node
/**
 * `npm run bench:sandbox-log-flood`: the sandbox's memory under a flood of calls without a key.
 *
 * Starts the sandbox's command line (in-memory store, as `npm start` runs it: the API log lives in the process's
 * memory twice, in the working set and in the in-memory database), makes a few keyed calls, then sends over real
 * HTTP on 127.0.0.1, 16 at a time:
 *   1. --requests calls without a key to short unknown paths: the baseline, its resident memory (RSS) measured after;
 *   2. --requests calls without a key (or with an unknown or a revoked key) to unknown paths of 8 KB: the figure.
 * It prints both RSS figures and their ratio (goal: within 1.25x of the baseline: the log keeps 1,000 entries of
 * such calls with paths cut to 256 characters, so their number and size do not matter), and checks the log
 * afterwards: every keyed entry still there, exactly 1,000 entries without a key.
 *
 * Usage: node bench/sandbox-log-flood/run.mjs [--requests 10050] [--cli <another build's sandbox/dist/cli.js>]
 */
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const FULL_REQUESTS = 10050;
const { values: args } = parseArgs({
	options: { requests: { type: 'string', default: String(FULL_REQUESTS) }, cli: { type: 'string' } },
});
const REQUESTS = Number(args.requests);
/** Fewer calls (the tests' short form) are too few to judge memory growth: the goal line then only informs. */
const SHORT_FORM = REQUESTS < FULL_REQUESTS;
const CONCURRENCY = 16;
const KEYED_CALLS = 50;
const ADMIN_KEY = 'mbb_bench_log_flood';
const MB = 1024 * 1024;
const GOAL_RATIO = 1.25;

const cli = args.cli ?? new URL('../../sandbox/dist/cli.js', import.meta.url).pathname;
const probe = new URL('probe.mjs', import.meta.url);
const child = spawn(
	process.execPath,
	[
		'--expose-gc',
		'--import',
		probe.href,
		cli,
		'--port',
		'0',
		'--rate-limit',
		'0',
		'--no-seed',
		'--admin-key',
		ADMIN_KEY,
	],
	{
		stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
	},
);
const baseUrl = await new Promise((resolve, reject) => {
	let out = '';
	child.stdout.on('data', (chunk) => {
		out += chunk;
		const ready = /Sandbox ready: (\S+)/.exec(out);
		if (ready) resolve(ready[1]);
	});
	child.once('exit', (code) => reject(new Error(`the sandbox exited (${code}) before it was ready: ${out}`)));
});

/**
 * The sandbox's memory after a garbage collection (its probe answers with process.memoryUsage()): `retained` is
 * the JavaScript heap in use plus memory held outside it by JavaScript objects (buffers); `rss` is the resident
 * memory of the whole process, the in-memory SQLite database included.
 */
async function memory() {
	const usage = await new Promise((resolve) => {
		child.once('message', resolve);
		child.send('measure');
	});
	return { retained: usage.heapUsed + usage.external, rss: usage.rss };
}

/** `key` null: no Authorization header. */
async function call(path, { key = ADMIN_KEY, body } = {}) {
	const response = await fetch(`${baseUrl}${path}`, {
		method: body === undefined ? 'GET' : 'POST',
		headers: {
			...(key ? { authorization: key } : {}),
			...(body === undefined ? {} : { 'content-type': 'application/json' }),
		},
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	return { status: response.status, body: await response.json() };
}

async function flood(count, pathOf, keyOf) {
	let next = 0;
	let unexpected = 0;
	await Promise.all(
		Array.from({ length: CONCURRENCY }, async () => {
			while (next < count) {
				const index = next++;
				const { status } = await call(pathOf(index), { key: keyOf(index) });
				if (status !== 404) unexpected++;
			}
		}),
	);
	if (unexpected > 0) throw new Error(`${unexpected} flood requests were not answered 404`);
}

/** Every entry of the log, newest first (each read is logged itself: an entry met twice is kept once). */
async function wholeLog() {
	const entries = new Map();
	let total = Infinity;
	for (let offset = 0; offset < total; offset += 1000) {
		const page = await call('/log/get', { body: { limit: 1000, offset } });
		total = page.body.total;
		for (const entry of page.body.items) entries.set(entry.id, entry);
		if (page.body.items.length === 0) break;
	}
	return [...entries.values()];
}

const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;

try {
	const started = performance.now();
	const restricted = (await call('/key/create', { body: { name: 'bench', scopes: ['bots:read'] } })).body.key;
	const revoked = (await call('/key/create', { body: { name: 'revoked', scopes: ['bots:read'] } })).body.key;
	await call('/key/revoke', { body: { id: revoked.id } });
	for (let index = 0; index < KEYED_CALLS; index++)
		await call(index % 2 ? '/bot/list' : '/group/list', { key: index % 2 ? restricted.key : ADMIN_KEY });
	const keyedBefore = (await wholeLog()).filter((entry) => entry.keyId !== null).map((entry) => entry.id);
	const atStart = await memory();

	await flood(
		REQUESTS,
		(index) => `/flood/${index}`,
		() => null,
	);
	const baseline = await memory();
	const longPath = 'x'.repeat(8192);
	await flood(
		REQUESTS,
		(index) => `/flood/${index}/${longPath}`,
		(index) => [null, 'mbb_unknown', revoked.key][index % 3],
	);
	const figure = await memory();
	const seconds = (performance.now() - started) / 1000;

	const after = await wholeLog();
	const keyedIds = new Set(after.filter((entry) => entry.keyId !== null).map((entry) => entry.id));
	const keyedKept = keyedBefore.filter((id) => keyedIds.has(id)).length;
	const unkeyed = after.filter((entry) => entry.keyId === null);
	const longestPath = Math.max(...after.map((entry) => entry.path.length));
	const ratio = figure.retained / baseline.retained;

	console.log(
		`sandbox log flood: ${REQUESTS} calls without a key to short paths, then ${REQUESTS} to 8 KB paths (${CONCURRENCY} at a time, ${seconds.toFixed(1)} s)`,
	);
	console.log(
		`sandbox memory retained after GC (JS heap + external): ${mb(atStart.retained)} at start, ${mb(baseline.retained)} after the short-path flood (baseline), ${mb(figure.retained)} after the 8 KB flood`,
	);
	console.log(
		`retained after the 8 KB flood / baseline: ${ratio.toFixed(2)}x (growth ${mb(figure.retained - baseline.retained)})`,
	);
	console.log(
		`sandbox RSS (whole process, in-memory database included): ${mb(atStart.rss)} at start, ${mb(baseline.rss)} baseline, ${mb(figure.rss)} after the 8 KB flood (${(figure.rss / baseline.rss).toFixed(2)}x)`,
	);
	console.log(
		`keyed entries kept: ${keyedKept} of ${keyedBefore.length}; entries without a key kept: ${unkeyed.length}; longest stored path: ${longestPath} characters`,
	);
	const correct =
		keyedKept === keyedBefore.length && unkeyed.length === Math.min(1000, 2 * REQUESTS) && longestPath <= 257;
	console.log(`log bounded and keyed entries kept: ${correct}`);
	console.log(
		`goal (memory retained after the 8 KB flood within ${GOAL_RATIO}x of the baseline): ${SHORT_FORM ? 'informational, not checked in the short form' : ratio <= GOAL_RATIO ? 'met' : 'NOT met'}`,
	);
	if (!correct) process.exitCode = 1;
} finally {
	child.kill();
}
