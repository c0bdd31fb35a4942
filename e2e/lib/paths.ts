/** Where things live: the repository, the private n8n install, and the output folder of the e2e runs. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const e2eDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = path.resolve(e2eDir, '..');
/** The n8n host project: its own package.json + lockfile, installed on first use, git-ignored node_modules. */
export const n8nHostDir = path.join(e2eDir, 'n8n');
export const n8nBinOf = (hostDir: string): string => path.join(hostDir, 'node_modules', 'n8n', 'bin', 'n8n');
export const n8nBin = n8nBinOf(n8nHostDir);
/** A pinned n8n install and the Node that runs it. */
export interface N8nHost {
	/** The host project (package.json + lockfile); its node_modules links to the cached install. */
	dir: string;
	nodeBinary: string;
}
/** The n8n 2.x of the e2e and `npm run dev`, run by the Node that runs the harness (Node 24). */
export const defaultN8nHost: N8nHost = { dir: n8nHostDir, nodeBinary: process.execPath };
/** Screenshots, packed tarballs and n8n user folders of test runs (git-ignored). */
export const outDir = path.join(e2eDir, 'out');
export const sandboxDist = path.join(repoRoot, 'sandbox', 'dist', 'index.js');
export const examplesDir = path.join(repoRoot, 'examples');
