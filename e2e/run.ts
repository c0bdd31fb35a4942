/**
 * `npm run test:e2e`: installs n8n on first use, builds the sandbox and the package, packs the
 * package once (npm pack), then runs the e2e test files with node's test runner in lanes side by side (see below).
 * Usage: node e2e/run.ts [--built] [--one-lane] [test file ...]   (--built: dist/ was just built from these sources;
 * see below)
 */
import { spawn, spawnSync } from 'node:child_process';
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

const requested = args.filter((arg) => arg !== '--built' && arg !== '--one-lane');
const testsDir = path.join(e2eDir, 'tests');
const files = requested.length
	? requested
	: readdirSync(testsDir)
			.filter((name) => name.endsWith('.test.ts'))
			.sort()
			.map((name) => path.join(testsDir, name));
const httpClient = path.join(e2eDir, 'lib', 'httpClient.ts');
const testArgs = (lane: string[]) => [
	'--import',
	httpClient,
	'--test',
	'--test-concurrency=1',
	'--test-reporter=spec',
	...lane,
];
const env = { ...process.env, E2E_PACKAGE_TARBALL: tarball };

/**
 * The files share nothing (each starts n8n instances with a SQLite file, or a PostgreSQL database and a Redis prefix,
 * of its own, on ports of its own) and spend most of their time waiting for them, so they run in lanes side by side:
 * the topology in the first, whose output comes as it runs; queue mode in a second; `npm run dev`'s test and the
 * regular-mode file one after the other in a third. A lane beside prints its output when it has ended. `--one-lane`
 * runs every file one after another.
 */
const BESIDE_LANES = [['queue.test.ts'], ['dev.test.ts', 'regular.test.ts']];
const besideLanes = args.includes('--one-lane')
	? []
	: BESIDE_LANES.map((names) => files.filter((file) => names.includes(path.basename(file)))).filter(
			(lane) => lane.length > 0,
		);
const main = files.filter((file) => !besideLanes.flat().includes(file));

function runLane(lane: string[], keepOutput: boolean): Promise<{ status: number; output: string }> {
	console.log(
		`e2e: ${process.execPath} ${testArgs(lane).join(' ')}${keepOutput ? ' (beside; its output when it ends)' : ''}`,
	);
	const child = spawn(process.execPath, testArgs(lane), {
		cwd: repoRoot,
		env,
		stdio: keepOutput ? ['ignore', 'pipe', 'pipe'] : 'inherit',
	});
	const output: Buffer[] = [];
	child.stdout?.on('data', (chunk: Buffer) => output.push(chunk));
	child.stderr?.on('data', (chunk: Buffer) => output.push(chunk));
	return new Promise((resolve) =>
		child.on('close', (code) => resolve({ status: code ?? 1, output: Buffer.concat(output).toString() })),
	);
}

const lanes = await Promise.all([
	main.length > 0 ? runLane(main, false) : Promise.resolve({ status: 0, output: '' }),
	...besideLanes.map((lane) => runLane(lane, true)),
]);
besideLanes.forEach((lane, index) => {
	console.log(`\ne2e: a lane beside (${lane.map((file) => path.relative(repoRoot, file)).join(', ')}):`);
	process.stdout.write(lanes[index + 1].output);
});
console.log(`e2e: screenshots and n8n logs are in ${path.relative(repoRoot, outDir)}/`);
process.exit(lanes.find((lane) => lane.status !== 0)?.status ?? 0);
