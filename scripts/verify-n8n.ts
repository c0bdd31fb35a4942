/**
 * `npm run verify:n8n`: the package held against n8n's own verification tools, as CI runs it.
 *  1. builds the package and packs it from the stage (scripts/lib/packageStage.ts): the tarball that
 *     the e2e installs and the publish workflow publishes;
 *  2. checks the tarball: LICENSE, user README (absolute links only), CHANGELOG, every listed node and
 *     credential, and a package.json without scripts, workspaces, dependencies or devDependencies;
 *  3. n8n's scanner (`analyzePackage` of @n8n/scan-community-package, inline ESLint comments off), on
 *     the sources as n8n's verification finds them (the repository root: package.json, nodes/,
 *     credentials/), on the stage, and on the unpacked tarball (compiled .js and package.json);
 *  4. `n8n-node lint` in the stage: strict mode, n8n's stock eslint.config.mjs;
 *  5. no inline `eslint-disable` anywhere in nodes/ or credentials/.
 * Usage: node scripts/verify-n8n.ts [--built]     (tools: scripts/lib/n8nTools.ts; --built: dist/ is fresh)
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { installN8nTools } from './lib/n8nTools.ts';
import { buildPackageTarball, stageDir } from './lib/packageStage.ts';
import { repoRoot } from './lib/paths.ts';

interface ScanResult {
	passed: boolean;
	message?: string;
	details?: string;
}
interface Scanner {
	analyzePackage(dir: string, patterns?: string[]): Promise<ScanResult>;
	SOURCE_FILE_PATTERNS: string[];
}

const failures: string[] = [];
function check(what: string, ok: boolean, detail = ''): void {
	console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${!ok && detail ? `\n${detail}` : ''}`);
	if (!ok) failures.push(what);
}

function run(command: string, args: string[], cwd: string): { status: number; output: string } {
	const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0' } });
	return { status: result.status ?? 1, output: `${result.stdout ?? ''}${result.stderr ?? ''}` };
}

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((entry) => {
		const file = path.join(dir, entry);
		return statSync(file).isDirectory() ? filesUnder(file) : [file];
	});
}

const started = Date.now();
// `--built`: dist/ was just built from these sources (npm run test:all builds once, first).
if (!process.argv.includes('--built')) {
	const build = run('npm', ['run', 'build', '--silent'], repoRoot);
	if (build.status !== 0) throw new Error(`npm run build failed:\n${build.output}`);
}
const tools = installN8nTools();
const tarball = buildPackageTarball();
symlinkSync(tools, path.join(stageDir, 'node_modules'), 'dir');
console.log(`verify: packed ${path.relative(repoRoot, tarball)}`);

// 2. What the tarball holds.
const unpacked = mkdtempSync(path.join(os.tmpdir(), 'mbb-verify-'));
try {
	const untar = run('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], repoRoot);
	if (untar.status !== 0) throw new Error(`could not unpack ${tarball}: ${untar.output}`);
	const published = JSON.parse(readFileSync(path.join(unpacked, 'package.json'), 'utf8'));
	const listed = [...published.n8n.nodes, ...published.n8n.credentials] as string[];
	const present = new Set(filesUnder(unpacked).map((file) => path.relative(unpacked, file)));
	const expected = ['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json', ...listed];
	check(
		`tarball holds ${expected.join(', ')}`,
		expected.every((file) => present.has(file)),
		`missing: ${expected.filter((file) => !present.has(file)).join(', ')}`,
	);
	check(
		'tarball holds no TypeScript sources',
		![...present].some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts')),
	);
	const devOnly = ['scripts', 'workspaces', 'dependencies', 'devDependencies', 'optionalDependencies'].filter(
		(field) => field in published,
	);
	check(
		'published package.json has no scripts, workspaces or dependencies',
		devOnly.length === 0,
		`present: ${devOnly.join(', ')}`,
	);
	check('published package.json keeps n8n strict mode', published.n8n?.strict === true);
	// npm's package page shows the README without the repository around it: relative links would lead nowhere.
	const readme = readFileSync(path.join(unpacked, 'README.md'), 'utf8');
	const relativeLinks = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
		.map((match) => match[1])
		.filter((target) => !/^https:\/\//.test(target));
	check('user README: every link is an absolute https URL', relativeLinks.length === 0, relativeLinks.join('\n'));
	// The n8n the e2e installs (e2e/n8n/package.json) is the version the README may call tested.
	const testedN8n = JSON.parse(readFileSync(path.join(repoRoot, 'e2e', 'n8n', 'package.json'), 'utf8')).dependencies
		.n8n as string;
	check(
		`user README names the n8n version the e2e runs (${testedN8n})`,
		readme.includes(`Tested with n8n **${testedN8n}**`),
	);
	const license = readFileSync(path.join(unpacked, 'LICENSE'), 'utf8');
	check(
		'LICENSE is the MIT license and package.json says MIT',
		published.license === 'MIT' && license.startsWith('MIT License'),
	);

	// 3. n8n's scanner, both legs.
	const scannerFile = path.join(tools, '@n8n', 'scan-community-package', 'scanner', 'scanner.mjs');
	// The scanner makes a temporary folder with `tmp` when it loads and never removes it: have `tmp` remove it at exit.
	const tmpModule = (await import(pathToFileURL(path.join(tools, 'tmp', 'lib', 'tmp.js')).href)) as {
		default: { setGracefulCleanup(): void };
	};
	tmpModule.default.setGracefulCleanup();
	const scanner = (await import(pathToFileURL(scannerFile).href)) as Scanner;
	const legs: Array<[string, string, string[]]> = [
		['scanner, source leg (repository root, as n8n fetches it)', repoRoot, scanner.SOURCE_FILE_PATTERNS],
		['scanner, source leg (package stage)', stageDir, scanner.SOURCE_FILE_PATTERNS],
		['scanner, tarball leg (the packed tarball)', unpacked, ['**/*.js', 'package.json']],
	];
	for (const [what, dir, patterns] of legs) {
		const result = await scanner.analyzePackage(dir, patterns);
		check(what, result.passed, `${result.message ?? ''}\n${result.details ?? ''}`);
	}
} finally {
	rmSync(unpacked, { recursive: true, force: true });
}

// 4. n8n-node lint, strict mode with the stock config.
const lint = run(path.join(tools, '.bin', 'n8n-node'), ['lint'], stageDir);
check('n8n-node lint (strict, stock eslint.config.mjs)', lint.status === 0, lint.output);

// 5. No inline disables: n8n's scanner ignores them, so they could only hide a finding from us.
const disables = ['nodes', 'credentials']
	.flatMap((dir) => filesUnder(path.join(repoRoot, dir)))
	.filter((file) => /eslint-disable/.test(readFileSync(file, 'utf8')))
	.map((file) => path.relative(repoRoot, file));
check('no inline eslint-disable in nodes/ or credentials/', disables.length === 0, disables.join('\n'));

console.log(
	`verify: ${failures.length ? `${failures.length} check(s) failed` : 'all checks passed'} in ${Math.round((Date.now() - started) / 1000)} s`,
);
process.exit(failures.length ? 1 : 0);
