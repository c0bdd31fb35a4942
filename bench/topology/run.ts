/**
 * `npm run bench:topology [-- --short] [--lazy-isolates] [--repeat-check claimLog|history] [--deliveries N] [--rounds N] [--history 1000,10000] [--races N] [--stalls N | --no-stalls]`: the trigger in n8n's production topology against n8n's Webhook node
 * (bench/topology/measure.ts says what is measured). Starts its own stack: PostgreSQL (a database of its own, dropped
 * at the end), Redis (a key prefix of its own), main without production webhooks, two workers, two webhook processes
 * behind a balancer, and the sandbox. Writes bench/out/topology.json and prints each figure; exits 1 when a
 * correctness check fails (an event run twice or never), 0 otherwise, whether the speed goal is met or not.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { installN8n } from '../../e2e/install-n8n.ts';
import { packPackage } from '../../e2e/lib/communityPackage.ts';
import { startE2eEnvironment } from '../../e2e/lib/environment.ts';
import { outDir, repoRoot } from '../../e2e/lib/paths.ts';
import { spawnSync } from 'node:child_process';
import { FULL, measureTopology, SHORT } from './measure.ts';

const args = process.argv.slice(2);
const short = args.includes('--short');
const flag = (name: string) => {
	const at = args.indexOf(name);
	return at === -1 ? undefined : args[at + 1];
};
// n8n 2.41.1 takes an expression isolate for every webhook call of a start node other than its own Webhook node
// (live-webhooks.js webhookPhaseNeedsIsolate); with lazy acquisition it builds one only when an expression is evaluated.
const lazyIsolates = args.includes('--lazy-isolates');
// --cpu-prof DIR: every n8n process writes a V8 CPU profile into DIR when it stops (to see where a webhook call goes).
const profileDir = flag('--cpu-prof');
installN8n();
if (spawnSync('npm', ['run', 'build', '--silent'], { cwd: repoRoot, stdio: 'inherit' }).status !== 0) {
	throw new Error('npm run build failed');
}
process.env.E2E_PACKAGE_TARBALL ??= packPackage(path.join(outDir, 'pack'));

// The trigger's repeat check to measure: the claim log in an n8n data table (default) or the event history.
const repeatCheck = flag('--repeat-check') ?? 'claimLog';
if (repeatCheck !== 'claimLog' && repeatCheck !== 'history') throw new Error('--repeat-check is claimLog or history');
const base = short ? SHORT : FULL;
const options = {
	...base,
	deliveries: Number(flag('--deliveries') ?? base.deliveries),
	rounds: Number(flag('--rounds') ?? base.rounds),
	races: Number(flag('--races') ?? base.races),
	// The races again while the database holds some of its replies: as many as --races, or --stalls N; --no-stalls
	// leaves them out (and the proxy in front of the database).
	stalledRaces: args.includes('--no-stalls')
		? undefined
		: Number(/^\d+$/.test(flag('--stalls') ?? '') ? flag('--stalls') : (flag('--races') ?? base.races)),
	historySizes: flag('--history')?.split(',').map(Number) ?? base.historySizes,
	repeatCheck,
} as const;
console.log(
	`bench:topology (${short ? 'short' : 'full'}${lazyIsolates ? ', N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true' : ''}): ${JSON.stringify(options)}`,
);
const env = await startE2eEnvironment('queue', {
	name: 'bench-topology',
	database: 'postgres',
	stallingDatabase: options.stalledRaces !== undefined,
	workers: 2,
	webhookProcesses: 2,
	env: {
		...(lazyIsolates ? { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' } : {}),
		...(profileDir ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${path.resolve(profileDir)}` } : {}),
	},
});
let failed = false;
try {
	const result = await measureTopology(env, options);
	const outFile = path.join(repoRoot, 'bench', 'out', 'topology.json');
	mkdirSync(path.dirname(outFile), { recursive: true });
	writeFileSync(
		outFile,
		`${JSON.stringify({ measuredAt: new Date().toISOString(), options, lazyIsolates, ...result }, null, 2)}\n`,
	);
	console.log(`written: ${path.relative(repoRoot, outFile)}`);
	failed = [result.races, result.stalledRaces].some((races) => races && (races.ranTwice > 0 || races.neverRan > 0));
} catch (error) {
	failed = true;
	console.error(error);
} finally {
	await env.close();
}
process.exit(failed ? 1 : 0);
