/**
 * `npm run bench:topology [-- --short]`: the trigger in n8n's production topology against n8n's Webhook node
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

const short = process.argv.includes('--short');
installN8n();
for (const script of ['build:sandbox', 'build:nodes']) {
  if (spawnSync('npm', ['run', script, '--silent'], { cwd: repoRoot, stdio: 'inherit' }).status !== 0) throw new Error(`npm run ${script} failed`);
}
process.env.E2E_PACKAGE_TARBALL ??= packPackage(path.join(outDir, 'pack'));

const options = short ? SHORT : FULL;
console.log(`bench:topology (${short ? 'short' : 'full'}): ${JSON.stringify(options)}`);
const env = await startE2eEnvironment('queue', { name: 'bench-topology', database: 'postgres', workers: 2, webhookProcesses: 2 });
let failed = false;
try {
  const result = await measureTopology(env, options);
  const outFile = path.join(repoRoot, 'bench', 'out', 'topology.json');
  mkdirSync(path.dirname(outFile), { recursive: true });
  writeFileSync(outFile, `${JSON.stringify({ measuredAt: new Date().toISOString(), options, ...result }, null, 2)}\n`);
  console.log(`written: ${path.relative(repoRoot, outFile)}`);
  failed = result.races.ranTwice > 0 || result.races.neverRan > 0;
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await env.close();
}
process.exit(failed ? 1 : 0);
