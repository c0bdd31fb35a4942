/**
 * The start-up steps of `npm run dev` say what they are doing: a line when each starts, a progress line at least every
 * HEARTBEAT_MS while it runs, and its total when it ran long enough to have printed progress. A newcomer's first run
 * (a new n8n database, a cold build) otherwise sat silent until the banner and looked hung. The wording is
 * longStep.cjs's, the one the setup and the build speak with.
 */
import { spawnSync } from 'node:child_process';
import { endLine, HEARTBEAT_MS, longStep, progressLine, startLine } from '../../scripts/lib/longStep.cjs';
import { repoRoot } from './paths.ts';

const PREFIX = 'dev';

/** Runs an asynchronous start-up step; the progress lines come from a timer, since the event loop keeps turning. */
export async function devStep<T>(what: string, usually: string, run: () => Promise<T>): Promise<T> {
	const started = Date.now();
	process.stderr.write(startLine(PREFIX, what, usually));
	const heartbeat = setInterval(
		() => process.stderr.write(progressLine(PREFIX, what, Date.now() - started)),
		HEARTBEAT_MS,
	);
	let ok = false;
	try {
		const result = await run();
		ok = true;
		return result;
	} finally {
		clearInterval(heartbeat);
		const elapsed = Date.now() - started;
		if (!ok || elapsed >= HEARTBEAT_MS) process.stderr.write(endLine(PREFIX, what, ok, elapsed));
	}
}

/**
 * Builds the receiver, the sandbox and the package (`npm run build`) as one long step. The build is synchronous, so
 * longStep's progress lines come from a child process; the build script's own quiet step sees MBB_LONG_STEP_ACTIVE
 * and leaves the progress lines to this one (two clocks would print two lines at once).
 */
export function buildPackage(): void {
	longStep(PREFIX, 'building the receiver, the sandbox and the package (tsc -b)', '1 min', () => {
		const result = spawnSync('npm', ['run', 'build', '--silent'], {
			cwd: repoRoot,
			stdio: 'inherit',
			env: { ...process.env, MBB_LONG_STEP_ACTIVE: '1' },
		});
		if (result.status !== 0) throw new Error('`npm run build` failed');
	});
}
