import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** The built command line and the receiver's quick start, as a developer runs them (`npm run build` first). */
const cli = join(__dirname, '..', 'dist', 'cli.js');
const receiverApp = join(__dirname, '..', '..', 'receiver', 'examples', 'express-app.mjs');
const KEY = 'listen_key';
// Bounds against a hang only: a busy machine takes seconds to start Node; every wait below ends on state.
const BOUND_MS = 60_000;
jest.setTimeout(4 * BOUND_MS);

/** A child process whose output is kept line by line, so a test waits for what it printed. */
interface Running {
	child: ChildProcess;
	out: string[];
	err: string[];
	exited: Promise<number | null>;
}

const running: Running[] = [];

/** Checks `probe` until it returns something, or fails after `timeoutMs` naming what it waited for. */
async function waitFor<T>(what: string, probe: () => T | undefined, timeoutMs: number): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = probe();
		if (value !== undefined) return value;
		if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 25));
	}
}

function run(args: string[], env: NodeJS.ProcessEnv = {}): Running {
	const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
	const out: string[] = [];
	const err: string[] = [];
	const collect = (into: string[]) => {
		let rest = '';
		return (chunk: Buffer) => {
			const lines = (rest + chunk.toString()).split('\n');
			rest = lines.pop() ?? '';
			into.push(...lines);
		};
	};
	child.stdout?.on('data', collect(out));
	child.stderr?.on('data', collect(err));
	const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
	const process_ = { child, out, err, exited };
	running.push(process_);
	return process_;
}

/** Stops a child as a terminal's Ctrl+C or a service manager does; resolves with its exit code. */
async function stop(process_: Running, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
	if (process_.child.exitCode === null && process_.child.signalCode === null) process_.child.kill(signal);
	return process_.exited;
}

afterEach(async () => {
	for (const process_ of running.splice(0)) {
		if (process_.child.exitCode === null && process_.child.signalCode === null) process_.child.kill('SIGKILL');
		await process_.exited;
	}
});

beforeAll(() => {
	if (!existsSync(cli)) throw new Error(`${cli} is missing: run "npm run build" first`);
});

async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

const lineMatching = (lines: string[], pattern: RegExp) => lines.find((line) => pattern.test(line));

async function startSandbox(): Promise<{ root: string; sandbox: Running }> {
	const sandbox = run([cli, '--port', '0', '--admin-key', KEY, '--rate-limit', '0', '--retry-schedule', '0.2,0.5']);
	const ready = await waitFor('the sandbox to start', () => lineMatching(sandbox.out, /^Sandbox ready: /), BOUND_MS);
	return { root: ready.replace(/^Sandbox ready: /, '').replace(/\/api$/, ''), sandbox };
}

async function startListen(root: string, forwardTo: string, ...flags: string[]) {
	const listen = run([
		cli,
		'listen',
		'--forward-to',
		forwardTo,
		'--sandbox',
		root,
		'--key',
		KEY,
		'--poll-interval',
		'100',
		...flags,
	]);
	const secretLine = await waitFor(
		'listen to print the secret',
		() => lineMatching(listen.out, /^MBB_HOOK_SECRET=/) ?? (listen.child.exitCode !== null ? 'exited' : undefined),
		BOUND_MS,
	);
	if (secretLine === 'exited') throw new Error(`listen exited: ${listen.err.join('\n')}`);
	return { listen, secret: secretLine.slice('MBB_HOOK_SECRET='.length) };
}

async function call<T>(url: string, body: Record<string, unknown>, key = KEY): Promise<{ status: number; body: T }> {
	const response = await fetch(url, {
		method: 'POST',
		headers: { authorization: key, 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	return { status: response.status, body: (await response.json()) as T };
}

async function listenHooks(root: string, forwardTo: string) {
	const { body } = await call<{ items: { id: string; url: string; name: string }[] }>(`${root}/api/hook/list`, {});
	return body.items.filter((hook) => hook.url === forwardTo);
}

describe('sandbox listen', () => {
	test('forwards the events to the receiver quick start with the printed secret, stable across runs; stopping removes the hook', async () => {
		const { root } = await startSandbox();
		const port = await freePort();
		const forwardTo = `http://127.0.0.1:${port}/hooks`;
		const { listen, secret } = await startListen(root, forwardTo);
		expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
		const [hook] = await listenHooks(root, forwardTo);
		expect(hook.name).toBe(`listen ${forwardTo}`);

		const receiver = run([receiverApp], { MBB_HOOK_SECRET: secret, HOST: '127.0.0.1', PORT: String(port) });
		await waitFor('the receiver to listen', () => lineMatching(receiver.out, /"listening"/), BOUND_MS);

		const created = await call(`${root}/api/subscriber/create`, { botid: 'bot_tg', clientid: 'listen-1', name: 'Ada' });
		expect(created.status).toBe(200);
		const paid = await call(`${root}/sandbox/payments`, {
			botid: 'bot_tg',
			clientid: 'listen-1',
			messenger: 'telegram',
			amount: 12.5,
			currency: 'eur',
		});
		expect(paid.status).toBe(200);

		const events = await waitFor(
			'the receiver to log two events',
			() => {
				const logged = receiver.out
					.map((line) => JSON.parse(line) as Record<string, unknown>)
					.filter((line) => line.type);
				return logged.length >= 2 ? logged : undefined;
			},
			BOUND_MS,
		);
		const { body: history } = await call<{ items: { event: { id: string; type: string } }[] }>(
			`${root}/api/hook/deliveries`,
			{ hook: hook.id },
		);
		const sent = history.items.map((delivery) => delivery.event).reverse();
		expect(sent.map((event) => event.type)).toEqual(['subscriber.new', 'payment.success']);
		expect(events).toEqual([
			expect.objectContaining({ type: 'subscriber.new', id: sent[0].id, subscriber: 'listen-1' }),
			expect.objectContaining({ type: 'payment.success', id: sent[1].id, amount: 12.5, currency: 'EUR' }),
		]);
		expect(receiver.out.filter((line) => line.includes('refused'))).toEqual([]);

		const lines = await waitFor(
			'listen to print a line per delivery',
			() => {
				const found = sent.map((event) => lineMatching(listen.out, new RegExp(`  ${event.id}  `)));
				return found.every(Boolean) ? (found as string[]) : undefined;
			},
			BOUND_MS,
		);
		expect(lines[0]).toMatch(
			new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z  ${sent[0].id}  subscriber\\.new  200  attempt 1$`),
		);
		expect(lines[1]).toMatch(new RegExp(`^\\S+Z  ${sent[1].id}  payment\\.success  200  attempt 1$`));
		expect(listen.out.filter((line) => / attempt \d+$/.test(line))).toHaveLength(2);

		expect(await stop(listen, 'SIGINT')).toBe(0);
		expect(await listenHooks(root, forwardTo)).toEqual([]);

		const again = await startListen(root, forwardTo, '--events', 'payment.success');
		expect(again.secret).toBe(secret);
		expect(await listenHooks(root, forwardTo)).toHaveLength(1);
		expect(await stop(again.listen)).toBe(0);
		expect(await listenHooks(root, forwardTo)).toEqual([]);
		expect(await stop(receiver)).toBe(0);
	});

	test('--keep leaves the hook; the next run reuses it with the same secret', async () => {
		const { root } = await startSandbox();
		const forwardTo = `http://127.0.0.1:${await freePort()}/hooks`;
		const first = await startListen(root, forwardTo, '--keep');
		const [kept] = await listenHooks(root, forwardTo);
		expect(await stop(first.listen)).toBe(0);
		expect(await listenHooks(root, forwardTo)).toEqual([kept]);

		const second = await startListen(root, forwardTo);
		expect(second.secret).toBe(first.secret);
		expect(second.listen.err.join('\n')).toContain(`hook ${kept.id}, reused`);
		expect(await stop(second.listen)).toBe(0);
		expect(await listenHooks(root, forwardTo)).toEqual([]);
	});

	test('errors name what is wrong: URL not http(s), sandbox not reachable, key refused', async () => {
		const notHttp = run([cli, 'listen', '--forward-to', 'ftp://127.0.0.1/hooks', '--key', KEY]);
		expect(await notHttp.exited).toBe(2);
		expect(notHttp.err[0]).toBe(
			'sandbox listen: --forward-to must be an http or https URL, got "ftp://127.0.0.1/hooks" (ftp)',
		);

		const closed = `http://127.0.0.1:${await freePort()}`;
		const unreachable = run([
			cli,
			'listen',
			'--forward-to',
			'http://127.0.0.1:9/hooks',
			'--sandbox',
			closed,
			'--key',
			KEY,
		]);
		expect(await unreachable.exited).toBe(1);
		expect(unreachable.err.join('\n')).toContain(`sandbox not reachable at ${closed} (ECONNREFUSED)`);

		const { root } = await startSandbox();
		const refused = run([
			cli,
			'listen',
			'--forward-to',
			'http://127.0.0.1:9/hooks',
			'--sandbox',
			root,
			'--key',
			'wrong',
		]);
		expect(await refused.exited).toBe(1);
		expect(refused.err.join('\n')).toContain(`key refused by the sandbox at ${root}`);
	});
});
