// Copies the non-TypeScript files of the n8n package (icons, codex files) next to the compiled nodes.
import { cpSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const assetPattern = /\.(svg|png|json)$/;

function copyAssets(sourceDir, targetDir) {
	for (const entry of readdirSync(sourceDir)) {
		const source = join(sourceDir, entry);
		const target = join(targetDir, entry);
		if (statSync(source).isDirectory()) copyAssets(source, target);
		else if (assetPattern.test(entry)) cpSync(source, target);
	}
}

for (const dir of ['nodes', 'credentials']) copyAssets(dir, join('dist', dir));
