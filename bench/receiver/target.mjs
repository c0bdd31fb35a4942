// Starting a benchmark target (server.mjs in its own process) and driving it with autocannon.
import { execFileSync, spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Pins the load generator (this process) to CPU 0 and each target to CPU 1, so that they do not migrate onto each
 * other's CPU between rounds (unpinned, a 2-CPU virtual machine flips between a fast and a slow state and a target's
 * deliveries/s varies by a factor of 2). BENCH_PIN=0 turns it off; Linux with taskset and 2 CPUs or more only.
 */
export function pinToSeparateCpus() {
	if (process.env.BENCH_PIN === '0' || process.platform !== 'linux' || availableParallelism() < 2) return false;
	try {
		execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
	} catch {
		return false;
	}
	process.env.BENCH_TARGET_CPUS ??= '1';
	return true;
}

/**
 * Starts `server.mjs <scenario> <secret>` with extra node flags and environment; resolves once it listens.
 * `BENCH_RECEIVER_MODULE` in `env` makes the target load another build of the receiver (to compare two builds).
 * `onLine` receives every other line the target prints on stdout (what node flags such as --trace-gc-nvp write).
 */
export async function startTarget(scenario, secret, { nodeFlags = [], env = {}, onLine } = {}) {
	const command = [process.execPath, ...nodeFlags, join(here, 'server.mjs'), scenario, secret];
	// BENCH_TARGET_CPUS pins the target (all its threads) to these CPUs, e.g. "1" (with taskset, Linux).
	if (process.env.BENCH_TARGET_CPUS) command.unshift('taskset', '-c', process.env.BENCH_TARGET_CPUS);
	const child = spawn(command[0], command.slice(1), {
		stdio: ['ignore', 'pipe', 'inherit'],
		env: { ...process.env, ...env },
	});
	const line = await new Promise((resolve, reject) => {
		child.once('exit', (code) => reject(new Error(`${scenario} target exited with ${code}`)));
		createInterface({ input: child.stdout }).on('line', (output) => {
			if (output.startsWith('{"url"')) resolve(output);
			else onLine?.(output);
		});
	});
	const exited = new Promise((resolve) => child.once('exit', resolve));
	return {
		url: JSON.parse(line).url,
		pid: child.pid,
		/** Stops the target and waits for it to exit (a CPU profile is written on exit). */
		stop: () => {
			child.kill('SIGTERM');
			return exited;
		},
	};
}

/** The target's counters: requests seen, events emitted to listeners, process CPU time in µs. */
export async function targetStats(url) {
	return (await fetch(`${url}/stats`)).json();
}

/** The target's speed probe: µs of wall time for a fixed amount of work (the lowest of three tries). */
export async function probeSpeed(url) {
	let best = Infinity;
	for (let i = 0; i < 3; i += 1) best = Math.min(best, (await (await fetch(`${url}/probe`)).json()).micros);
	return best;
}

/** Sends each connection's slice of requests in a loop for `seconds`. */
export function drive(url, slices, seconds, connections) {
	let next = 0;
	return autocannon({
		url,
		connections,
		pipelining: 1,
		duration: seconds,
		setupClient: (client) => client.setRequests(slices[next++ % slices.length]),
	});
}
