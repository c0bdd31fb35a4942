// Receiver benchmark, in one run: deliveries/s, p99 latency and server CPU per delivery for
//   bare                         an Express route that only reads the body and answers 200
//   receiver-jwt                 our middleware, JWT in X-Signature (HS256, verified by jose)
//   receiver-standard-webhooks   our middleware, Standard Webhooks headers
//   octokit                      @octokit/webhooks' Node middleware on equivalent payloads (x-hub-signature-256)
// Each target runs in its own process; autocannon drives it from this one. Every connection sends its own slice of
// distinct signed events. Scenarios are measured in rotation for several rounds and the medians are reported, so
// that a busy machine disturbs all of them alike; CPU per delivery (server process) is the steadiest figure.
//
//   npm run bench:receiver
//   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_CONNECTIONS=50 node bench/receiver/run.mjs
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { generateHookSecret, sampleEvent, signDelivery } from '@messenger-bot-builder/receiver';

const here = dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const perConnection = Number(process.env.BENCH_EVENTS_PER_CONNECTION ?? 1000);
const warmupPerConnection = 50;
const secret = generateHookSecret();
const kinds = ['subscriber.new', 'subscriber.stage', 'payment.success'];
const SCENARIOS = ['bare', 'receiver-jwt', 'receiver-standard-webhooks', 'octokit'];
/** The requests each scenario sends (bare reads the same JWT-signed deliveries and ignores the signature). */
const SIGNING = { bare: 'jwt', 'receiver-jwt': 'jwt', 'receiver-standard-webhooks': 'standard-webhooks', octokit: 'octokit' };

async function signedRequest(signing) {
  const event = sampleEvent(kinds[Math.floor(Math.random() * 3)], { hook: 'hook_bench' });
  const body = JSON.stringify(event);
  const headers = { 'content-type': 'application/json' };
  if (signing === 'octokit') {
    headers['x-github-event'] = 'ping';
    headers['x-github-delivery'] = event.id;
    headers['x-hub-signature-256'] = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
  } else {
    const { 'x-signature': jwt, ...standardWebhooks } = await signDelivery({ body, eventId: event.id, hookId: event.hook, secret });
    Object.assign(headers, signing === 'jwt' ? { 'x-signature': jwt } : standardWebhooks);
  }
  return { method: 'POST', path: '/hooks', headers, body };
}

/** `connections` slices of `size` distinct requests. */
async function slices(signing, size) {
  const all = [];
  for (let c = 0; c < connections; c += 1) {
    const slice = [];
    for (let i = 0; i < size; i += 1) slice.push(await signedRequest(signing));
    all.push(slice);
  }
  return all;
}

async function startTarget(scenario) {
  const child = spawn(process.execPath, [join(here, 'server.mjs'), scenario, secret], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${scenario} target exited with ${code}`)));
    createInterface({ input: child.stdout }).once('line', resolve);
  });
  return { child, url: JSON.parse(line).url };
}

const stats = async (url) => (await fetch(`${url}/stats`)).json();

function drive(url, requestSlices, duration) {
  let next = 0;
  return autocannon({ url, connections, pipelining: 1, duration, setupClient: (client) => client.setRequests(requestSlices[next++ % requestSlices.length]) });
}

/** One measurement on a fresh target process (so its deduplication memory starts empty). */
async function measure(scenario, pools) {
  const { child, url } = await startTarget(scenario);
  try {
    await drive(url, pools.warmup, 2);
    const before = await stats(url);
    const result = await drive(url, pools.measured, seconds);
    const after = await stats(url);
    return {
      requestsPerSecond: result.requests.average,
      p99Ms: result.latency.p99,
      cpuMicrosPerDelivery: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests),
      non2xx: result.non2xx,
      errors: result.errors + result.timeouts,
      requests: result.requests.total,
      emitted: after.handled - before.handled,
    };
  } finally {
    child.kill('SIGTERM');
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

process.stderr.write(`signing ${connections * perConnection} deliveries per scheme...\n`);
const pools = {};
for (const signing of new Set(Object.values(SIGNING))) {
  pools[signing] = { measured: await slices(signing, perConnection), warmup: await slices(signing, warmupPerConnection) };
}

const runs = Object.fromEntries(SCENARIOS.map((scenario) => [scenario, []]));
for (let round = 1; round <= rounds; round += 1) {
  for (const scenario of SCENARIOS) {
    process.stderr.write(`round ${round}/${rounds}: ${scenario} (${seconds} s, ${connections} connections)\n`);
    runs[scenario].push(await measure(scenario, pools[SIGNING[scenario]]));
  }
}

const results = SCENARIOS.map((scenario) => {
  const r = runs[scenario];
  return {
    scenario,
    requestsPerSecond: Math.round(median(r.map((x) => x.requestsPerSecond))),
    p99Ms: median(r.map((x) => x.p99Ms)),
    cpuMicrosPerDelivery: Math.round(median(r.map((x) => x.cpuMicrosPerDelivery))),
    non2xx: r.reduce((sum, x) => sum + x.non2xx, 0),
    errors: r.reduce((sum, x) => sum + x.errors, 0),
    requests: r.reduce((sum, x) => sum + x.requests, 0),
    emitted: r.reduce((sum, x) => sum + x.emitted, 0),
  };
});

const by = Object.fromEntries(results.map((r) => [r.scenario, r]));
const ratio = (a, b) => Math.round((a / b) * 100) / 100;
console.log(`\n${rounds} rounds x ${seconds} s, ${connections} connections, medians; node ${process.version}`);
console.log('scenario                     deliveries/s   p99 ms   CPU us/delivery   vs bare (rate, CPU)   vs octokit (rate, CPU)');
for (const r of results) {
  console.log(
    `${r.scenario.padEnd(28)} ${String(r.requestsPerSecond).padStart(12)} ${String(r.p99Ms).padStart(8)} ${String(r.cpuMicrosPerDelivery).padStart(17)}` +
      `   ${String(ratio(r.requestsPerSecond, by.bare.requestsPerSecond)).padStart(8)} ${String(ratio(by.bare.cpuMicrosPerDelivery, r.cpuMicrosPerDelivery)).padStart(6)}` +
      `       ${String(ratio(r.requestsPerSecond, by.octokit.requestsPerSecond)).padStart(10)} ${String(ratio(by.octokit.cpuMicrosPerDelivery, r.cpuMicrosPerDelivery)).padStart(6)}`,
  );
}
const goals = ['receiver-jwt', 'receiver-standard-webhooks'].map((scenario) => {
  const r = by[scenario];
  const ofBare = ratio(r.requestsPerSecond, by.bare.requestsPerSecond);
  const ofOctokit = ratio(r.requestsPerSecond, by.octokit.requestsPerSecond);
  return { scenario, ofBare, ofOctokit, met: ofBare >= 0.7 && ofOctokit > 1 && r.non2xx === 0 && r.errors === 0 };
});
console.log('\ngoal: at least 0.7 of bare and ahead of octokit (deliveries/s), no refusals');
for (const g of goals) console.log(`  ${g.scenario}: ${g.met ? 'met' : 'NOT met'} (${g.ofBare} of bare, ${g.ofOctokit} of octokit)`);
const duplicates = results.filter((r) => r.scenario !== 'bare').map((r) => `${r.scenario} ${r.emitted}/${r.requests}`);
console.log(`events emitted / requests (the rest were duplicates of a reused slice): ${duplicates.join(', ')}`);

const out = join(here, '../out');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'receiver.json'), JSON.stringify({ date: new Date().toISOString(), node: process.version, seconds, rounds, connections, results, runs, goals }, null, 2));
console.log(`\nwritten to ${join(out, 'receiver.json')}`);
if (results.some((r) => r.non2xx > 0 || r.errors > 0)) process.exitCode = 1;
