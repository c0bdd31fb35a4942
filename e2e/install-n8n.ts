/**
 * Installs a pinned n8n (e2e/n8n/package-lock.json; e2e/n8n1 for the n8n 1.x smoke test) on first use; a no-op
 * when it is already in place. `npm ci --ignore-scripts` keeps n8n's many install scripts from running; only
 * sqlite3 (n8n's database driver) is built, against the headers of the Node that will run n8n.
 * The install (about 2.6 GB, 5 minutes) lives in a cache outside the clone, keyed by what it depends on, and
 * e2e/n8n/node_modules links to it: a fresh clone on the same machine (CI) reuses it at once.
 * Usage: node e2e/install-n8n.ts [--force] [--n8n1]    (--n8n1: the n8n 1.x of `npm run test:n8n1`)     cache: $MBB_N8N_CACHE or ~/.cache/messenger-bot-builder-n8n
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
	copyFileSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	rmSync,
	symlinkSync,
	writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { withInstallLock } from '../scripts/lib/installLock.cjs';
import { formatDuration, longStep } from '../scripts/lib/longStep.cjs';
import { nodeHeadersDir } from './lib/nodeHeaders.ts';
import { defaultN8nHost, n8nBinOf, type N8nHost } from './lib/paths.ts';

const STAMP_NAME = '.e2e-install-stamp';
const cacheRoot = process.env.MBB_N8N_CACHE ?? path.join(os.homedir(), '.cache', 'messenger-bot-builder-n8n');

/** `process.versions` of the Node that will run n8n. */
function versionsOf(nodeBinary: string): { node: string; modules: string } {
	if (nodeBinary === process.execPath) return process.versions;
	const result = spawnSync(nodeBinary, ['-p', 'JSON.stringify(process.versions)'], { encoding: 'utf8' });
	if (result.status !== 0) throw new Error(`${nodeBinary} does not run: ${result.stderr}`);
	return JSON.parse(result.stdout);
}

/** What the install depends on: the lockfile and the ABI of the Node that sqlite3 was built for. */
function expectedStamp(host: N8nHost, modules: string): string {
	const lock = readFileSync(path.join(host.dir, 'package-lock.json'));
	const lockHash = createHash('sha256').update(lock).digest('hex').slice(0, 16);
	return `lock=${lockHash} abi=${modules} platform=${process.platform}-${process.arch}`;
}

/** How to get what compiling sqlite3 from source needs. */
const BUILD_TOOLS_HINT =
	'Debian/Ubuntu: apt-get install python3 make g++; macOS: xcode-select --install; Windows: the "Desktop development with C++" workload of Visual Studio';

/** The tools node-gyp needs to compile sqlite3 that are not on PATH (python3, make, a C++ compiler). */
function missingBuildTools(): string[] {
	if (process.platform === 'win32') return [];
	const found = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
	const missing = ['python3', 'make'].filter((tool) => !found(tool));
	if (!found('g++') && !found('c++') && !found('clang++')) missing.push('a C++ compiler (g++)');
	return missing;
}

/** n8n's database driver, the one native module the install builds. */
function sqliteBinding(modules: string): string {
	return path.join(modules, 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
}

function isInstalled(host: N8nHost, stamp: string): boolean {
	const stampFile = path.join(host.dir, 'node_modules', STAMP_NAME);
	return (
		existsSync(n8nBinOf(host.dir)) &&
		existsSync(stampFile) &&
		readFileSync(stampFile, 'utf8').trim() === stamp &&
		existsSync(sqliteBinding(path.join(host.dir, 'node_modules')))
	);
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
	console.log(`e2e: ${command} ${args.join(' ')}`);
	const result = spawnSync(command, args, { cwd, env, stdio: 'inherit' });
	if (result.status !== 0) {
		throw new Error(`\`${command} ${args.join(' ')}\` failed in ${cwd} (exit ${result.status ?? result.signal})`);
	}
}

/** Whether the cache folder holds a finished install for `stamp` (the stamp is written last). */
function cacheReady(cachedModules: string, stamp: string): boolean {
	const cachedStamp = path.join(cachedModules, STAMP_NAME);
	return (
		existsSync(cachedStamp) &&
		readFileSync(cachedStamp, 'utf8').trim() === stamp &&
		existsSync(sqliteBinding(cachedModules))
	);
}

/** Points the host's node_modules (e2e/n8n/node_modules) at the cached install. */
function linkInstall(host: N8nHost, cachedModules: string): void {
	const link = path.join(host.dir, 'node_modules');
	if (existsSync(link) || lstatSync(link, { throwIfNoEntry: false })) rmSync(link, { recursive: true, force: true });
	symlinkSync(cachedModules, link, 'dir');
}

/** Installs the host's pinned n8n for `host.nodeBinary` (default: e2e/n8n for the Node that runs this). */
export function installN8n({ force = false, host = defaultN8nHost }: { force?: boolean; host?: N8nHost } = {}): void {
	const versions = versionsOf(host.nodeBinary);
	const stamp = expectedStamp(host, versions.modules);
	if (!force && isInstalled(host, stamp)) {
		console.log(`e2e: n8n is installed in ${host.dir}`);
		return;
	}
	const cacheDir = path.join(cacheRoot, createHash('sha256').update(stamp).digest('hex').slice(0, 16));
	const cachedModules = path.join(cacheDir, 'node_modules');
	if (!force && cacheReady(cachedModules, stamp)) {
		linkInstall(host, cachedModules);
		console.log(`e2e: n8n linked from the cache ${cacheDir}`);
		return;
	}
	withInstallLock(cacheDir, 'e2e', () => {
		// Another process may have installed it while this one waited for the lock.
		if (!force && cacheReady(cachedModules, stamp)) return;
		installInto(host, cacheDir, versions, stamp);
	});
	linkInstall(host, cachedModules);
}

/** A fresh `npm ci` of the host's n8n into `cacheDir`, with sqlite3 built and the stamp written last. */
function installInto(
	host: N8nHost,
	cacheDir: string,
	versions: { node: string; modules: string },
	stamp: string,
): void {
	const cachedModules = path.join(cacheDir, 'node_modules');
	const cachedStamp = path.join(cachedModules, STAMP_NAME);
	const started = Date.now();
	rmSync(cacheDir, { recursive: true, force: true });
	mkdirSync(cacheDir, { recursive: true });
	for (const file of ['package.json', 'package-lock.json'])
		copyFileSync(path.join(host.dir, file), path.join(cacheDir, file));
	// npm and node-gyp run under the Node that will run n8n.
	const nodeFirst: NodeJS.ProcessEnv = {
		...process.env,
		PATH: `${path.dirname(host.nodeBinary)}${path.delimiter}${process.env.PATH ?? ''}`,
	};
	const n8nVersion = (
		JSON.parse(readFileSync(path.join(host.dir, 'package.json'), 'utf8')) as { dependencies: { n8n: string } }
	).dependencies.n8n;
	longStep(
		'e2e',
		`installing n8n ${n8nVersion} and its dependencies (about 2.5 GB, once per machine) into ${cacheDir}`,
		'3 to 15 min',
		() =>
			run(
				'npm',
				['ci', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'],
				cacheDir,
				nodeFirst,
			),
	);
	const headers = nodeHeadersDir(host.nodeBinary, versions.node);
	if (!headers) console.warn('e2e: no local Node headers found for this Node; node-gyp will look for its own');
	// `npm run` hands its own config to child processes (npm_config_ignore_scripts=true from the project's .npmrc):
	// a rebuild that inherited it would skip the build and leave n8n without its database driver.
	const rebuildEnv: NodeJS.ProcessEnv = { ...nodeFirst, npm_config_ignore_scripts: 'false' };
	if (headers) rebuildEnv.npm_config_nodedir = headers;
	const missingTools = missingBuildTools();
	if (missingTools.length) {
		console.warn(
			`e2e: ${missingTools.join(', ')} not found: sqlite3 can only use its prebuilt binary (downloaded from GitHub); where that fails, install them (${BUILD_TOOLS_HINT})`,
		);
	}
	const binding = sqliteBinding(cachedModules);
	try {
		longStep(
			'e2e',
			"building sqlite3, n8n's database driver (its prebuilt binary, or compiled from source where that cannot be fetched)",
			'1 to 6 min',
			() => run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--loglevel=error'], cacheDir, rebuildEnv),
		);
		if (!existsSync(binding))
			throw new Error(`sqlite3 was not built (${binding} is missing): n8n could not open its database`);
	} catch (error) {
		throw new Error(
			`${(error as Error).message}\nCompiling sqlite3 needs python3, make and a C++ compiler (${BUILD_TOOLS_HINT})${missingTools.length ? `; missing here: ${missingTools.join(', ')}` : ''}`,
		);
	}
	writeFileSync(cachedStamp, `${stamp}\n`);
	console.log(`e2e: n8n installed in ${formatDuration(Date.now() - started)} (cache ${cacheDir})`);
}

if (import.meta.main) {
	const host = process.argv.includes('--n8n1') ? (await import('./lib/n8n1Host.ts')).n8n1Host() : defaultN8nHost;
	installN8n({ force: process.argv.includes('--force'), host });
}
