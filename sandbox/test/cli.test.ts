import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The built command line, as `npm start` runs it (`npm test` builds it first, in its pretest step). */
const cli = join(__dirname, '..', 'dist', 'cli.js');

const START_BOUND_MS = 90_000;
// A test starts the command line up to twice.
jest.setTimeout(2 * START_BOUND_MS + 30_000);

beforeAll(() => {
	if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
});

/** Runs the built command line until it prints its ready lines (the last: the console) or exits, then returns what it printed. */
function startCli(args: string[]): Promise<{ child: ChildProcess; output: string; code: number | null }> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
		let output = '';
		// A bound only against a hang (a busy machine takes many seconds to start Node); the child never outlives it.
		const timer = setTimeout(() => {
			child.kill('SIGKILL');
			reject(new Error(`sandbox did not start within ${START_BOUND_MS / 1000} s: ${output}`));
		}, START_BOUND_MS);
		const onData = (chunk: Buffer) => {
			output += chunk.toString();
			if (/Console: .+\n/.test(output)) {
				clearTimeout(timer);
				resolve({ child, output, code: null });
			}
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		child.on('exit', (code) => {
			clearTimeout(timer);
			resolve({ child, output, code });
		});
	});
}

/** Stops the command line the way a terminal or a service manager does, and waits until it has exited. */
function stop(child: ChildProcess): Promise<void> {
	if (child.exitCode !== null) return Promise.resolve();
	return new Promise((resolve) => {
		child.once('exit', () => resolve());
		child.kill('SIGTERM');
	});
}

describe('sandbox command line', () => {
	test('prints one line with its base URL and serves the API with the fixed key and the flags given', async () => {
		const { child, output } = await startCli([
			'--host',
			'127.0.0.1',
			'--port',
			'0',
			'--admin-key',
			'cli_key',
			'--no-seed',
			'--rate-limit',
			'5',
			'--row-cap',
			'7',
			'--timezone',
			'Europe/Berlin',
			'--retry-schedule',
			'1,2',
		]);
		try {
			expect(output.split('\n').filter((line) => /http:\/\/127\.0\.0\.1:\d+\/api/.test(line))).toHaveLength(1);
			const baseUrl = output.match(/http:\/\/127\.0\.0\.1:\d+\/api/)?.[0];
			expect(output).toContain('Account API key: cli_key');
			expect(output).toMatch(/^Console: http:\/\/127\.0\.0\.1:\d+\/console\/$/m);
			const response = await fetch(`${baseUrl}/account/get`, { headers: { authorization: 'cli_key' } });
			const body = (await response.json()) as {
				account: { timezone: string };
				tariff: { rateLimit: number; rowCap: number };
				used: { bots: number };
			};
			expect(body.tariff).toMatchObject({ rateLimit: 5, rowCap: 7 });
			expect(body.account.timezone).toBe('Europe/Berlin');
			expect(body.used.bots).toBe(0);
		} finally {
			await stop(child);
		}
	});

	test('--data keeps what was written across a stop (SIGTERM) and a start; demo data is seeded once', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-cli-'));
		const args = ['--port', '0', '--data', join(dir, 'state.sqlite')];
		try {
			const first = await startCli(args);
			const key = first.output.match(/Account API key: (\S+)/)![1];
			const firstUrl = first.output.match(/http:\/\/127\.0\.0\.1:\d+\/api/)![0];
			const created = await fetch(`${firstUrl}/list/create`, {
				method: 'POST',
				headers: { authorization: key, 'content-type': 'application/json' },
				body: JSON.stringify({ name: 'Kept', headers: ['A'] }),
			});
			expect(created.status).toBe(200);
			await stop(first.child);

			const second = await startCli(args);
			try {
				expect(second.output).toContain(`Account API key: ${key}`);
				const secondUrl = second.output.match(/http:\/\/127\.0\.0\.1:\d+\/api/)![0];
				const lists = (await (await fetch(`${secondUrl}/list/all`, { headers: { authorization: key } })).json()) as {
					items: { name: string }[];
				};
				expect(lists.items.map((list) => list.name)).toEqual(['Leads', 'Kept']);
			} finally {
				await stop(second.child);
			}
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	test('variant flags: a capped page without total, records under the resource name, 429 without Retry-After', async () => {
		const { child, output } = await startCli([
			'--port',
			'0',
			'--admin-key',
			'variant_key',
			'--max-page',
			'2',
			'--max-page-mode',
			'cap',
			'--omit-total',
			'--list-shape',
			'named',
			'--retry-after',
			'none',
			'--fail-reads',
			'0',
			'--rate-limit',
			'1',
		]);
		try {
			const baseUrl = output.match(/http:\/\/127\.0\.0\.1:\d+\/api/)![0];
			const page = await fetch(`${baseUrl}/subscriber/list?limit=50`, { headers: { authorization: 'variant_key' } });
			expect(Object.keys((await page.json()) as object)).toEqual(['subscribers']);
			const refused = await fetch(`${baseUrl}/subscriber/list?limit=50`, { headers: { authorization: 'variant_key' } });
			expect(refused.status).toBe(429);
			expect(refused.headers.get('retry-after')).toBeNull();
		} finally {
			await stop(child);
		}
	});

	test('rejects a bad variant flag value, naming the flag', async () => {
		for (const [flag, value] of [
			['--max-page-mode', 'drop'],
			['--list-shape', 'xml'],
			['--max-page', '5000'],
			['--fail-reads', '3'],
		]) {
			const { output, code } = await startCli(['--port', '0', flag, value]);
			expect(code).toBe(2);
			expect(output).toContain(flag);
		}
	});

	test('a taken port: one line naming the port and the flag that changes it', async () => {
		const taken = createServer();
		await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
		const { port } = taken.address() as AddressInfo;
		try {
			const { output, code } = await startCli(['--port', String(port)]);
			expect(code).toBe(1);
			expect(output).toBe(
				`sandbox: port ${port} is already in use on 127.0.0.1; choose another with --port (--port 0 takes any free port)\n`,
			);
		} finally {
			await new Promise((resolve) => taken.close(resolve));
		}
	});

	test('rejects a bad flag value, naming the flag', async () => {
		const { output, code } = await startCli(['--port', '0', '--timezone', 'Mars/Olympus']);
		expect(code).toBe(2);
		expect(output).toContain('--timezone');
	});
});
