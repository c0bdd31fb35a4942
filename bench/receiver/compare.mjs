// A/B comparison of two builds of the receiver on one scenario, alternating A and B on fresh targets:
//   node bench/receiver/compare.mjs <scenario> <path to build A's index.js> <path to build B's index.js> [pairs]
// e.g. copy receiver/dist anywhere (cp -r receiver/dist /tmp/before) before a change, rebuild, and compare
// /tmp/before/receiver/src/index.js with receiver/dist/receiver/src/index.js.
// Prints the median CPU µs per delivery and deliveries/s of each, and B's change in CPU.
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateHookSecret } from '@messenger-bot-builder/receiver';
import { SIGNING, signPools } from './deliveries.mjs';
import { drive, pinToSeparateCpus, startTarget, targetStats } from './target.mjs';

const [scenario, a, b, pairsArgument = '6'] = process.argv.slice(2);
if (!SIGNING[scenario] || !a || !b) {
	console.error('usage: node bench/receiver/compare.mjs <scenario> <build A index.js> <build B index.js> [pairs]');
	process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
// A copied build resolves the receiver's dependencies (zod 4, jose) from wherever it was copied to.
const NODE_PATH = [join(root, 'receiver/node_modules'), join(root, 'node_modules')].join(delimiter);
pinToSeparateCpus();
const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const connections = 50;
const secret = generateHookSecret();
const signing = SIGNING[scenario];
const measured = (await signPools(secret, connections, Math.ceil((seconds * 30_000) / connections)))[signing];
const warmup = (await signPools(secret, connections, 40))[signing];

async function measure(module) {
	const target = await startTarget(scenario, secret, { env: { BENCH_RECEIVER_MODULE: resolve(module), NODE_PATH } });
	try {
		await drive(target.url, warmup, 1, connections);
		const before = await targetStats(target.url);
		const result = await drive(target.url, measured, seconds, connections);
		const after = await targetStats(target.url);
		if (result.non2xx || result.errors) throw new Error(`${module}: ${result.non2xx} non-2xx, ${result.errors} errors`);
		return {
			cpu: (after.cpuMicros - before.cpuMicros) / (after.requests - before.requests),
			rate: result.requests.average,
		};
	} finally {
		await target.stop();
	}
}

const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
const runs = { A: [], B: [] };
for (let pair = 0; pair < Number(pairsArgument); pair += 1) {
	for (const [name, module] of pair % 2
		? [
				['B', b],
				['A', a],
			]
		: [
				['A', a],
				['B', b],
			])
		runs[name].push(await measure(module));
	process.stderr.write(
		`pair ${pair + 1}: A ${runs.A.at(-1).cpu.toFixed(1)} µs, B ${runs.B.at(-1).cpu.toFixed(1)} µs\n`,
	);
}
const summary = Object.fromEntries(
	Object.entries(runs).map(([name, r]) => [
		name,
		{ cpu: median(r.map((x) => x.cpu)), rate: median(r.map((x) => x.rate)) },
	]),
);
for (const [name, s] of Object.entries(summary))
	console.log(`${name}: ${s.cpu.toFixed(1)} µs CPU per delivery, ${Math.round(s.rate)} deliveries/s`);
console.log(
	`B vs A: ${(summary.B.cpu - summary.A.cpu).toFixed(1)} µs CPU per delivery (${(((summary.B.cpu - summary.A.cpu) / summary.A.cpu) * 100).toFixed(1)} %)`,
);
