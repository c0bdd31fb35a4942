// Instructions per delivery of each benchmark target, counted by valgrind (callgrind): a figure that repeats whatever
// else the machine is doing, unlike deliveries/s and CPU time on a shared virtual machine, so the receiver's cost goals
// (GOALS below) are stated in it. Counts user-space instructions of the target's main thread (JIT code included), and of all
// its threads beside it (see below: V8's compilers); the kernel's share (the socket read and write, the same in every
// scenario) is not counted.
//
//   npm run bench:receiver-instructions                  every scenario, then the receiver's stages, each twice
//   npm run bench:receiver-instructions -- --short       fewer deliveries, fewer scenarios (a check that it works)
//   node bench/receiver/instructions.mjs [--short] [--no-stages | --stages-only] [scenario ...]
//   INSTRUCTIONS_DELIVERIES=3000 INSTRUCTIONS_WARMUP=30000 INSTRUCTIONS_REWARM=12000         measured and warm-up deliveries per run
//   INSTRUCTIONS_STAGE_CALLS=20000                                 calls per in-process stage window
//   INSTRUCTIONS_STAGES=event-check,dedupe                         only these stages (stages.mjs reads it)
//   INSTRUCTIONS_WINDOW_LIMIT_SECONDS=240                          longest a warm-up or measured window may take
//   INSTRUCTIONS_PARALLEL=1                                        runs under valgrind at the same time
//   INSTRUCTIONS_KEEP=1                                            keep callgrind's files, for callgrind_annotate
//   INSTRUCTIONS_NODE_FLAGS=--perf-basic-prof                      more node flags (a map of the JIT's functions)
//   BENCH_RECEIVER_MODULE=/tmp/before/receiver/src/index.js        another build, to compare two
//
// What makes a count repeat:
// - The receiver's clock is fixed (its `now` option, BENCH_NOW) and every delivery is signed at that time, so a slow
//   run never sees a signature expire. (standardwebhooks-npm has no clock option: its requests are signed just before
//   each window, and a window may last at most INSTRUCTIONS_WINDOW_LIMIT_SECONDS, below its 300 s tolerance.)
// - The server has no keep-alive, headers or request timeout and the client waits up to 10 minutes for an answer: a
//   slow run loses no connection. Every answer is counted by status: a single non-2xx answer, error or timeout in a
//   window invalidates the run, and the target must have seen and handled exactly the measured deliveries.
// - Only the measured window is counted: valgrind starts with instrumentation off (--instr-atstart=no, which also makes
//   the warm-up much faster), then `callgrind_control --instr=on`, the measured deliveries, `callgrind_control --dump`.
//   A full GC is forced during the warm-up (node --expose-gc), INSTRUCTIONS_REWARM deliveries before its end, not just
//   before the window: V8's forced collection throws optimized code away (maps and field types it depended on change),
//   and the deliveries after it recompile functions of Node's HTTP server and of the receiver, which would otherwise
//   be counted in the window.
// - The figure judged is the main thread's: the instructions of V8's background threads (Node's platform workers:
//   with one GC thread, its concurrent compilers) are read from callgrind's inclusive costs and left out, and printed
//   as a share beside the all-threads count. How much compiling falls into a window depends on when V8 decides to
//   tier functions up, not on what a delivery costs, and it moves the all-threads count far more than the main
//   thread's.
// - V8 works by the clock as little as possible: one GC thread (--single-threaded-gc: no concurrent marking or
//   sweeping racing the window) and a fixed heap-growing schedule without the memory reducer
//   (--predictable-gc-schedule). The code measured is V8's optimized code as in production: compilation stays on.
// - Each scenario runs twice, each time in a new process; the two counts must agree within 2 %, else the scenario is
//   reported as not measured, never as a figure.
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, request as httpRequest } from 'node:http';
import { generateHookSecret } from '@messenger-bot-builder/receiver';
import { SIGNING, signPools } from './deliveries.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const run = promisify(execFile);

export const FULL_SCENARIOS = [
	'bare-node',
	'hmac-floor',
	'octokit',
	'standardwebhooks-npm',
	'receiver-standard-webhooks',
	'standard-webhooks-no-dedupe',
	'receiver-jwt',
	'afterListeners',
	'queue',
	'bullmq-raw',
];
const SHORT_SCENARIOS = ['hmac-floor', 'receiver-standard-webhooks'];
/** Two counts of one scenario further apart than this (relative to their mean) are not a measurement. */
export const MAX_DISAGREEMENT = 0.02;

/** The receiver's cost goals, each against a reference measured in the same run. */
export const GOALS = [
	{ scenario: 'receiver-standard-webhooks', reference: 'octokit', atMostTimes: 1.0 },
	{ scenario: 'standard-webhooks-no-dedupe', reference: 'hmac-floor', atMostPlus: 30_000 },
	{ scenario: 'receiver-standard-webhooks', reference: 'hmac-floor', atMostPlus: 50_000 },
	{ scenario: 'receiver-jwt', reference: 'octokit', atMostTimes: 1.1 },
	{ scenario: 'queue', reference: 'bullmq-raw', atMostTimes: 1.1 },
];

const args = process.argv.slice(2);
const short = args.includes('--short');
const withStages = !args.includes('--no-stages');
const named = args.filter((arg) => !arg.startsWith('--'));
const scenarios = args.includes('--stages-only') ? [] : named.length ? named : short ? SHORT_SCENARIOS : FULL_SCENARIOS;
for (const scenario of scenarios)
	if (!SIGNING[scenario]) throw new Error(`unknown scenario "${scenario}" (use ${Object.keys(SIGNING).join(', ')})`);
const measured = Number(process.env.INSTRUCTIONS_DELIVERIES ?? (short ? 500 : 3000));
// V8 still optimizes the receiver's functions (and Node's own) after thousands of deliveries: with a short warm-up much
// of the measured window is its compiler threads' work, and functions called once per delivery (the HMAC adapter, the
// signature list) reach TurboFan late (node --trace-opt). Hence a long warm-up, sent in parts that each fit the
// window limit.
const warmup = Number(process.env.INSTRUCTIONS_WARMUP ?? (short ? 1500 : 30_000));
/** Warm-up deliveries per part: each part is one window of `send`, held to the window limit. */
const WARMUP_PART = 4000;
/** Deliveries after the forced full GC and before the window: enough for V8 to compile again what the GC discarded. */
const rewarm = Number(process.env.INSTRUCTIONS_REWARM ?? (short ? 1000 : 12_000));
if (!(rewarm >= 0 && rewarm <= warmup))
	throw new Error(`INSTRUCTIONS_REWARM must lie between 0 and the warm-up (${warmup})`);
const stageCalls = Number(process.env.INSTRUCTIONS_STAGE_CALLS ?? (short ? 5000 : 20_000));
const windowLimitMs = Number(process.env.INSTRUCTIONS_WINDOW_LIMIT_SECONDS ?? 240) * 1000;
const parallel = Math.max(1, Number(process.env.INSTRUCTIONS_PARALLEL ?? 1));
const CONNECTIONS = 10;
/**
 * The queue scenarios send one delivery at a time: the receiver's queue gathers the enqueues of one turn into one
 * `addBulk`, and ioredis reads as many replies per socket read as have arrived, so with several requests in flight
 * the work per delivery depends on timing (bullmq-raw's two runs differed by 15.7 % with 10 connections).
 */
const ONE_IN_FLIGHT = new Set(['queue', 'bullmq-raw']);
const connectionsOf = (scenario) => (ONE_IN_FLIGHT.has(scenario) ? 1 : CONNECTIONS);
/**
 * The queue's bound on an enqueue, for the bench only: under valgrind an enqueue takes longer than the product's 2 s
 * default (`commandTimeoutMs`), and the queue scenario answered 503 queue_unavailable in its warm-up.
 */
const BENCH_QUEUE_COMMAND_TIMEOUT_MS = 600_000;
const NODE_FLAGS = [
	'--expose-gc',
	'--single-threaded-gc',
	'--predictable-gc-schedule',
	...(process.env.INSTRUCTIONS_NODE_FLAGS ?? '').split(' ').filter(Boolean),
];

/** The machine could not finish a window in time: the run stops and says so. */
class TooBusy extends Error {}

try {
	await run('valgrind', ['--version']);
} catch {
	console.error('valgrind is not installed (Debian: apt-get install valgrind)');
	process.exit(2);
}

const secret = generateHookSecret();
/** The receiver's fixed clock and the signing time of every delivery (whole seconds). */
const signedAt = Math.floor(Date.now() / 1000);
/**
 * Events per connection for `count` requests: the connections share the requests as they are answered, so one may
 * send more than its even share; one that ran past its slice would send events again, answered as duplicates at a
 * lower cost (and refused as a miscount).
 */
const slicePerConnection = (count, connections) => 2 * Math.ceil(count / connections);

/**
 * The runner's connections to one target, open from its first request to its end: a connection closed and another
 * opened between the warm-up and the window made V8 deoptimize hot functions of Node's HTTP server as the sockets
 * went away (a "wrong map" in `emit`, `destroy`, `removeListener`), and compile them again inside the window.
 */
function openConnections(url, count) {
	const { hostname, port } = new URL(url);
	const agents = Array.from({ length: count }, () => new Agent({ keepAlive: true, maxSockets: 1, timeout: 0 }));
	const request = (agent, method, path, headers, body) =>
		new Promise((resolve, reject) => {
			const req = httpRequest({ host: hostname, port, method, path, headers, agent, timeout: windowLimitMs }, (res) => {
				const chunks = [];
				res.on('data', (chunk) => chunks.push(chunk));
				res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
				res.on('error', reject);
			});
			req.on('timeout', () => req.destroy(new Error(`no answer within ${windowLimitMs / 1000} s`)));
			req.on('error', reject);
			req.end(body);
		});
	return {
		count,
		/** GET of a control route (`/gc`, `/stats`) on the first connection, as JSON. */
		async getJson(path) {
			const answer = await request(agents[0], 'GET', path, {});
			if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}`);
			return JSON.parse(answer.body);
		},
		/**
		 * Sends exactly `total` requests, connection `c` cycling through `slices[c]`, one at a time on each; resolves with the
		 * status counts when every answer was 2xx, else rejects naming what came back. Stops the machine's run when it
		 * takes longer than the limit.
		 */
		async send(slices, total, what) {
			let next = 0;
			const statuses = {};
			const failures = [];
			let timedOut = false;
			const timer = setTimeout(() => (timedOut = true), windowLimitMs);
			await Promise.all(
				agents.map(async (agent, c) => {
					const slice = slices[c];
					for (let i = 0; next < total && !timedOut && failures.length === 0; i += 1) {
						next += 1;
						const { method, path, headers, body } = slice[i % slice.length];
						try {
							const { status } = await request(agent, method, path, headers, body);
							statuses[status] = (statuses[status] ?? 0) + 1;
						} catch (error) {
							failures.push(error.message);
						}
					}
				}),
			);
			clearTimeout(timer);
			const answered = Object.values(statuses).reduce((sum, n) => sum + n, 0);
			if (timedOut)
				throw new TooBusy(
					`the machine is too busy: ${what} did not finish within ${windowLimitMs / 1000} s (${answered} of ${total} answered); stopping`,
				);
			const refused = Object.keys(statuses).filter((code) => !code.startsWith('2'));
			if (refused.length || failures.length || answered !== total) {
				const codes = Object.entries(statuses)
					.map(([code, n]) => `${n}× ${code}`)
					.join(', ');
				throw new Error(
					`${what}: ${answered} answers for ${total} requests (${codes}), ${failures.length} errors (${failures[0] ?? 'none'}): the run is invalid`,
				);
			}
			return statuses;
		},
		close() {
			for (const agent of agents) agent.destroy();
		},
	};
}

/** The instruction count of the dump file callgrind wrote for `pid` whose name is not in `seen`, and its path. */
function newDump(dir, pid, seen) {
	let total = 0;
	let files = 0;
	let file;
	for (const name of readdirSync(dir).filter((name) => name.startsWith(`callgrind.out.${pid}.`) && !seen.has(name))) {
		seen.add(name);
		const text = readFileSync(join(dir, name), 'utf8');
		const summary = Number(/^summary: (\d+)/m.exec(text)?.[1]);
		const totals = Number(/^totals: (\d+)/m.exec(text)?.[1]);
		if (!(summary > 0) || Math.abs(summary - totals) > summary * 0.001) {
			throw new Error(
				`callgrind's file ${name} is inconsistent (summary ${summary}, totals ${totals}): not a measurement`,
			);
		}
		total += summary;
		files += 1;
		file = join(dir, name);
	}
	if (files !== 1) throw new Error(`expected one new callgrind dump for process ${pid}, found ${files}`);
	return { instructions: total, file };
}

/**
 * The instructions of a window that V8's background threads did (Node's platform worker threads: with one GC thread,
 * its concurrent compilers), read from callgrind's inclusive costs.
 */
async function backgroundInstructions(file) {
	const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], {
		maxBuffer: 64 * 1024 * 1024,
	});
	const line = stdout.split('\n').find((text) => text.includes('PlatformWorkerThread'));
	const background = line ? Number(/^\s*([\d,]+)/.exec(line)[1].replaceAll(',', '')) : 0;
	return background;
}

const control = (pid, ...options) => run('callgrind_control', [...options, String(pid)], { timeout: windowLimitMs });

/**
 * Instrumentation on, then every counter zeroed: with instrumentation switched off and on between dumps, callgrind's
 * `summary` of a later dump is the difference from a total it no longer keeps (it came out negative here), and its
 * `totals` carry the costs of earlier windows; zeroed, both are this window's (newDump checks that they agree).
 */
async function startWindow(pid) {
	await control(pid, '--instr=on');
	await control(pid, '--zero');
}

/** Starts `script args` under callgrind with instrumentation off; `onLine` gets each line it prints on stdout. */
function startUnderCallgrind(script, scriptArgs, env) {
	const dir = mkdtempSync(join(tmpdir(), 'mbb-callgrind-'));
	const child = spawn(
		'valgrind',
		[
			'--tool=callgrind',
			'--instr-atstart=no',
			'--dump-instr=no',
			`--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`,
			process.execPath,
			...NODE_FLAGS,
			script,
			...scriptArgs,
		],
		{ stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env }, cwd: dir },
	);
	let stderr = '';
	child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
	let exit;
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve((exit = code ?? signal))));
	// Lines not read yet: the process may print a line (or exit) while the runner waits for callgrind_control.
	const lines = [];
	let waiting;
	createInterface({ input: child.stdout }).on('line', (line) => {
		lines.push(line);
		waiting?.();
	});
	const nextLine = async () => {
		for (;;) {
			if (lines.length) return lines.shift();
			if (exit !== undefined) throw new Error(`${script} exited with ${exit} under valgrind: ${stderr}`);
			await Promise.race([new Promise((resolve) => (waiting = resolve)), exited]);
		}
	};
	const stop = async () => {
		// SIGTERM lets valgrind remove its gdbserver pipes from /tmp (callgrind_control talks through them).
		child.kill('SIGTERM');
		let timer;
		const stopped = await Promise.race([
			exited.then(() => true),
			new Promise((resolve) => (timer = setTimeout(resolve, 60_000, false))),
		]);
		clearTimeout(timer);
		if (!stopped) {
			child.kill('SIGKILL');
			await exited;
			for (const name of readdirSync(tmpdir()).filter(
				(name) => name.startsWith('vgdb-pipe-') && name.includes(`-${child.pid}-`),
			)) {
				rmSync(join(tmpdir(), name), { force: true });
			}
		}
		if (process.env.INSTRUCTIONS_KEEP) process.stderr.write(`callgrind files kept in ${dir}\n`);
		else rmSync(dir, { recursive: true, force: true });
	};
	return { child, dir, nextLine, stop };
}

/** One run of a scenario in a new process: instructions per measured delivery. */
async function countOnce(scenario) {
	const signing = SIGNING[scenario];
	// standardwebhooks-npm checks the timestamp against the real clock: signed just before each window.
	const realClock = scenario === 'standardwebhooks-npm';
	const timestamp = () => (realClock ? Math.floor(Date.now() / 1000) : signedAt);
	const target = startUnderCallgrind(join(here, 'server.mjs'), [scenario, secret], {
		BENCH_NOW: String(signedAt),
		BENCH_QUEUE_COMMAND_TIMEOUT_MS: String(BENCH_QUEUE_COMMAND_TIMEOUT_MS),
	});
	const connections = connectionsOf(scenario);
	const seen = new Set();
	let client;
	try {
		const { url } = JSON.parse(await target.nextLine());
		client = openConnections(url, connections);
		const { getJson } = client;
		const gcAt = warmup - rewarm;
		for (let sent = 0; sent < warmup;) {
			if (sent === gcAt) await getJson('/gc');
			const part = Math.min(WARMUP_PART, (sent < gcAt ? gcAt : warmup) - sent);
			const warmupPools = await signPools(secret, connections, slicePerConnection(part, connections), timestamp());
			await client.send(warmupPools[signing], part, `${scenario}'s warm-up (deliveries ${sent + 1}-${sent + part})`);
			sent += part;
			// The request for the counts, as before and after the window: the first one taken by the target's request
			// handler after it was optimized for deliveries alone deoptimized it, with the receiver inlined into it, and
			// the window recompiled them (13-17 % of its instructions in V8's compiler threads).
			await getJson('/stats');
		}
		if (gcAt === warmup) await getJson('/gc');
		// The measured events are not the warm-up's (a duplicate costs less).
		const measuredPools = await signPools(secret, connections, slicePerConnection(measured, connections), timestamp());
		const before = await getJson('/stats');
		await startWindow(target.child.pid);
		const started = Date.now();
		await client.send(measuredPools[signing], measured, `${scenario}'s measured window`);
		await control(target.child.pid, '--dump=measured');
		const seconds = (Date.now() - started) / 1000;
		await control(target.child.pid, '--instr=off');
		const { instructions, file } = newDump(target.dir, target.child.pid, seen);
		const background = await backgroundInstructions(file);
		const mainThread = instructions - background;
		const after = await getJson('/stats');
		// Every measured request a new event, handled in full.
		if (after.requests - before.requests !== measured || after.handled - before.handled !== measured) {
			throw new Error(
				`${scenario}: ${after.requests - before.requests} requests and ${after.handled - before.handled} events handled for ${measured} deliveries: the run is invalid`,
			);
		}
		process.stderr.write(
			`  ${scenario}: ${Math.round(mainThread / measured)} instructions per delivery on the main thread, ${Math.round(instructions / measured)} with V8's background threads ` +
				`(${((background / instructions) * 100).toFixed(1)} %; a window of ${Math.round(seconds)} s)\n`,
		);
		return {
			perDelivery: mainThread / measured,
			allThreads: instructions / measured,
			background: background / instructions,
			seconds,
		};
	} finally {
		client?.close();
		await target.stop();
	}
}

/**
 * The receiver's stages in one process (stages.mjs): for each, it says `ready <stage>` and waits; instrumentation is
 * turned on, it runs the stage's calls and says `done <stage> <calls>`; the window is dumped.
 */
async function stagesOnce() {
	const target = startUnderCallgrind(join(here, 'stages.mjs'), [String(stageCalls)], { BENCH_NOW: String(signedAt) });
	const seen = new Set();
	const perCall = {};
	try {
		for (;;) {
			const line = await target.nextLine();
			if (line === 'finished') break;
			const [word, stage] = line.split(' ');
			if (word !== 'ready') throw new Error(`stages.mjs said "${line}"`);
			await startWindow(target.child.pid);
			target.child.stdin.write('go\n');
			let timer;
			const done = await Promise.race([
				target.nextLine(),
				new Promise(
					(_, reject) =>
						(timer = setTimeout(
							() =>
								reject(
									new TooBusy(
										`the machine is too busy: the stage ${stage} did not finish within ${windowLimitMs / 1000} s; stopping`,
									),
								),
							windowLimitMs,
						)),
				),
			]);
			clearTimeout(timer);
			const [doneWord, doneStage, calls] = done.split(' ');
			if (doneWord !== 'done' || doneStage !== stage) throw new Error(`stages.mjs said "${done}" after ${stage}`);
			await control(target.child.pid, `--dump=${stage}`);
			await control(target.child.pid, '--instr=off');
			const { instructions, file } = newDump(target.dir, target.child.pid, seen);
			const background = await backgroundInstructions(file);
			perCall[stage] = { perCall: (instructions - background) / Number(calls), background: background / instructions };
			target.child.stdin.write('next\n');
		}
		return perCall;
	} finally {
		await target.stop();
	}
}

const disagreement = (a, b) => Math.abs(a - b) / ((a + b) / 2);
const round3 = (x) => Math.round(x * 1000) / 1000;
const thousands = (n) => `${(n / 1000).toFixed(1)}k`;

const loadAtStart = loadavg().map((x) => Math.round(x * 100) / 100);
const results = [];
let stopped;

/** Runs the tasks `parallel` at a time, in order; the first TooBusy stops the rest. */
async function pool(tasks) {
	const settled = new Array(tasks.length);
	let next = 0;
	const worker = async () => {
		while (next < tasks.length && !stopped) {
			const index = next++;
			try {
				settled[index] = { value: await tasks[index]() };
			} catch (error) {
				if (error instanceof TooBusy) stopped ??= error.message;
				settled[index] = { error };
			}
		}
	};
	await Promise.all(Array.from({ length: parallel }, worker));
	return settled;
}

// Each scenario twice, each run in a new process; with INSTRUCTIONS_PARALLEL, several at once (counts do not depend
// on it, only the time the run takes).
for (const scenario of scenarios)
	process.stderr.write(`${scenario}: ${warmup} warm-up + ${measured} measured deliveries under callgrind, twice\n`);
const runs = await pool(scenarios.flatMap((scenario) => [0, 1].map(() => () => countOnce(scenario))));
if (!stopped) {
	scenarios.forEach((scenario, index) => {
		const [a, b] = [runs[2 * index], runs[2 * index + 1]];
		if (a.error || b.error) {
			// A run with a refused answer, a lost connection or a miscount is no measurement.
			const reason = (a.error ?? b.error).message;
			process.stderr.write(`${scenario}: NOT MEASURED: ${reason}\n`);
			results.push({ scenario, instructionsPerDelivery: null, repeatAgreement: null, runs: [], notMeasured: reason });
			return;
		}
		const agreement = disagreement(a.value.perDelivery, b.value.perDelivery);
		const ok = agreement <= MAX_DISAGREEMENT;
		results.push({
			scenario,
			instructionsPerDelivery: ok ? Math.round((a.value.perDelivery + b.value.perDelivery) / 2) : null,
			repeatAgreement: round3(agreement),
			runs: [Math.round(a.value.perDelivery), Math.round(b.value.perDelivery)],
			windowSeconds: [Math.round(a.value.seconds), Math.round(b.value.seconds)],
			allThreads: [Math.round(a.value.allThreads), Math.round(b.value.allThreads)],
			backgroundShare: [round3(a.value.background), round3(b.value.background)],
			...(ok
				? {}
				: {
						notMeasured: `the two counts differ by ${(agreement * 100).toFixed(1)} % (more than ${MAX_DISAGREEMENT * 100} %)`,
					}),
		});
	});
}

let stages;
if (!stopped && withStages) {
	try {
		process.stderr.write(`receiver stages in process: ${stageCalls} calls per window, twice...\n`);
		const [first, second] = await pool([stagesOnce, stagesOnce]);
		if (first.error || second.error) throw first.error ?? second.error;
		const [a, b] = [first.value, second.value];
		stages = Object.keys(a).map((stage) => {
			const agreement = disagreement(a[stage].perCall, b[stage].perCall);
			const ok = agreement <= MAX_DISAGREEMENT;
			return {
				stage,
				instructionsPerCall: ok ? Math.round((a[stage].perCall + b[stage].perCall) / 2) : null,
				repeatAgreement: round3(agreement),
				runs: [Math.round(a[stage].perCall), Math.round(b[stage].perCall)],
				backgroundShare: [round3(a[stage].background), round3(b[stage].background)],
			};
		});
	} catch (error) {
		if (!(error instanceof TooBusy)) throw error;
		stopped = error.message;
	}
}

if (stopped) {
	console.error(stopped);
	process.exit(3);
}

const figure = (name) => results.find((r) => r.scenario === name)?.instructionsPerDelivery ?? null;
const octokit = figure('octokit');
const floor = figure('hmac-floor');
if (results.length) {
	console.log(
		`\ninstructions per delivery (user space, main thread; ${measured} measured deliveries after ${warmup} warm-up, the GC forced ${rewarm} before its end; each scenario twice)`,
	);
	console.log(
		`${'scenario'.padEnd(30)}${'instructions'.padStart(14)}${'repeat'.padStart(9)}${'× octokit'.padStart(11)}${'− hmac-floor'.padStart(14)}${'all threads'.padStart(14)}${'compilers'.padStart(11)}`,
	);
}
for (const r of results) {
	const n = r.instructionsPerDelivery;
	if (n === null) {
		const repeat = r.repeatAgreement === null ? '-' : `${(r.repeatAgreement * 100).toFixed(1)} %`;
		console.log(`${r.scenario.padEnd(30)}${'not measured'.padStart(14)}${repeat.padStart(9)}   ${r.notMeasured}`);
		continue;
	}
	const ratio = octokit ? (n / octokit).toFixed(2) : '-';
	const above = floor ? `${n - floor >= 0 ? '+' : ''}${thousands(n - floor)}` : '-';
	const allThreads = Math.round((r.allThreads[0] + r.allThreads[1]) / 2);
	const compilers = `${(Math.max(...r.backgroundShare) * 100).toFixed(1)} %`;
	console.log(
		`${r.scenario.padEnd(30)}${String(n).padStart(14)}${`${(r.repeatAgreement * 100).toFixed(1)} %`.padStart(9)}${ratio.padStart(11)}${above.padStart(14)}${String(allThreads).padStart(14)}${compilers.padStart(11)}`,
	);
}
if (stages) {
	console.log(`\nreceiver stages in process (instructions per call; ${stageCalls} calls per window, twice)`);
	for (const s of stages) {
		const n = s.instructionsPerCall === null ? 'not measured' : String(s.instructionsPerCall);
		console.log(`${s.stage.padEnd(30)}${n.padStart(14)}${`${(s.repeatAgreement * 100).toFixed(1)} %`.padStart(9)}`);
	}
}

const verdicts = [];
for (const goal of GOALS) {
	const value = figure(goal.scenario);
	const reference = figure(goal.reference);
	const bound =
		reference === null
			? null
			: goal.atMostTimes !== undefined
				? reference * goal.atMostTimes
				: reference + goal.atMostPlus;
	const text =
		goal.atMostTimes !== undefined
			? `${goal.scenario} ≤ ${goal.atMostTimes.toFixed(1)}× ${goal.reference}`
			: `${goal.scenario} ≤ ${goal.reference} + ${goal.atMostPlus / 1000}k`;
	if (!scenarios.includes(goal.scenario) || !scenarios.includes(goal.reference)) continue;
	const verdict = value === null || bound === null ? 'NOT MEASURED' : value <= bound ? 'MET' : 'NOT MET';
	const detail = value === null || bound === null ? '' : ` (${value} against ${Math.round(bound)})`;
	verdicts.push({ goal: text, verdict, value, bound: bound === null ? null : Math.round(bound) });
	console.log(`${verdict.padEnd(13)}${text}${detail}`);
}

const outDir = join(root, 'bench/out/receiver');
mkdirSync(outDir, { recursive: true });
const outFile = join(
	outDir,
	scenarios.length === 0 ? 'instructions.stages.json' : short ? 'instructions.short.json' : 'instructions.json',
);
writeFileSync(
	outFile,
	`${JSON.stringify(
		{
			date: new Date().toISOString(),
			machine: `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}`,
			node: process.version,
			loadAtStart,
			loadAtEnd: loadavg().map((x) => Math.round(x * 100) / 100),
			measuredDeliveries: measured,
			warmupDeliveries: warmup,
			stageCalls,
			results,
			stages,
			goals: verdicts,
		},
		null,
		2,
	)}\n`,
);
console.log(`\nwritten to ${relative(process.cwd(), outFile)}`);
