/** Where things live: the repository, the private n8n install, and the output folder of the e2e runs. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const e2eDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = path.resolve(e2eDir, '..');
/** The n8n host project: its own package.json + lockfile, installed on first use, git-ignored node_modules. */
export const n8nHostDir = path.join(e2eDir, 'n8n');
export const n8nBin = path.join(n8nHostDir, 'node_modules', 'n8n', 'bin', 'n8n');
/** Screenshots, packed tarballs and n8n user folders of test runs (git-ignored). */
export const outDir = path.join(e2eDir, 'out');
export const sandboxDist = path.join(repoRoot, 'sandbox', 'dist', 'index.js');
export const examplesDir = path.join(repoRoot, 'examples');
