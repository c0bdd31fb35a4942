/**
 * n8n's own tools for community packages, pinned in scripts/n8n-tools (package.json + lockfile):
 * `@n8n/scan-community-package` (the verification scanner) and `@n8n/node-cli` (`n8n-node lint`).
 * They are not devDependencies: together about 700 MB with a second ESLint and TypeScript, and
 * `npm ci` of the project must stay lean. Installed on first use (about 2 minutes, `npm install
 * --ignore-scripts` from the lockfile) into a cache outside the clone keyed by the lockfile, and linked as
 * scripts/n8n-tools/node_modules, so a fresh clone on the same machine reuses it at once.
 * Cache: $MBB_N8N_TOOLS_CACHE or ~/.cache/messenger-bot-builder-n8n-tools
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
import { withInstallLock } from './installLock.cjs';
import { longStep } from './longStep.cjs';
import { scriptsDir } from './paths.ts';

export const toolsHostDir = path.join(scriptsDir, 'n8n-tools');
export const toolsModules = path.join(toolsHostDir, 'node_modules');
const STAMP_NAME = '.n8n-tools-stamp';
const cacheRoot =
	process.env.MBB_N8N_TOOLS_CACHE ?? path.join(os.homedir(), '.cache', 'messenger-bot-builder-n8n-tools');

function lockHash(): string {
	return createHash('sha256')
		.update(readFileSync(path.join(toolsHostDir, 'package-lock.json')))
		.digest('hex')
		.slice(0, 16);
}

function stampOk(modules: string, hash: string): boolean {
	const stamp = path.join(modules, STAMP_NAME);
	return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === hash;
}

/** Installs the pinned tools when needed and returns their node_modules folder. */
export function installN8nTools(): string {
	const hash = lockHash();
	if (stampOk(toolsModules, hash)) return toolsModules;
	const cacheDir = path.join(cacheRoot, hash);
	const cachedModules = path.join(cacheDir, 'node_modules');
	withInstallLock(cacheDir, 'verify', () => {
		if (stampOk(cachedModules, hash)) return; // installed by another process while this one waited
		rmSync(cacheDir, { recursive: true, force: true });
		mkdirSync(cacheDir, { recursive: true });
		for (const file of ['package.json', 'package-lock.json'])
			copyFileSync(path.join(toolsHostDir, file), path.join(cacheDir, file));
		// `npm install` with the lockfile in place installs its pinned versions (peers included, whatever `npm run`
		// passes down from the project's .npmrc); `npm ci` would refuse a lockfile
		// without the other platforms' optional binaries (eslint-import-resolver-typescript's), which this registry lacks.
		const result = longStep(
			'verify',
			`installing n8n's scanner and node CLI (about 0.7 GB, once per machine) into ${cacheDir}`,
			'1 to 3 min',
			() =>
				spawnSync(
					'npm',
					['install', '--ignore-scripts', '--legacy-peer-deps=false', '--no-audit', '--no-fund', '--loglevel=error'],
					{ cwd: cacheDir, stdio: 'inherit' },
				),
		);
		if (result.status !== 0)
			throw new Error(`installing n8n's tools failed in ${cacheDir} (exit ${result.status ?? result.signal})`);
		writeFileSync(path.join(cachedModules, STAMP_NAME), `${hash}\n`);
	});
	if (lstatSync(toolsModules, { throwIfNoEntry: false })) rmSync(toolsModules, { recursive: true, force: true });
	symlinkSync(cachedModules, toolsModules, 'dir');
	return toolsModules;
}
