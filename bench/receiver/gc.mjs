// What the garbage collector does per delivery in each benchmark target under load: young and full collections, the
// bytes promoted to the old generation per delivery, and the mean young-collection pause (from V8's --trace-gc-nvp).
// Per-delivery objects that outlive a young collection are promoted, and promotion is what makes young collections
// slow and full ones frequent; a route that keeps nothing of a delivery promotes close to nothing.
//   node bench/receiver/gc.mjs [scenario ...]      (default: hmac-floor octokit receiver-standard-webhooks receiver-jwt)
//   GC_SECONDS=5 (measured seconds per scenario, after a 2 s warm-up)
import { generateHookSecret } from '@messenger-bot-builder/receiver';
import { SIGNING, signPools } from './deliveries.mjs';
import { drive, pinToSeparateCpus, startTarget, targetStats } from './target.mjs';

const scenarios = process.argv.slice(2).length
	? process.argv.slice(2)
	: ['hmac-floor', 'octokit', 'receiver-standard-webhooks', 'receiver-jwt'];
for (const scenario of scenarios)
	if (!SIGNING[scenario]) throw new Error(`unknown scenario "${scenario}" (use ${Object.keys(SIGNING).join(', ')})`);
const seconds = Number(process.env.GC_SECONDS ?? 5);
const connections = 50;
pinToSeparateCpus();
const secret = generateHookSecret();

/** Starts a target with --trace-gc-nvp; each collection it reports is kept with the phase current when it ended. */
async function startTracedTarget(scenario) {
	const collections = [];
	let phase = 'start';
	const target = await startTarget(scenario, secret, {
		nodeFlags: ['--trace-gc-nvp'],
		onLine: (line) => {
			const fields = Object.fromEntries([...line.matchAll(/(\w+)=(\S+)/g)].map((match) => [match[1], match[2]]));
			if (fields.gc)
				collections.push({
					phase,
					kind: fields.gc,
					pause: Number(fields.pause),
					promoted: Number(fields.promoted ?? 0),
				});
		},
	});
	return {
		...target,
		setPhase: (next) => (phase = next),
		collectionsIn: (wanted) => collections.filter((c) => c.phase === wanted),
	};
}

async function measure(scenario) {
	const signing = SIGNING[scenario];
	const measured = (await signPools(secret, connections, Math.ceil((seconds * 30_000) / connections)))[signing];
	const warmup = (await signPools(secret, connections, 50))[signing];
	const target = await startTracedTarget(scenario);
	try {
		await drive(target.url, warmup, 2, connections);
		const before = await targetStats(target.url);
		target.setPhase('measured');
		const result = await drive(target.url, measured, seconds, connections);
		const after = await targetStats(target.url);
		target.setPhase('end');
		const deliveries = after.requests - before.requests;
		if (result.non2xx || after.handled - before.handled !== deliveries)
			throw new Error(
				`${scenario}: ${result.non2xx} non-2xx, ${after.handled - before.handled} events for ${deliveries} requests`,
			);
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
		await target.stop();
	}
}

const results = [];
for (const scenario of scenarios) {
	process.stderr.write(`${scenario}: 2 s warm-up, ${seconds} s measured...\n`);
	results.push(await measure(scenario));
}
console.log(`\ngarbage collection under load (${seconds} s per scenario, ${connections} connections)`);
console.log(
	'scenario                     deliveries   young   full   promoted B/delivery   young pause ms   CPU µs/delivery',
);
for (const r of results) {
	console.log(
		`${r.scenario.padEnd(28)} ${String(r.deliveries).padStart(10)} ${String(r.young).padStart(7)} ${String(r.full).padStart(6)} ` +
			`${r.promotedPerDelivery.toFixed(1).padStart(21)} ${r.youngPauseMs.toFixed(2).padStart(16)} ${r.cpuMicros.toFixed(1).padStart(17)}`,
	);
}
