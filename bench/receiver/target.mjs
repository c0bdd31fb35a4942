// Starting a benchmark target (server.mjs in its own process) and driving it with autocannon.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Starts `server.mjs <scenario> <secret>` with extra node flags and environment; resolves once it listens.
 * `BENCH_RECEIVER_MODULE` in `env` makes the target load another build of the receiver (to compare two builds).
 */
export async function startTarget(scenario, secret, { nodeFlags = [], env = {} } = {}) {
  const child = spawn(process.execPath, [...nodeFlags, join(here, 'server.mjs'), scenario, secret], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const line = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${scenario} target exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
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
