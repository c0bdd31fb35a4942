#!/usr/bin/env node
/**
 * `npm run bench:sandbox-store`: the sandbox's store at size. Measures, over real HTTP on 127.0.0.1,
 * the latency of
 *   - a point read:   /subscriber/get by bot and client id
 *   - writes:         /list/row/add (one row, committed before the answer) and /subscriber/update
 *   - first pages:    /list/rows/get (20 rows, oldest and newest first) and /subscriber/list (20 cards)
 * in a sandbox with a data file holding only the demo data (the baseline) and in one holding
 * --rows list rows and as many subscribers (row cap raised), requests alternating between the two,
 * and prints p50/p99 of each and the ratio of the p99s. The goal: every p99 within 2x of the baseline's.
 *
 * Usage: node bench/sandbox-store/run.mjs [--rows 200000] [--requests 2000]
 * Both sandboxes run in this process (populating 200,000 subscribers over HTTP would take minutes);
 * requests are sent one at a time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const dist = new URL('../../sandbox/dist/', import.meta.url);
const { startSandbox } = await import(new URL('index.js', dist));
const { addSubscriber } = await import(new URL('domain/subscribers.js', dist));

const { values: args } = parseArgs({
	options: { rows: { type: 'string', default: '200000' }, requests: { type: 'string', default: '2000' } },
});
const ROWS = Number(args.rows);
const REQUESTS = Number(args.requests);
const dir = mkdtempSync(join(tmpdir(), 'bench-sandbox-store-'));

async function call(sandbox, path, body) {
	const response = await fetch(`${sandbox.baseUrl}${path}`, {
		method: 'POST',
		headers: { authorization: sandbox.adminKey, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	const text = await response.text();
	if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text}`);
	return text;
}

async function populate(sandbox, count) {
	const started = performance.now();
	for (let done = 0; done < count; done += 500) {
		const rows = Array.from({ length: Math.min(500, count - done) }, (_, index) => ({
			Name: `Bench ${done + index}`,
			Phone: String(done + index),
		}));
		await call(sandbox, '/list/rows/add', { list: 'Leads', rows });
	}
	const { store, clock } = sandbox.context;
	for (let done = 0; done < count; done += 10_000) {
		store.transaction(() => {
			for (let index = done; index < Math.min(count, done + 10_000); index++) {
				addSubscriber(store, {
					botid: 'bot_tg',
					clientid: `bench-${index}`,
					messenger: 'telegram',
					name: `Bench ${index}`,
					subscribed: clock.iso(),
				});
			}
		});
	}
	return (performance.now() - started) / 1000;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** The operations measured, against one sandbox; `clientCount` bench subscribers exist besides the demo ones. */
function operationsOf(sandbox, clientCount) {
	const pick = () =>
		clientCount > 0 && Math.random() < 0.5 ? `bench-${Math.floor(Math.random() * clientCount)}` : '100001';
	return {
		'point read   /subscriber/get': () => call(sandbox, '/subscriber/get', { botid: 'bot_tg', clientid: pick() }),
		'write        /list/row/add': () =>
			call(sandbox, '/list/row/add', { list: 'Leads', row: { Name: 'Added', Phone: '1' } }),
		'write        /subscriber/update': () =>
			call(sandbox, '/subscriber/update', { botid: 'bot_tg', clientid: pick(), note: String(Math.random()) }),
		'first page   /list/rows/get (old)': () => call(sandbox, '/list/rows/get', { list: 'Leads', limit: 20 }),
		'first page   /list/rows/get (new)': () =>
			call(sandbox, '/list/rows/get', { list: 'Leads', limit: 20, sort: 'new' }),
		'first page   /subscriber/list': () => call(sandbox, '/subscriber/list', { limit: 20 }),
	};
}

/**
 * Requests alternate between the two sandboxes (baseline, loaded, baseline, ...), so that the noise of a
 * shared machine falls on both alike.
 */
async function measure(baseline, loaded) {
	const results = {};
	for (const name of Object.keys(baseline)) {
		const times = [[], []];
		for (let index = 0; index < 200; index++) {
			await baseline[name]();
			await loaded[name]();
		}
		for (let index = 0; index < REQUESTS; index++) {
			for (const [side, operation] of [baseline[name], loaded[name]].entries()) {
				const started = performance.now();
				await operation();
				times[side].push(performance.now() - started);
			}
		}
		const stats = (list) => {
			list.sort((a, b) => a - b);
			return { p50: percentile(list, 50), p99: percentile(list, 99) };
		};
		results[name] = { base: stats(times[0]), big: stats(times[1]) };
	}
	return results;
}

try {
	console.log(
		`bench:sandbox-store: ${REQUESTS} sequential requests per operation, data file (SQLite, WAL), node ${process.version}`,
	);
	const options = { port: 0, rateLimit: 0, rowCap: ROWS * 2 };
	const loaded = await startSandbox({ ...options, dataFile: join(dir, 'loaded.sqlite') });
	const seconds = await populate(loaded, ROWS);
	await loaded.close();
	console.log(`populated ${ROWS} list rows and ${ROWS} subscribers in ${seconds.toFixed(1)} s`);
	const reopened = performance.now();
	const big = await startSandbox({ ...options, dataFile: join(dir, 'loaded.sqlite') });
	await call(big, '/subscriber/list', { limit: 1 });
	await call(big, '/list/rows/get', { list: 'Leads', limit: 1 });
	console.log(
		`reopening the loaded data file (every record read, checked and loaded) took ${((performance.now() - reopened) / 1000).toFixed(2)} s`,
	);
	const baseline = await startSandbox({ ...options, dataFile: join(dir, 'baseline.sqlite') });
	const results = await measure(operationsOf(baseline, 0), operationsOf(big, ROWS));
	await baseline.close();
	await big.close();

	const format = (ms) => `${ms.toFixed(2).padStart(7)} ms`;
	console.log(
		`\n${'operation'.padEnd(36)} ${'baseline p50'.padStart(12)} ${'p99'.padStart(10)}   ${`${ROWS} p50`.padStart(12)} ${'p99'.padStart(10)}   p99 ratio`,
	);
	let worst = 0;
	for (const [name, { base, big }] of Object.entries(results)) {
		const ratio = big.p99 / base.p99;
		worst = Math.max(worst, ratio);
		console.log(
			`${name.padEnd(36)} ${format(base.p50)} ${format(base.p99)}   ${format(big.p50)} ${format(big.p99)}   ${ratio.toFixed(2)}x`,
		);
	}
	console.log(`\nworst p99 ratio: ${worst.toFixed(2)}x (goal: at most 2x) ${worst <= 2 ? 'MET' : 'NOT MET'}`);
} finally {
	rmSync(dir, { recursive: true, force: true });
}
