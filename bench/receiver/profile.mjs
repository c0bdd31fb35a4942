// CPU profile of one benchmark target under load:
//   node bench/receiver/profile.mjs <scenario> [seconds]      (scenario: bare, receiver-jwt, receiver-standard-webhooks, octokit)
// Writes the .cpuprofile under bench/out/receiver/profiles/ (open it in Chrome DevTools) and prints the functions
// with the most self time, and the receiver's own functions with their inclusive time.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateHookSecret } from '@messenger-bot-builder/receiver';
import { SIGNING, signPools } from './deliveries.mjs';
import { drive, pinToSeparateCpus, startTarget, targetStats } from './target.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const [scenario = 'receiver-standard-webhooks', secondsArgument = '8'] = process.argv.slice(2);
if (!SIGNING[scenario]) throw new Error(`unknown scenario "${scenario}" (use ${Object.keys(SIGNING).join(', ')})`);
pinToSeparateCpus();
const seconds = Number(secondsArgument);
const connections = 50;
const secret = generateHookSecret();
const dir = join(here, '../out/receiver/profiles');
mkdirSync(dir, { recursive: true });

const pools = await signPools(secret, connections, Math.ceil((seconds * 30_000) / connections));
const warmup = await signPools(secret, connections, 40);
const before = new Set(readdirSync(dir));
const target = await startTarget(scenario, secret, { nodeFlags: ['--cpu-prof', '--cpu-prof-dir', dir] });
await drive(target.url, warmup[SIGNING[scenario]], 2, connections);
const start = await targetStats(target.url);
const result = await drive(target.url, pools[SIGNING[scenario]], seconds, connections);
const end = await targetStats(target.url);
await target.stop();
const file = readdirSync(dir).find((name) => !before.has(name) && name.endsWith('.cpuprofile'));
console.log(
	`${scenario}: ${Math.round(result.requests.average)} deliveries/s, ` +
		`${((end.cpuMicros - start.cpuMicros) / (end.requests - start.requests)).toFixed(1)} µs CPU per delivery (profiling slows it), ` +
		`${result.non2xx} non-2xx, profile ${relative(root, join(dir, file))}`,
);

const profile = JSON.parse(readFileSync(join(dir, file), 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const selfSamples = new Map();
for (const id of profile.samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
const total = profile.samples.length;

const label = ({ callFrame: f }) =>
	`${f.functionName || '(anonymous)'} ${f.url ? `${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/(receiver|bench)\//, '$1/')}:${f.lineNumber + 1}` : ''}`;
const self = new Map();
const inclusive = new Map();
for (const [id, count] of selfSamples) {
	const name = label(byId.get(id));
	self.set(name, (self.get(name) ?? 0) + count);
	const seen = new Set();
	for (let at = id; at !== undefined; at = parent.get(at)) {
		const ancestor = label(byId.get(at));
		if (seen.has(ancestor)) continue;
		seen.add(ancestor);
		inclusive.set(ancestor, (inclusive.get(ancestor) ?? 0) + count);
	}
}
// Sampled main-thread time per delivery (the profile covers the whole process: startup, warm-up and measurement).
const sampleMicros = (profile.endTime - profile.startTime) / total;
const pct = (count) =>
	`${((count / total) * 100).toFixed(1).padStart(5)} % ${((count * sampleMicros) / end.requests).toFixed(2).padStart(6)} µs`;
console.log(`\nself time (main thread samples; µs per delivery over ${end.requests} deliveries)`);
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${pct(count)}  ${name}`);
console.log('\ninclusive time of the receiver and jose');
for (const [name, count] of [...inclusive]
	.sort((a, b) => b[1] - a[1])
	.filter(([name]) => /receiver\/|jose|zod/.test(name))
	.slice(0, 40)) {
	console.log(`  ${pct(count)}  ${name}`);
}
