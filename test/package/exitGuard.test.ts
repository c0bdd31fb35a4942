/**
 * jest.config.js ends a run that a left-open handle would keep alive with test/support/exitGuardReporter.cjs (instead
 * of forceExit and its "Force exiting Jest" line on every run): a jest run whose test fails and leaves a server
 * listening ends, with the failure's exit code and the line that says why.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');

test('a run with a handle left open ends with its result and one line naming the cause', async () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'exit-guard-'));
	try {
		writeFileSync(
			path.join(dir, 'leak.test.js'),
			"test('leaves a server open and fails', () => { require('node:net').createServer().listen(0, '127.0.0.1'); expect(1).toBe(2); });\n",
		);
		writeFileSync(
			path.join(dir, 'jest.config.js'),
			`module.exports = { rootDir: ${JSON.stringify(dir)}, reporters: [${JSON.stringify(path.join(repoRoot, 'test/support/exitGuardReporter.cjs'))}] };\n`,
		);
		const child = spawn(
			process.execPath,
			[require.resolve('jest/bin/jest'), '--config', path.join(dir, 'jest.config.js'), '--runInBand'],
			{
				cwd: dir,
				env: { ...process.env, JEST_EXIT_GUARD_MS: '500' },
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		let stderr = '';
		child.stderr.on('data', (chunk) => (stderr += chunk));
		const [code] = await once(child, 'exit');
		expect(code).toBe(1);
		expect(stderr).toContain(
			'jest: something a test started was still open 0.5 s after the last test, so the run ends here; `npm run jest -- --detectOpenHandles <test files>` names it\n',
		);
		expect(stderr).not.toContain('Force exiting Jest');
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}, 60_000);
