// npm run chaos:receiver: the sandbox sends payment events to two receiver processes (queue mode) behind a
// round-robin balancer, with two queue workers; receivers and workers are killed with SIGKILL at random and
// restarted. The workers' listener applies each payment and marks its event done in one Redis transaction. At the
// end every event the sandbox created must have its effect exactly once.
//
//   node chaos/receiver/run.mjs [--events 5000] [--per-second 0] [--runs plain,aof] [--seconds-limit 600] [--stall-seconds 60]
//
// Run "plain": Redis without persistence, never restarted. Run "aof": Redis with appendonly yes and appendfsync
// always, killed with SIGKILL and restarted in the middle of the run. Each run has its own redis-server on a random
// port (never the shared one). The last line is: lost: N, doubled: N, reruns: N (both runs added up).
//
// lost: payments whose effect was never applied. doubled: effects applied more than once (the guarded counter,
// incremented inside the Lua script that refuses a second application: must stay 0). reruns: runs that reached the
// effect step again after a run of the same event had reached it (an unguarded counter, incremented before that
// script): what the guard had to absorb. Each run's line also gives its bound: a rerun needs a run that reached the
// effect and then lost its job before the job was marked completed, i.e. a worker killed with jobs in flight (at most
// WORKER_CONCURRENCY of them), or Redis killed under both workers (the aof run: at most 2 × WORKER_CONCURRENCY).
// Receiver kills cause none: the job id deduplicates every redelivery.
//
// A run that cannot reach a verdict (the sandbox stops answering, a process of the run fails to start, Redis exits
// by itself, SIGINT/SIGTERM) ends with the line `failed: <cause>` and exit code 2. Whatever the run started (its
// receivers, workers, redis-servers and their temporary directories) is stopped on every way out; when the run
// itself is killed with SIGKILL, its reaper (reaper.mjs, a process of its own group) does it.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Redis from 'ioredis';
import { restartablePort } from '../../test/support/restartablePort.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const { values } = parseArgs({
	options: {
		events: { type: 'string', default: '5000' },
		runs: { type: 'string', default: 'plain,aof' },
		'seconds-limit': { type: 'string', default: '600' },
		'stall-seconds': { type: 'string', default: '60' },
		'per-second': { type: 'string', default: '0' },
		quiet: { type: 'boolean', default: false },
	},
});
const EVENTS = Number(values.events);
const RUNS = values.runs.split(',');
/** A run that has not settled this long after its start fails (a busy machine makes it slow, not wrong). */
const LIMIT_MS = Number(values['seconds-limit']) * 1000;
/** A settling during which nothing changes this long (deliveries pending, jobs open, effects applied) fails. */
const STALL_MS = Number(values['stall-seconds']) * 1000;
/** Payments created per second (0: as fast as the sandbox takes them); a short run is paced so the chaos spans it. */
const PER_SECOND = Number(values['per-second']);
const log = (line) => values.quiet || console.log(line);
/** Jobs a worker runs at once (bounds the reruns a worker kill can cause). */
const WORKER_CONCURRENCY = 8;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const random = (min, max) => min + Math.random() * (max - min);

/** A failure that ends the run without a verdict; its message is the cause the last line names. */
class RunFailed extends Error {}

// What the run started, so that every way out stops it: children, redis-servers, temporary directories, servers.
const children = new Set();
const dirs = new Set();
const closers = new Set();
const reaper = spawn(process.execPath, [join(here, 'reaper.mjs')], {
	stdio: ['pipe', 'ignore', 'inherit'],
	detached: true,
});
reaper.unref();
reaper.stdin.on('error', () => undefined);
const tellReaper = (line) => reaper.stdin.writable && reaper.stdin.write(`${line}\n`);

/** Spawns a process of the run: listed for the reaper until it exits. */
function spawnTracked(command, args, options) {
	const child = spawn(command, args, options);
	children.add(child);
	tellReaper(`pid ${child.pid}`);
	child.once('exit', () => {
		children.delete(child);
		tellReaper(`exited ${child.pid}`);
	});
	return child;
}

function tempDir(prefix) {
	const dir = mkdtempSync(join(tmpdir(), prefix));
	dirs.add(dir);
	tellReaper(`dir ${dir}`);
	return dir;
}

let stopping;
/** Stops everything the run started (once), prints `line`, and exits with `code`. */
function finish(code, line) {
	stopping ??= (async () => {
		const exits = [...children].map(
			(child) =>
				new Promise((resolve) =>
					child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve),
				),
		);
		for (const child of children) child.kill('SIGKILL');
		await Promise.all(exits);
		await Promise.all([...closers].map((close) => close().catch(() => undefined)));
		for (const dir of dirs) {
			rmSync(dir, { recursive: true, force: true });
			tellReaper(`removed ${dir}`);
		}
		console.log(line);
		reaper.stdin.end();
		process.exit(code);
	})();
	return stopping;
}

const causeOf = (error) => {
	if (error instanceof RunFailed) return error.message;
	const code = error?.cause?.code ?? error?.code;
	return `${error instanceof Error ? error.message : String(error)}${code && !String(error?.message).includes(code) ? ` (${code})` : ''}`;
};
const fail = (error) => finish(2, `failed: ${causeOf(error)}`);
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'])
	process.on(signal, () => fail(new RunFailed(`stopped by ${signal}`)));

/**
 * One HTTP request of the run, tried again (up to 8 times, 0.2 s doubling to 3 s apart) when it gets no answer
 * (refused or reset connection, timeout) or a 5xx/429 answer. Only requests that are safe to repeat come here: reads,
 * and writes whose repetition the run accounts for (see `createHook` and the payments). `beforeRetry` runs before
 * each new try.
 */
async function request(what, url, init = {}, beforeRetry = async () => undefined) {
	let last;
	for (let attempt = 1; attempt <= 8; attempt += 1) {
		if (attempt > 1) {
			await sleep(Math.min(3000, 200 * 2 ** (attempt - 2)));
			await beforeRetry();
		}
		try {
			const response = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
			const text = await response.text();
			if (response.status >= 500 || response.status === 429) {
				last = `answered ${response.status}: ${text.slice(0, 200)}`;
				continue;
			}
			const answer = text === '' ? undefined : JSON.parse(text);
			if (response.status !== 200) throw new RunFailed(`${what} answered ${response.status}: ${text.slice(0, 200)}`);
			return answer;
		} catch (error) {
			if (error instanceof RunFailed) throw error;
			last = `no answer (${error?.cause?.code ?? error?.name ?? error})`;
		}
	}
	throw new RunFailed(`${what}: 8 tries, the last ${last}`);
}

const sandboxEntry = join(root, 'sandbox/dist/index.js');
if (!existsSync(sandboxEntry) || !existsSync(join(root, 'receiver/dist/receiver/src/index.js'))) {
	console.error('Build first: npm run build');
	process.exit(2);
}
const { startSandbox } = await import(sandboxEntry);
const { replayDeadLetters, listDeadLetters } = await import('@messenger-bot-builder/receiver');

/** A redis-server of this run, on a random port, in a temporary directory; can be killed and started again. */
async function startRedis({ aof }) {
	const port = await restartablePort();
	const dir = tempDir('mbb-chaos-redis-');
	const args = [
		'--port',
		String(port),
		'--bind',
		'127.0.0.1',
		'--dir',
		dir,
		'--save',
		'',
		'--daemonize',
		'no',
		'--protected-mode',
		'yes',
	];
	args.push(...(aof ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']));
	let child;
	let crashing = false;
	const up = async () => {
		crashing = false;
		const started = spawnTracked('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
		child = started;
		const errors = [];
		started.stderr.on('data', (chunk) => errors.push(chunk));
		// Only the run stops its Redis: an exit by itself ends the run with the cause.
		started.once('exit', (code, signal) => {
			if (!crashing && child === started)
				fail(
					new RunFailed(
						`redis-server on port ${port} exited by itself (${signal ?? `code ${code}`}): ${Buffer.concat(errors).toString().trim().slice(-300)}`,
					),
				);
		});
		const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
		probe.on('error', () => undefined);
		// AOF is loaded before Redis answers PING with PONG; a busy machine may take long to start it.
		const deadline = Date.now() + 60_000;
		for (;;) {
			try {
				await probe.connect();
				if ((await probe.ping()) === 'PONG') break;
			} catch {
				if (Date.now() > deadline) throw new RunFailed(`redis-server on port ${port} did not answer PING within 60 s`);
				probe.disconnect();
				await sleep(50);
			}
		}
		probe.disconnect();
	};
	await up();
	return {
		url: `redis://127.0.0.1:${port}`,
		async crash() {
			crashing = true;
			const exited = new Promise((resolve) => child.once('exit', resolve));
			child.kill('SIGKILL');
			await exited;
		},
		restart: up,
		async stop() {
			crashing = true;
			const exited = new Promise((resolve) =>
				child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve),
			);
			child.kill('SIGKILL');
			await exited;
			rmSync(dir, { recursive: true, force: true });
			dirs.delete(dir);
			tellReaper(`removed ${dir}`);
		},
	};
}

/** A child process that is killed with SIGKILL and started again; `url` is where a receiver listens now. */
function supervised(name, script, env) {
	const state = { name, child: undefined, url: undefined, kills: 0 };
	// A process that exits before it is ready ends the run (it would fail the same way again); one that exits by
	// itself later is started again by the chaos loop or before the settling, as a killed one is.
	state.start = () =>
		new Promise((resolve, reject) => {
			const child = spawnTracked(process.execPath, [join(here, script)], {
				env: { ...process.env, ...env, CHAOS_RUN_PID: String(process.pid) },
				stdio: ['ignore', 'pipe', 'pipe'],
			});
			state.child = child;
			let ready = false;
			let lastError = '';
			child.stderr.on('data', (chunk) => {
				lastError = String(chunk).trim().slice(-300);
				if (!values.quiet) process.stderr.write(`[${name}] ${chunk}`);
			});
			createInterface({ input: child.stdout }).on('line', (line) => {
				const message = JSON.parse(line);
				if (message.listening) state.url = message.listening;
				ready = true;
				resolve();
			});
			child.once('exit', (code, signal) => {
				if (state.child === child) state.url = undefined;
				if (ready || signal === 'SIGKILL') resolve();
				else
					reject(
						new RunFailed(
							`${name} exited before it was ready (${signal ?? `code ${code}`})${lastError ? `: ${lastError}` : ''}`,
						),
					);
			});
		});
	state.kill = async () => {
		const child = state.child;
		if (!child || child.exitCode !== null || child.signalCode !== null) return;
		state.url = undefined;
		const exited = new Promise((resolve) => child.once('exit', resolve));
		child.kill('SIGKILL');
		state.kills += 1;
		await exited;
	};
	return state;
}

/** Round robin over the receivers that are up; a request that fails is answered 502 (the sandbox retries). */
async function startBalancer(receivers) {
	let next = 0;
	const server = createServer(async (req, res) => {
		const chunks = [];
		for await (const chunk of req) chunks.push(chunk);
		const headers = {};
		for (const [name, value] of Object.entries(req.headers)) {
			if (name === 'content-type' || name === 'x-signature' || name.startsWith('webhook-')) headers[name] = value;
		}
		const up = receivers.filter((receiver) => receiver.url);
		const target = up[next++ % Math.max(up.length, 1)];
		if (!target) return res.writeHead(502).end();
		try {
			const answer = await fetch(target.url, {
				method: 'POST',
				headers,
				body: Buffer.concat(chunks),
				signal: AbortSignal.timeout(5000),
			});
			const text = await answer.text();
			res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
		} catch {
			res.writeHead(502).end();
		}
	});
	await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
	const close = () => (server.closeAllConnections(), new Promise((resolve) => server.close(resolve)));
	closers.add(close);
	return { url: `http://127.0.0.1:${server.address().port}/hooks`, close: () => (closers.delete(close), close()) };
}

/** A POST to the sandbox, tried again as `request` says: only for requests the caller may repeat. */
function api(sandbox, path, body, { base = sandbox.baseUrl, beforeRetry } = {}) {
	const init = {
		method: 'POST',
		headers: { 'content-type': 'application/json', authorization: sandbox.adminKey },
		body: JSON.stringify(body),
	};
	return request(`POST ${path}`, `${base}${path}`, init, beforeRetry);
}

/**
 * /hook/create is not idempotent, and its secret is only in its answer: before a new try, a hook of this name that a
 * try without an answer may have made is deleted (it would send deliveries nobody can verify).
 */
function createHook(sandbox, body) {
	const removeLeftovers = async () => {
		const { hooks } = await api(sandbox, '/hook/list', { limit: 100 });
		for (const hook of hooks.filter((candidate) => candidate.name === body.name))
			await api(sandbox, '/hook/delete', { id: hook.id });
	};
	return api(sandbox, '/hook/create', body, { beforeRetry: removeLeftovers });
}

/** How many of the hook's deliveries have `status`, and how many were retried (of those the sandbox still lists). */
async function deliveryCount(sandbox, hookId, status) {
	const { items, total } = await request(
		'GET /hook/deliveries',
		`${sandbox.baseUrl}/hook/deliveries?hook=${hookId}&status=${status}&limit=1000`,
		{ headers: { authorization: sandbox.adminKey } },
	);
	return { total, retried: items.filter((delivery) => delivery.attempts.length > 1).length };
}

async function run(kind) {
	const started = Date.now();
	const aof = kind === 'aof';
	const redis = await startRedis({ aof });
	const redisNote = aof
		? 'Redis with appendonly yes, appendfsync always; killed with SIGKILL and restarted mid-run'
		: 'Redis without persistence, not restarted';
	log(`run ${kind}: ${EVENTS} events; ${redisNote}`);
	// The sender's retries, shortened: about a minute in all instead of 73 minutes.
	const sandbox = await startSandbox({
		port: 0,
		rateLimit: 0,
		retrySchedule: [0.2, 0.5, 1, 1, 2, 2, 3, 3, 5, 5, 5, 5, 10, 10],
		deliveryTimeoutMs: 3000,
	});
	closers.add(sandbox.close);
	// The payments the sandbox recorded, each one payment.success event, as its event bus publishes them (in this
	// process): a payment whose answer was lost, and whose creation was tried again, is counted as well.
	const paymentIds = [];
	sandbox.context.events.listen((type, data) => type === 'payment.success' && paymentIds.push(data.payment.id));
	const id = randomUUID().slice(0, 8);
	const queuePrefix = `mbb-chaos-${id}`;
	const k = `mbb:chaos:${id}:`;
	const receivers = [];
	const balancer = await startBalancer(receivers);
	const { hook, secret } = await createHook(sandbox, {
		name: `chaos ${id}`,
		url: balancer.url,
		events: ['payment.success'],
	});
	const env = {
		MBB_HOOK_SECRET: secret,
		MBB_HOOK_ID: hook.id,
		REDIS_URL: redis.url,
		QUEUE_PREFIX: queuePrefix,
		CHAOS_PREFIX: k,
		WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
	};
	receivers.push(
		supervised('receiver-1', 'receiver-process.mjs', env),
		supervised('receiver-2', 'receiver-process.mjs', env),
	);
	const workers = [
		supervised('worker-1', 'worker-process.mjs', env),
		supervised('worker-2', 'worker-process.mjs', env),
	];
	const processes = [...receivers, ...workers];
	await Promise.all(processes.map((process) => process.start()));
	const client = new Redis(redis.url, { maxRetriesPerRequest: null });
	client.on('error', () => undefined);
	const closeClient = async () => client.disconnect();
	closers.add(closeClient);

	// Chaos: every 0.3–1.2 s one process is killed with SIGKILL and started again 0.1–0.6 s later.
	let chaos = true;
	const chaosLoop = (async () => {
		while (chaos) {
			await sleep(random(300, 1200));
			if (!chaos) break;
			const victim = processes[Math.floor(Math.random() * processes.length)];
			await victim.kill();
			await sleep(random(100, 600));
			await victim.start();
		}
	})();

	// The events: payments created through the sandbox, 16 requests at a time; each is one payment.success event.
	let created = 0;
	const pace = async (n) => {
		if (PER_SECOND > 0) await sleep(Math.max(0, sendingStarted + (n / PER_SECOND) * 1000 - Date.now()));
	};
	const sendingStarted = Date.now();
	let redisRestarted = false;
	await Promise.all(
		Array.from({ length: 16 }, async () => {
			while (created < EVENTS) {
				const n = (created += 1);
				await pace(n);
				await api(
					sandbox,
					'/sandbox/payments',
					{
						botid: 'bot_tg',
						clientid: `chaos_${n % 97}`,
						messenger: 'telegram',
						amount: (n % 50) + 1,
						currency: 'eur',
					},
					{ base: sandbox.url },
				);
				if (aof && !redisRestarted && n >= EVENTS / 2) {
					redisRestarted = true;
					await redis.crash();
					await sleep(300);
					await redis.restart();
				}
			}
		}),
	);
	log(`run ${kind}: ${paymentIds.length} payments created in ${((Date.now() - started) / 1000).toFixed(1)} s`);

	// Let the chaos go on a little, then everything settles: every delivery delivered or given up, every job finished.
	await sleep(2000);
	chaos = false;
	await chaosLoop;
	await Promise.all(
		processes.map((process) =>
			process.child.exitCode === null && process.child.signalCode === null ? undefined : process.start(),
		),
	);
	const where = { url: redis.url, prefix: queuePrefix };
	const deadline = started + LIMIT_MS;
	const openJobs = () =>
		client.call(
			'EVAL',
			"local n = 0 for _, s in ipairs({'wait', 'active', 'paused'}) do n = n + redis.call('LLEN', KEYS[1] .. s) end for _, s in ipairs({'delayed', 'prioritized'}) do n = n + redis.call('ZCARD', KEYS[1] .. s) end return n",
			1,
			`${queuePrefix}:deliveries:`,
		);
	let replayed = 0;
	let redelivered = 0;
	let lastReport = Date.now();
	let lastState = '';
	let lastChange = Date.now();
	// Unsettled is no verdict: the effects still missing may yet come, so the run fails (naming the state) instead of
	// counting them as lost.
	for (;;) {
		const pending = (await deliveryCount(sandbox, hook.id, 'pending')).total;
		const jobs = Number(await openJobs());
		const applied = await client.hlen(`${k}effects`);
		if (pending === 0 && jobs === 0) {
			// Dead-lettered events (every attempt failed) are replayed the way an operator does it.
			const dead = await listDeadLetters(where);
			// Deliveries the sandbox gave up on (its retries are shortened to a minute; on a busy machine every attempt
			// can time out) whose payment has no effect yet are sent again, as an operator presses "Send again" in the
			// console: an event the receivers never acknowledged is the sender's to deliver, not a loss of theirs.
			const effectsNow = await client.hgetall(`${k}effects`);
			const givenUp = sandbox.control
				.deliveries({ hook: hook.id, status: 'failed' })
				.filter((delivery) => !effectsNow[JSON.parse(delivery.body).data.payment.id]);
			if (dead.length === 0 && givenUp.length === 0) break;
			if (dead.length > 0) replayed += (await replayDeadLetters(where)).replayed.length;
			for (const delivery of givenUp) sandbox.control.redeliver(delivery.id);
			redelivered += givenUp.length;
		}
		const state = `${pending} deliveries pending, ${jobs} jobs open, ${applied} of ${paymentIds.length} payments applied, ${redelivered} sent again`;
		if (state !== lastState) [lastState, lastChange] = [state, Date.now()];
		if (Date.now() - lastReport > 10_000) {
			lastReport = Date.now();
			log(`run ${kind}: settling: ${state}`);
		}
		if (Date.now() - lastChange > STALL_MS)
			throw new RunFailed(`run ${kind}: nothing changed for ${STALL_MS / 1000} s while settling (${state})`);
		if (Date.now() > deadline)
			throw new RunFailed(`run ${kind}: not settled within --seconds-limit ${LIMIT_MS / 1000} (${state})`);
		await sleep(500);
	}

	const effects = await client.hgetall(`${k}effects`);
	const reached = await client.hgetall(`${k}reached`);
	const runs = await client.hgetall(`${k}runs`);
	const injected = await client.scard(`${k}injected`);
	const lost = paymentIds.filter((paymentId) => !effects[paymentId]).length;
	// Guarded: incremented only when the script applied the effect.
	const doubled = Object.values(effects).filter((count) => Number(count) > 1).length;
	// Unguarded: every run that reached the effect step, whether the script applied it or refused it.
	const reruns = Object.values(reached).reduce((sum, count) => sum + Math.max(0, Number(count) - 1), 0);
	const rerunEvents = Object.values(reached).filter((count) => Number(count) > 1).length;
	const runsStarted = Object.values(runs).reduce((sum, count) => sum + Number(count), 0);
	const workerKills = workers.reduce((sum, worker) => sum + worker.kills, 0);
	const rerunBound = (workerKills + (aof ? workers.length : 0)) * WORKER_CONCURRENCY;
	const failed = await deliveryCount(sandbox, hook.id, 'failed');
	const delivered = await deliveryCount(sandbox, hook.id, 'delivered');
	const kills = processes.map((process) => `${process.name} ${process.kills}`).join(', ');
	log(
		`run ${kind}: ${paymentIds.length} events; the sandbox gave up on ${failed.total}, retried ${delivered.retried + failed.retried} of those it still lists; ` +
			`SIGKILLs: ${kills}; first attempts failed on purpose: ${injected}; dead letters replayed: ${replayed}; given-up deliveries sent again: ${redelivered}; ` +
			`${((Date.now() - started) / 1000).toFixed(1)} s`,
	);
	log(
		`run ${kind}: listener runs started ${runsStarted} for ${Object.keys(runs).length} events; ${rerunEvents} events reached the effect step more than once`,
	);
	log(
		`run ${kind}: lost: ${lost}, doubled: ${doubled}, reruns: ${reruns} (bound ${rerunBound} = (worker kills ${workerKills}${aof ? ` + Redis crash × ${workers.length} workers` : ''}) × concurrency ${WORKER_CONCURRENCY})`,
	);

	await Promise.all(processes.map((process) => process.kill()));
	closers.delete(closeClient);
	client.disconnect();
	await balancer.close();
	closers.delete(sandbox.close);
	await sandbox.close();
	await redis.stop();
	return { lost, doubled, reruns, rerunBound };
}

const totals = { lost: 0, doubled: 0, reruns: 0 };
try {
	for (const kind of RUNS) {
		if (kind !== 'plain' && kind !== 'aof') throw new RunFailed(`--runs: unknown run "${kind}" (plain, aof)`);
		const result = await run(kind);
		for (const key of Object.keys(totals)) totals[key] += result[key];
	}
} catch (error) {
	await fail(error);
}
await finish(
	totals.lost === 0 && totals.doubled === 0 ? 0 : 1,
	`lost: ${totals.lost}, doubled: ${totals.doubled}, reruns: ${totals.reruns}`,
);
