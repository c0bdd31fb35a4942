#!/usr/bin/env node
/**
 * Runs one command with its output as it comes, and other commands alongside it with their output kept until each
 * ends: `node scripts/alongside.mjs "<main command>" -- "<command>" ...`. npm run test:all runs the e2e so, with the
 * format check, ESLint and the type check beside it: the e2e spends much of its time waiting on n8n, and those
 * checks only read the sources. Exits with the first failing command's status, after every command has ended.
 */
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
const separator = args.indexOf('--');
if (separator !== 1 || args.length < 3) {
	console.error('usage: node scripts/alongside.mjs "<main command>" -- "<command>" ...');
	process.exit(2);
}
const [main, , ...others] = args;

/** Runs a shell command; `keep` collects its output instead of passing it through. */
function run(command, keep) {
	const started = performance.now();
	const child = spawn(command, { shell: true, stdio: keep ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
	const output = [];
	if (keep) {
		child.stdout.on('data', (chunk) => output.push(chunk));
		child.stderr.on('data', (chunk) => output.push(chunk));
	}
	return new Promise((resolve) => {
		child.on('close', (code, signal) =>
			resolve({
				command,
				status: code ?? (signal ? 1 : 0),
				seconds: Math.round((performance.now() - started) / 1000),
				output: Buffer.concat(output).toString(),
			}),
		);
	});
}

const beside = others.map((command) => run(command, true));
const results = [await run(main, false), ...(await Promise.all(beside))];
for (const result of results.slice(1)) {
	console.log(`\nalongside: ${result.command} (exit ${result.status}, ${result.seconds} s)`);
	process.stdout.write(result.output);
}
const failed = results.find((result) => result.status !== 0);
if (failed) console.error(`alongside: \`${failed.command}\` failed (exit ${failed.status})`);
process.exit(failed ? failed.status : 0);
