/** Where the repository's tooling keeps things. */
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const scriptsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = path.resolve(scriptsDir, '..');
/** Generated, git-ignored: the package stage and its tarball. */
export const packageOutDir = path.join(repoRoot, 'out', 'package');
/** The user README and what else only the published package carries. */
export const packageDocsDir = path.join(repoRoot, 'package');
