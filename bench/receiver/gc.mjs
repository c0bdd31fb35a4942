// What the garbage collector does per delivery in each benchmark target under load: young and full collections, the
// bytes promoted to the old generation per delivery, and the mean young-collection pause (from V8's --trace-gc-nvp).
// Per-delivery objects that outlive a young collection are promoted, and promotion is what makes young collections
// slow and full ones frequent; a route that keeps nothing of a delivery promotes close to nothing.
//   node bench/receiver/gc.mjs [scenario ...]      (default: hmac-floor octokit receiver-standard-webhooks receiver-jwt)
//   GC_SECONDS=5 (measured seconds per scenario, after a 2 s warm-up)
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { generateHookSecret } from '@messenger-bot-builder/receiver';
import { SIGNING, signPools } from './deliveries.mjs';
import { drive, pinToSeparateCpus, targetStats } from './target.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const scenarios = process.argv.slice(2).length ? process.argv.slice(2) : ['hmac-floor', 'octokit', 'receiver-standard-webhooks', 'receiver-jwt'];
for (const scenario of scenarios) if (!SIGNING[scenario]) throw new Error(`unknown scenario "${scenario}" (use ${Object.keys(SIGNING).join(', ')})`);
const seconds = Number(process.env.GC_SECONDS ?? 5);
const connections = 50;
pinToSeparateCpus();
const secret = generateHookSecret();

/** Starts server.mjs with --trace-gc-nvp; the collections it prints are sorted into the phase current when they ended. */
async function startTracedTarget(scenario) {
  const command = [process.execPath, '--trace-gc-nvp', join(here, 'server.mjs'), scenario, secret];
  if (process.env.BENCH_TARGET_CPUS) command.unshift('taskset', '-c', process.env.BENCH_TARGET_CPUS);
  const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'inherit'] });
  const target = { phase: 'start', collections: [], child };
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${scenario} target exited with ${code}`)));
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (line.startsWith('{"url"')) return resolve(JSON.parse(line).url);
      const fields = Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1], match[2]]));
      if (fields.gc) target.collections.push({ phase: target.phase, kind: fields.gc, pause: Number(fields.pause), promoted: Number(fields.promoted ?? 0) });
    });
  });
  return { ...target, url, setPhase: (phase) => (target.phase = phase), collectionsIn: (phase) => target.collections.filter((c) => c.phase === phase) };
}

async function measure(scenario) {
  const signing = SIGNING[scenario];
  const measured = (await signPools(secret, connections, Math.ceil((seconds * 30_000) / connections)))[signing];
  const warmup = (await signPools(secret, connections, 50))[signing];
  const target = await startTracedTarget(scenario);
  const exited = new Promise((resolve) => target.child.once('exit', resolve));
  try {
    await drive(target.url, warmup, 2, connections);
    const before = await targetStats(target.url);
    target.setPhase('measured');
    const result = await drive(target.url, measured, seconds, connections);
    const after = await targetStats(target.url);
    target.setPhase('end');
    const deliveries = after.requests - before.requests;
    if (result.non2xx || after.handled - before.handled !== deliveries) throw new Error(`${scenario}: ${result.non2xx} non-2xx, ${after.handled - before.handled} events for ${deliveries} requests`);
    const collections = target.collectionsIn('measured');
    const young = collections.filter((c) => c.kind === 's');
    const full = collections.filter((c) => c.kind === 'mc' || c.kind === 'ms');
    const promoted = collections.reduce((sum, c) => sum + c.promoted, 0);
    return {
      scenario,
      deliveries,
      young: young.length,
      full: full.length,
      promotedPerDelivery: promoted / deliveries,
      youngPauseMs: young.length ? young.reduce((sum, c) => sum + c.pause, 0) / young.length : 0,
      cpuMicros: (after.cpuMicros - before.cpuMicros) / deliveries,
    };
  } finally {
    target.child.kill('SIGTERM');
    await exited;
  }
}

const results = [];
for (const scenario of scenarios) {
  process.stderr.write(`${scenario}: 2 s warm-up, ${seconds} s measured...\n`);
  results.push(await measure(scenario));
}
console.log(`\ngarbage collection under load (${seconds} s per scenario, ${connections} connections)`);
console.log('scenario                     deliveries   young   full   promoted B/delivery   young pause ms   CPU µs/delivery');
for (const r of results) {
  console.log(
    `${r.scenario.padEnd(28)} ${String(r.deliveries).padStart(10)} ${String(r.young).padStart(7)} ${String(r.full).padStart(6)} ` +
      `${r.promotedPerDelivery.toFixed(1).padStart(21)} ${r.youngPauseMs.toFixed(2).padStart(16)} ${r.cpuMicros.toFixed(1).padStart(17)}`,
  );
}
