// Copies the non-TypeScript files of the n8n package (icons, codex files) next to the compiled nodes: tsc does not.
// Run by the build, and by `npm run dev` after each recompilation.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(import.meta.dirname, '..');
const assetPattern = /\.(svg|png|json)$/;

function copyTree(sourceDir, targetDir) {
	for (const entry of readdirSync(sourceDir)) {
		const source = join(sourceDir, entry);
		const target = join(targetDir, entry);
		if (statSync(source).isDirectory()) copyTree(source, target);
		else if (assetPattern.test(entry)) cpSync(source, target);
	}
}

export function copyNodeAssets() {
	for (const dir of ['nodes', 'credentials']) copyTree(join(root, dir), join(root, 'dist', dir));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) copyNodeAssets();
