// Instructions per delivery of each benchmark target, counted by valgrind (callgrind): a figure that does not depend on
// what else the machine is doing, unlike deliveries/s and CPU time on a shared virtual machine (which vary by ±15 %
// between two measurements of the same build). For deciding whether a change to the hot path pays, not for the goals:
// those are stated in deliveries/s (run.mjs). Counts user-space instructions of every thread of the target (JIT code
// included); the kernel's share (the socket read and write, the same in every scenario) is not counted.
//   node bench/receiver/instructions.mjs [scenario ...]            (default: hmac-floor octokit receiver-standard-webhooks receiver-jwt)
//   INSTRUCTIONS_DELIVERIES=3000 INSTRUCTIONS_WARMUP=4000          (measured and warm-up deliveries per scenario)
//   BENCH_RECEIVER_MODULE=/tmp/before/receiver/src/index.js        (another build, to compare two)
//   INSTRUCTIONS_KEEP=1                                            (keep callgrind's files, for callgrind_annotate)
//   INSTRUCTIONS_NODE_FLAGS=--perf-basic-prof                      (node flags of the target: a map of the JIT's functions)
// Each target runs under valgrind (about 50 times slower): the warm-up lets V8 optimize the hot path, the counters are
// zeroed, the measured deliveries are sent (10 connections), and the counters dumped.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { generateHookSecret } from '@messenger-bot-builder/receiver';
import { SIGNING, signPools } from './deliveries.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const scenarios = process.argv.slice(2).length ? process.argv.slice(2) : ['hmac-floor', 'octokit', 'receiver-standard-webhooks', 'receiver-jwt'];
for (const scenario of scenarios) if (!SIGNING[scenario]) throw new Error(`unknown scenario "${scenario}" (use ${Object.keys(SIGNING).join(', ')})`);
const measured = Number(process.env.INSTRUCTIONS_DELIVERIES ?? 3000);
const warmup = Number(process.env.INSTRUCTIONS_WARMUP ?? 4000);
const connections = 10;
try {
  execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
} catch {
  console.error('valgrind is not installed (Debian: apt-get install valgrind)');
  process.exit(2);
}

const secret = generateHookSecret();
/**
 * Events per connection for `count` requests: autocannon shares them out unevenly (a connection that is answered sooner
 * sends more), and one that ran past its slice would send events again, answered as duplicates at a lower cost.
 */
const slicePerConnection = (count) => 2 * Math.ceil(count / connections);

/** Sends exactly `count` requests, each connection cycling through its own slice. */
async function send(url, slices, count) {
  let next = 0;
  const result = await autocannon({
    url,
    connections,
    pipelining: 1,
    amount: count,
    timeout: 60,
    setupClient: (client) => client.setRequests(slices[next++ % slices.length]),
  });
  if (result.non2xx || result.errors || result.timeouts) throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
}

/** The target's counters: requests seen and events emitted to its listener. */
async function stats(url) {
  return (await fetch(`${url}/stats`)).json();
}

/** Sums the `summary:` (or `totals:`) line of every dump file callgrind wrote for one process. */
function totalInstructions(dir, pid) {
  let total = 0;
  for (const name of readdirSync(dir).filter((name) => name.startsWith(`callgrind.out.${pid}`))) {
    const text = readFileSync(join(dir, name), 'utf8');
    const line = /^(?:summary|totals): (\d+)/m.exec(text);
    if (line) total += Number(line[1]);
  }
  return total;
}

async function count(scenario) {
  // Signed for each target (a slow run under valgrind outlasts the signatures' 300 s); the measured events are not the
  // warm-up's.
  const warmupPools = await signPools(secret, connections, slicePerConnection(warmup));
  const measuredPools = await signPools(secret, connections, slicePerConnection(measured));
  const dir = mkdtempSync(join(tmpdir(), 'mbb-callgrind-'));
  const child = spawn(
    'valgrind',
    ['--tool=callgrind', '--dump-instr=no', `--callgrind-out-file=${join(dir, 'callgrind.out.%p')}`, process.execPath, ...(process.env.INSTRUCTIONS_NODE_FLAGS ?? '').split(' ').filter(Boolean), join(here, 'server.mjs'), scenario, secret],
    // In the temporary folder: V8's profiling flags (INSTRUCTIONS_NODE_FLAGS) write logs into the working directory.
    { stdio: ['ignore', 'pipe', 'pipe'], env: process.env, cwd: dir },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const line = await new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`${scenario} target exited with ${code}`)));
      createInterface({ input: child.stdout }).once('line', resolve);
    });
    const { url } = JSON.parse(line);
    await send(url, warmupPools[SIGNING[scenario]], warmup);
    const before = await stats(url);
    // Zeroed after the warm-up, dumped after the measured deliveries: the dump holds only them.
    execFileSync('callgrind_control', ['--zero', String(child.pid)], { stdio: 'ignore' });
    await send(url, measuredPools[SIGNING[scenario]], measured);
    execFileSync('callgrind_control', ['--dump=measured', String(child.pid)], { stdio: 'ignore' });
    const after = await stats(url);
    // Every measured request a new event, handled in full: a duplicate costs less and would lower the figure.
    if (after.requests - before.requests !== measured || after.handled - before.handled !== measured) {
      throw new Error(`${scenario}: ${after.requests - before.requests} requests and ${after.handled - before.handled} events emitted for ${measured} deliveries`);
    }
    return { scenario, perDelivery: Math.round(totalInstructions(dir, child.pid) / measured) };
  } finally {
    // SIGTERM lets valgrind remove its gdbserver pipes from /tmp (callgrind_control talks through them); killed, it
    // leaves them behind.
    child.kill('SIGTERM');
    let timer;
    const stopped = await Promise.race([exited.then(() => true), new Promise((resolve) => (timer = setTimeout(resolve, 30_000, false)))]);
    clearTimeout(timer);
    if (!stopped) {
      child.kill('SIGKILL');
      await exited;
      for (const name of readdirSync(tmpdir()).filter((name) => name.startsWith('vgdb-pipe-') && name.includes(`-${child.pid}-`))) {
        rmSync(join(tmpdir(), name), { force: true });
      }
    }
    if (process.env.INSTRUCTIONS_KEEP) process.stderr.write(`callgrind files kept in ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (const scenario of scenarios) {
  process.stderr.write(`${scenario}: ${warmup} warm-up + ${measured} measured deliveries under callgrind...\n`);
  results.push(await count(scenario));
  process.stderr.write(`  ${results.at(-1).perDelivery} instructions per delivery\n`);
}
const reference = results.find((r) => r.scenario === 'octokit');
console.log(`\ninstructions per delivery (user space, all threads; ${measured} deliveries after ${warmup} warm-up)`);
for (const r of results) {
  const ratio = reference ? `   octokit/this ${(reference.perDelivery / r.perDelivery).toFixed(2)}` : '';
  console.log(`${r.scenario.padEnd(28)} ${String(r.perDelivery).padStart(10)}${ratio}`);
}
