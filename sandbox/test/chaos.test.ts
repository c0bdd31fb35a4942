import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The short form of the chaos run (`npm run chaos:sandbox` kills 20 times): the built command line
 * on one data file, killed with SIGKILL 3 times while writes stream in, each kill after at least 20 acknowledged
 * rows and 4 subscribers (so a busy machine gets the same amount of work done). See chaos/sandbox/run.mjs.
 */
const script = join(__dirname, '../../chaos/sandbox/run.mjs');
const cli = join(__dirname, '..', 'dist', 'cli.js');

test('writes acknowledged before a SIGKILL are all there after the restart, none doubled, no id reused, every event delivered', async () => {
	if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
	const child = spawn(process.execPath, [script, '--kills', '3', '--min-ms', '300', '--max-ms', '700', '--json'], {
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let output = '';
	child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
	const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
	const line = output.trim().split('\n').at(-1) ?? '';
	let result: Record<string, unknown>;
	try {
		result = JSON.parse(line);
	} catch {
		throw new Error(`chaos run printed no result (exit ${code}): ${output}`);
	}
	expect(result).toMatchObject({
		kills: 3,
		lost: 0,
		doubled: 0,
		reused: 0,
		strangers: 0,
		undelivered: 0,
		notAnswered: 0,
		problems: [],
	});
	expect(result.acknowledgedRows as number).toBeGreaterThan(50);
	expect(result.acknowledgedSubscribers as number).toBeGreaterThan(3);
	expect(result.events as number).toBeGreaterThan(3);
	expect(result.ok).toBe(true);
	expect(code).toBe(0);
}, 240_000);
