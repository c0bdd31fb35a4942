/**
 * Our n8n package as n8n sees it: staged and packed like the published package, and installed into a user folder's
 * `.n8n/nodes` (how n8n installs community packages), or linked there for development.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildPackageTarball } from '../../scripts/lib/packageStage.ts';
import { repoRoot } from './paths.ts';

interface RootPackageJson {
	name: string;
	n8n: { nodes: string[]; credentials: string[] };
}

export const rootPackage = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as RootPackageJson;
export const packageName = rootPackage.name;

/** Node type names as n8n registers them for a community package: `<package name>.<node name>`. */
export const nodeTypes = {
	action: `${packageName}.messengerBotBuilder`,
	trigger: `${packageName}.messengerBotBuilderTrigger`,
};
export const credentialType = 'messengerBotBuilderApi';
/** The credential of the trigger's claim log: an API key of the n8n under test. */
export const n8nApiCredentialType = 'messengerBotBuilderN8nApi';

function npm(args: string[], cwd: string): string {
	const result = spawnSync('npm', args, { cwd, encoding: 'utf8' });
	if (result.status !== 0) {
		throw new Error(
			`\`npm ${args.join(' ')}\` failed in ${cwd} (exit ${result.status ?? result.signal}):\n${result.stderr}`,
		);
	}
	return result.stdout;
}

/**
 * The package as it is published: staged with a generated package.json and packed (scripts/lib/packageStage.ts),
 * the same tarball n8n's scanner checks in `npm run verify:n8n`; returns the tarball's path in `destDir`.
 */
export function packPackage(destDir: string): string {
	return buildPackageTarball(destDir);
}

/** The folder where n8n keeps installed community packages (`<user folder>/.n8n/nodes`). */
export function communityNodesDir(userFolder: string): string {
	return path.join(userFolder, '.n8n', 'nodes');
}

function ensureNodesProject(userFolder: string): string {
	const dir = communityNodesDir(userFolder);
	mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
	const manifest = path.join(dir, 'package.json');
	if (!existsSync(manifest))
		writeFileSync(manifest, `${JSON.stringify({ name: 'installed-nodes', private: true }, null, 2)}\n`);
	return dir;
}

/**
 * Installs a packed tarball the way a user's n8n would get it. The package has no runtime
 * dependencies (n8n-workflow is a peer that n8n itself provides), so this never needs the registry.
 */
export function installTarball(userFolder: string, tarball: string): void {
	const dir = ensureNodesProject(userFolder);
	npm(
		[
			'install',
			tarball,
			'--offline',
			'--ignore-scripts',
			'--legacy-peer-deps',
			'--omit=peer',
			'--no-audit',
			'--no-fund',
			'--loglevel=error',
		],
		dir,
	);
}

/** Links the repository itself (its `dist/`), so a rebuild is what n8n loads next. */
export function linkRepository(userFolder: string): void {
	const dir = ensureNodesProject(userFolder);
	const target = path.join(dir, 'node_modules', packageName);
	rmSync(target, { recursive: true, force: true });
	symlinkSync(repoRoot, target, 'dir');
}
