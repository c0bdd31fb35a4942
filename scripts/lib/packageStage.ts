/**
 * The published package, built apart from the repository: a stage folder with a generated package.json
 * (no workspaces, scripts or devDependencies), the compiled nodes and credential, the user README,
 * LICENSE and CHANGELOG; packed with `npm pack`. The stage also holds the TypeScript sources and n8n's
 * stock eslint.config.mjs, which `n8n-node lint` needs (they are not in the tarball: `files` is `dist`).
 * The e2e installs this tarball, the scanner checks it, the publish workflow publishes it.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { packageDocsDir, packageOutDir, repoRoot } from './paths.ts';

export const stageDir = path.join(packageOutDir, 'stage');

/** n8n's stock lint config (`n8n-node new` writes it; strict mode insists on it, whitespace aside). */
export const STOCK_ESLINT_CONFIG = `import { config } from '@n8n/node-cli/eslint';\n\nexport default config;\n`;

/** Fields of the root package.json that describe the published package; everything else stays behind. */
const PUBLISHED_FIELDS = [
	'name',
	'version',
	'description',
	'license',
	'author',
	'homepage',
	'repository',
	'bugs',
	'keywords',
	'n8n',
	'peerDependencies',
];

/**
 * The lowest Node the package is tested on: n8n 1.123.81 on Node 22 (`npm run test:n8n1`); n8n 2.41.1 runs on
 * Node 24 (`npm run test:e2e`), as n8n 2.x itself requires.
 */
export const PUBLISHED_ENGINES = { node: '>=22' };

interface RootPackage {
	n8n: { nodes: string[]; credentials: string[] };
	[field: string]: unknown;
}

export function readRootPackage(): RootPackage {
	return JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as RootPackage;
}

export function publishedPackageJson(root: RootPackage = readRootPackage()): Record<string, unknown> {
	const published: Record<string, unknown> = {};
	for (const field of PUBLISHED_FIELDS) if (root[field] !== undefined) published[field] = root[field];
	return { ...published, engines: PUBLISHED_ENGINES, files: ['dist', 'CHANGELOG.md'] };
}

/** Fills the stage from the built repository (`npm run build` first); returns its folder. */
export function stagePackage(): string {
	const root = readRootPackage();
	const missing = [...root.n8n.nodes, ...root.n8n.credentials].filter((file) => !existsSync(path.join(repoRoot, file)));
	if (missing.length)
		throw new Error(`the package is not built (missing ${missing.join(', ')}): run \`npm run build\``);
	rmSync(stageDir, { recursive: true, force: true });
	mkdirSync(stageDir, { recursive: true });
	const copy = (from: string, to = from) =>
		cpSync(path.join(repoRoot, from), path.join(stageDir, to), { recursive: true });
	copy('dist/nodes');
	copy('dist/credentials');
	copy('nodes');
	copy('credentials');
	copy('LICENSE');
	copy('CHANGELOG.md');
	cpSync(path.join(packageDocsDir, 'README.md'), path.join(stageDir, 'README.md'));
	writeFileSync(path.join(stageDir, 'package.json'), `${JSON.stringify(publishedPackageJson(root), null, 2)}\n`);
	writeFileSync(path.join(stageDir, 'eslint.config.mjs'), STOCK_ESLINT_CONFIG);
	// The build's compiler options, self-contained: n8n-node lint resolves imports through it.
	const base = JSON.parse(readFileSync(path.join(repoRoot, 'tsconfig.base.json'), 'utf8'));
	const tsconfig = {
		compilerOptions: { ...base.compilerOptions, rootDir: '.', outDir: 'dist' },
		include: ['nodes/**/*.ts', 'credentials/**/*.ts'],
	};
	writeFileSync(path.join(stageDir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
	return stageDir;
}

/** `npm pack` of the stage into `destDir` (default out/package); returns the tarball's path. */
export function packStage(destDir = packageOutDir): string {
	mkdirSync(destDir, { recursive: true });
	const result = spawnSync('npm', ['pack', '--json', '--pack-destination', destDir, '--loglevel=error'], {
		cwd: stageDir,
		encoding: 'utf8',
	});
	if (result.status !== 0)
		throw new Error(`\`npm pack\` failed in ${stageDir} (exit ${result.status ?? result.signal}):\n${result.stderr}`);
	const [packed] = JSON.parse(result.stdout) as Array<{ filename: string }>;
	return path.join(destDir, packed.filename);
}

/** Stages and packs the package; returns the tarball's path. */
export function buildPackageTarball(destDir?: string): string {
	stagePackage();
	return packStage(destDir);
}
