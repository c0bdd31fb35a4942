/**
 * Recompiles the n8n package on every change (`tsc --watch` with the build config) and reports each
 * successful rebuild after copying the icons and codex files next to the compiled nodes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { repoRoot } from './paths.ts';

const tscBin = createRequire(path.join(repoRoot, 'package.json')).resolve('typescript/bin/tsc');
const watchReport = /Found (\d+) errors?\. Watching for file changes\./;

export function watchNodes(onRebuilt: () => Promise<void>, onError: (message: string) => void): ChildProcess {
	const tsc = spawn(process.execPath, [tscBin, '-p', 'tsconfig.nodes.json', '--watch', '--preserveWatchOutput'], {
		cwd: repoRoot,
		stdio: ['ignore', 'pipe', 'inherit'],
	});
	let firstReport = true;
	let pending = Promise.resolve();
	let buffer = '';
	tsc.stdout.setEncoding('utf8');
	tsc.stdout.on('data', (chunk: string) => {
		buffer += chunk;
		const lines = buffer.split('\n');
		buffer = lines.pop() ?? '';
		for (const line of lines) {
			const report = watchReport.exec(line);
			if (!report) {
				if (/error TS\d+/.test(line)) onError(line);
				continue;
			}
			// The first report is tsc's own initial build of what we have just built.
			if (firstReport) {
				firstReport = false;
				continue;
			}
			if (report[1] !== '0') {
				onError(`the package has ${report[1]} type error(s); n8n keeps the last good build`);
				continue;
			}
			pending = pending.then(async () => {
				const copy = spawnSync(process.execPath, ['scripts/copy-assets.mjs'], { cwd: repoRoot, stdio: 'inherit' });
				if (copy.status !== 0) onError('copying the node assets failed');
				else await onRebuilt();
			});
		}
	});
	return tsc;
}
