/**
 * scripts/lib/longStep.cjs as the shell scripts use it: a start line saying what runs and how long it usually takes,
 * progress lines while it runs (here every 100 ms instead of 20 s), and the total; a failure keeps its exit code.
 * The step waits for the test to have seen a progress line (a file the test writes), never for a fixed time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { formatDuration } from '../../scripts/lib/longStep.cjs';

const cli = path.resolve(__dirname, '../../scripts/lib/longStep.cjs');

async function runStep(
	command: string[],
	onStderr: (text: string) => void = () => {},
	flags: string[] = [],
	heartbeatMs = 100,
) {
	const child = spawn(
		process.execPath,
		[cli, ...flags, 'demo', 'waiting for the signal', 'a moment', '--', ...command],
		{
			env: { ...process.env, MBB_HEARTBEAT_MS: String(heartbeatMs) },
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	);
	let stderr = '';
	child.stderr.on('data', (chunk) => {
		stderr += chunk;
		onStderr(stderr);
	});
	const [code] = await once(child, 'exit');
	return { code, lines: stderr.trimEnd().split('\n') };
}

test('a start line, progress lines with the time so far, and the total when done', async () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'long-step-'));
	const signal = path.join(dir, 'seen');
	try {
		const waitForSignal = `const fs = require('node:fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(signal)})) clearInterval(t); }, 20);`;
		const { code, lines } = await runStep([process.execPath, '-e', waitForSignal], (text) => {
			if (text.includes('demo: … still waiting for the signal (')) writeFileSync(signal, '');
		});
		expect(code).toBe(0);
		expect(lines[0]).toBe('demo: waiting for the signal (usually a moment)…');
		const progress = lines.slice(1, -1);
		expect(progress.length).toBeGreaterThan(0);
		for (const line of progress) expect(line).toMatch(/^demo: … still waiting for the signal \(\d+ s so far\)$/);
		expect(lines[lines.length - 1]).toMatch(/^demo: waiting for the signal: done in \d+ s$/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test("a failed step says so and keeps the command's exit code", async () => {
	const { code, lines } = await runStep([process.execPath, '-e', 'process.exit(3)']);
	expect(code).toBe(3);
	expect(lines[0]).toBe('demo: waiting for the signal (usually a moment)…');
	expect(lines[lines.length - 1]).toMatch(/^demo: waiting for the signal: failed after \d+ s$/);
});

test('--quiet: a quick step prints nothing; a slow one prints its progress lines and its total', async () => {
	// Quick: ends long before its first progress line would be due.
	const quick = await runStep([process.execPath, '-e', ''], () => {}, ['--quiet'], 600_000);
	expect(quick).toEqual({ code: 0, lines: [''] });

	const dir = mkdtempSync(path.join(os.tmpdir(), 'long-step-'));
	const signal = path.join(dir, 'seen');
	try {
		const waitForSignal = `const fs = require('node:fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(signal)})) clearInterval(t); }, 20);`;
		const slow = await runStep(
			[process.execPath, '-e', waitForSignal],
			(text) => {
				if (text.includes('demo: … still waiting for the signal (')) writeFileSync(signal, '');
			},
			['--quiet'],
		);
		expect(slow.code).toBe(0);
		expect(slow.lines.length).toBeGreaterThanOrEqual(2);
		for (const line of slow.lines.slice(0, -1))
			expect(line).toMatch(/^demo: … still waiting for the signal \(\d+ s so far\)$/);
		expect(slow.lines[slow.lines.length - 1]).toMatch(/^demo: waiting for the signal: done in \d+ s$/);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}

	// A quick failure still says so (its heartbeat far off, so that a busy machine cannot make it print progress first).
	const failed = await runStep([process.execPath, '-e', 'process.exit(4)'], () => {}, ['--quiet'], 600_000);
	expect(failed.code).toBe(4);
	expect(failed.lines).toEqual([expect.stringMatching(/^demo: waiting for the signal: failed after \d+ s$/)]);
});

test('a quiet step inside another leaves the progress lines to the outer one', async () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'long-step-'));
	const signal = path.join(dir, 'seen');
	try {
		const waitForSignal = `const fs = require('node:fs'); const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(signal)})) clearInterval(t); }, 20);`;
		const inner = [
			process.execPath,
			cli,
			'--quiet',
			'inner',
			'compiling',
			'a moment',
			'--',
			process.execPath,
			'-e',
			waitForSignal,
		];
		// Five progress lines of the outer step: an inner step with a clock of its own would have printed by then.
		const outer = await runStep(
			inner,
			(text) => {
				if ((text.match(/demo: … still/g) ?? []).length >= 5) writeFileSync(signal, '');
			},
			['--quiet'],
		);
		expect(outer.code).toBe(0);
		expect(outer.lines.filter((line) => !/^demo: … still waiting for the signal \(\d+ s so far\)$/.test(line))).toEqual(
			[expect.stringMatching(/^demo: waiting for the signal: done in \d+ s$/)],
		);
		expect(outer.lines.length).toBeGreaterThanOrEqual(6);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});

test('durations read as seconds, minutes and hours', () => {
	expect([0, 499, 42_000, 60_000, 185_000, 3_600_000, 3_720_000].map(formatDuration)).toEqual([
		'0 s',
		'0 s',
		'42 s',
		'1 min',
		'3 min 5 s',
		'1 h',
		'1 h 2 min',
	]);
});

test("npm run setup (scripts/setup.cjs): npm ci with the same start, progress and end lines, and npm's exit code", async () => {
	// A stand-in npm first on PATH: it records its arguments, waits until the test has seen a progress line, exits 3.
	const dir = mkdtempSync(path.join(os.tmpdir(), 'long-step-setup-'));
	const signal = path.join(dir, 'seen');
	const argsFile = path.join(dir, 'args');
	try {
		writeFileSync(
			path.join(dir, 'npm'),
			`#!/bin/sh\necho "$@" > ${JSON.stringify(argsFile)}\nwhile [ ! -e ${JSON.stringify(signal)} ]; do sleep 0.05; done\nexit 3\n`,
			{ mode: 0o755 },
		);
		const root = path.resolve(__dirname, '../..');
		const lock = JSON.parse(readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
			packages: Record<string, unknown>;
		};
		const topLevel = Object.keys(lock.packages).filter(
			(key) => key.startsWith('node_modules/') && key.split('/').length === (key.startsWith('node_modules/@') ? 3 : 2),
		).length;
		const child = spawn(process.execPath, [path.join(root, 'scripts/setup.cjs')], {
			env: { ...process.env, PATH: `${dir}${path.delimiter}${process.env.PATH}`, MBB_HEARTBEAT_MS: '100' },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stderr = '';
		child.stderr.on('data', (chunk) => {
			stderr += chunk;
			if (stderr.includes('setup: … still')) writeFileSync(signal, '');
		});
		const [code] = await once(child, 'exit');
		const lines = stderr.trimEnd().split('\n');
		expect(code).toBe(3);
		expect(readFileSync(argsFile, 'utf8')).toBe('ci --no-audit --no-fund\n');
		const what = "installing the repository's dependencies (npm ci)";
		expect(lines[0]).toBe(
			`setup: ${what}: ${topLevel} top-level packages (usually about 1 min with a warm npm cache, 2 to 4 min with an empty one; longer on a busy machine)…`,
		);
		const progress = lines.slice(1, -1);
		expect(progress.length).toBeGreaterThan(0);
		const progressPattern = new RegExp(
			`^setup: … still ${what.replace(/[()]/g, '\\$&')} \\(\\d+ s so far; (\\d+) of ${topLevel} in node_modules\\)$`,
		);
		for (const line of progress) expect(Number(line.match(progressPattern)?.[1])).toBeLessThanOrEqual(topLevel);
		expect(lines[lines.length - 1]).toMatch(
			new RegExp(`^setup: ${what.replace(/[()]/g, '\\$&')}: failed \\(exit 3\\) after \\d+ s$`),
		);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
