/**
 * `npm run test:e2e`: installs n8n on first use, builds the sandbox and the package, packs the
 * package once (npm pack), then runs the e2e test files one after another with node's test runner.
 * Usage: node e2e/run.ts [--built] [test file ...]   (--built: dist/ was just built from these sources; see below)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { packPackage } from './lib/communityPackage.ts';
import { installN8n } from './install-n8n.ts';
import { e2eDir, outDir, repoRoot } from './lib/paths.ts';

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
	console.log(`e2e: ${command} ${args.join(' ')}`);
	return spawnSync(command, args, { cwd: repoRoot, env, stdio: 'inherit' }).status ?? 1;
}

function mustRun(command: string, args: string[]): void {
	const status = run(command, args);
	if (status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` failed (exit ${status})`);
}

const args = process.argv.slice(2);
// `npm run test:all` runs `npm run test:jest` first, whose first step builds the same sources: it passes --built to
// spare a second build. Run on its own, the e2e always builds.
const built = args.includes('--built');
installN8n();
if (built) console.log('e2e: using the build that was just made (--built)');
else {
	mustRun('npm', ['run', 'build', '--silent']);
}

const packDir = path.join(outDir, 'pack');
rmSync(packDir, { recursive: true, force: true });
mkdirSync(packDir, { recursive: true });
const tarball = packPackage(packDir);
console.log(`e2e: packed ${path.relative(repoRoot, tarball)}`);

const requested = args.filter((arg) => arg !== '--built');
const testsDir = path.join(e2eDir, 'tests');
const files = requested.length
	? requested
	: readdirSync(testsDir)
			.filter((name) => name.endsWith('.test.ts'))
			.sort()
			.map((name) => path.join(testsDir, name));
const httpClient = path.join(e2eDir, 'lib', 'httpClient.ts');
const status = run(
	process.execPath,
	['--import', httpClient, '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
	{
		...process.env,
		E2E_PACKAGE_TARBALL: tarball,
	},
);
console.log(`e2e: screenshots and n8n logs are in ${path.relative(repoRoot, outDir)}/`);
process.exit(status);
