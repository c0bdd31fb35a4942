import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { restartablePort } from '../../test/support/restartablePort';
import { generateHookSecret, sampleEvent, signDelivery, type SampleEventOptions } from '../src';

export const HOOK_ID = 'hook_test';

export interface SignedDelivery {
	id: string;
	body: string;
	headers: Record<string, string>;
}

/** A sample event of `type`, serialized and signed like the service does (both schemes). */
export async function signedDelivery(
	secret: string,
	type = 'subscriber.new',
	options: SampleEventOptions & { timestamp?: number } = {},
): Promise<SignedDelivery> {
	const event = sampleEvent(type, { hook: HOOK_ID, ...options });
	const body = JSON.stringify(event);
	const signature = await signDelivery({
		body,
		eventId: event.id,
		hookId: event.hook,
		secret,
		timestamp: options.timestamp,
	});
	return { id: event.id, body, headers: { 'content-type': 'application/json', ...signature } };
}

export const jwtOnly = ({ 'x-signature': jwt, 'content-type': type }: Record<string, string>) => ({
	'content-type': type,
	'x-signature': jwt,
});
export const standardWebhooksOnly = ({ 'x-signature': _jwt, ...rest }: Record<string, string>) => rest;

export function newSecret(): string {
	return generateHookSecret();
}

export interface RunningServer {
	url: string;
	server: Server;
	close(): Promise<void>;
}

/** Serves `listener` on 127.0.0.1 on a free port. */
export async function serve(listener: RequestListener): Promise<RunningServer> {
	const server = createServer(listener);
	// fetch keeps connections alive between a test's requests. With the server's 5 s idle timeout, a request sent on a
	// connection the server is just closing fails with "other side closed" when a busy machine delays one of the two
	// timers; idle connections are closed here by close() only.
	server.keepAliveTimeout = 0;
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		server,
		close: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

/** Polls `condition` until it holds (or fails after `timeoutMs`). */
export async function eventually<T>(
	condition: () => T | false | Promise<T | false>,
	timeoutMs = 5000,
	what: string | (() => string) = 'condition',
): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const value = await condition();
		if (value !== false) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}

const PACKAGE_DIR = join(__dirname, '..');

/** The package's sources and the verification core it compiles (which lives beside the n8n trigger). */
const SOURCE_DIRS = [join(PACKAGE_DIR, 'src'), join(PACKAGE_DIR, '../nodes/shared/delivery')];

function newestSourceMs(): number {
	return Math.max(
		...SOURCE_DIRS.flatMap((dir) =>
			readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((file) => statSync(join(dir, file)).mtimeMs),
		),
	);
}

function distIsCurrent(): boolean {
	const built = join(PACKAGE_DIR, 'dist/receiver/src/index.js');
	return existsSync(built) && statSync(built).mtimeMs >= newestSourceMs();
}

/**
 * For cleanup that must not hang the run: waits for `promise`, at most `ms`. A test whose cleanup hangs has failed on
 * its own account already; the rest of its cleanup (a Redis of its own to stop) still runs.
 */
export async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	await Promise.race([
		promise.catch(() => undefined),
		new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))),
	]);
	clearTimeout(timer);
}

/**
 * Builds receiver/dist when a source is newer: the sandbox and the example app load the package from there.
 * Test files run in parallel workers, so one builds while the others wait on a lock directory.
 */
export function buildReceiver(): void {
	const lock = join(tmpdir(), 'mbb-receiver-build.lock');
	const deadline = Date.now() + 60_000;
	for (;;) {
		try {
			mkdirSync(lock);
			break;
		} catch {
			if (Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
			Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
		}
	}
	try {
		if (!distIsCurrent()) {
			execFileSync(process.execPath, [
				require.resolve('typescript/bin/tsc'),
				'-p',
				join(PACKAGE_DIR, 'tsconfig.build.json'),
			]);
			// tsc leaves unchanged outputs alone; mark the build as current.
			const now = new Date();
			utimesSync(join(PACKAGE_DIR, 'dist/receiver/src/index.js'), now, now);
		}
	} finally {
		rmSync(lock, { recursive: true, force: true });
	}
}

export interface ExampleApp {
	child: ChildProcess;
	/** The app's delivery URL (…/hooks). */
	url: string;
	/** The JSON lines it printed: one per emitted event. */
	lines: Record<string, unknown>[];
	/** What it wrote to stderr, line by line. */
	errors: string[];
	/**
	 * The first value `pick` finds in the lines printed so far, or in the next ones as they come: however late a busy
	 * machine lets them arrive (the test's own timeout bounds the wait). Fails at once when the app exits first.
	 */
	waitFor<T>(pick: (lines: Record<string, unknown>[]) => T | undefined, what: string): Promise<T>;
	/** Stops the app; fails when it wrote anything to stderr but the warning of a Redis that keeps nothing. */
	stop(): Promise<void>;
}

/** The receiver's warning about a Redis without persistence: expected from the shared Redis that CI starts. */
const NO_PERSISTENCE_WARNING =
	/^\[receiver\] the Redis used by the deduplication store (keeps nothing across restarts|only takes RDB snapshots)/;

/** Runs examples/express-app.mjs in its own process (build the package first). */
export async function startExampleApp(env: Record<string, string>): Promise<ExampleApp> {
	const child = spawn(process.execPath, [join(__dirname, '../examples/express-app.mjs')], {
		env: { ...process.env, PORT: '0', ...env },
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const lines: Record<string, unknown>[] = [];
	const errors: string[] = [];
	const waiters = new Set<{ check(): void; exited(): void }>();
	createInterface({ input: child.stdout! }).on('line', (line) => {
		lines.push(JSON.parse(line));
		for (const waiter of waiters) waiter.check();
	});
	createInterface({ input: child.stderr! }).on('line', (line) => errors.push(line));
	const exited = new Promise<void>((resolve) =>
		child.once('exit', () => {
			for (const waiter of waiters) waiter.exited();
			resolve();
		}),
	);
	const waitFor = <T>(pick: (lines: Record<string, unknown>[]) => T | undefined, what: string) =>
		new Promise<T>((resolve, reject) => {
			const waiter = {
				check() {
					const value = pick(lines);
					if (value === undefined) return;
					waiters.delete(waiter);
					resolve(value);
				},
				exited() {
					waiters.delete(waiter);
					reject(
						new Error(
							`the example app exited (${child.exitCode ?? child.signalCode}) before ${what}:\n${errors.join('\n')}`,
						),
					);
				},
			};
			waiters.add(waiter);
			waiter.check();
			if (waiters.has(waiter) && (child.exitCode !== null || child.signalCode !== null)) waiter.exited();
		});
	const url = await waitFor(
		(printed) => printed.find((line) => typeof line.listening === 'string')?.listening as string | undefined,
		'it listened',
	);
	return {
		child,
		url,
		lines,
		errors,
		waitFor,
		stop: async () => {
			if (child.exitCode === null) child.kill('SIGTERM');
			await exited;
			const unexpected = errors.filter((line) => !NO_PERSISTENCE_WARNING.test(line));
			if (unexpected.length > 0) throw new Error(`the example app wrote to stderr:\n${unexpected.join('\n')}`);
		},
	};
}

export interface OwnRedis {
	url: string;
	port: number;
	/** SIGSTOP: the server keeps its connections but answers nothing (a stalled Redis). */
	pause(): void;
	resume(): void;
	/** Stops the server (SIGKILL) and waits for it to exit. */
	stop(): Promise<void>;
	/** Starts it again on the same port and directory. */
	start(): Promise<void>;
	/** Stops it and removes its directory. */
	destroy(): Promise<void>;
}

/**
 * A redis-server of the test's own on a random port (never the shared one), which the test may stop and pause; the
 * port lies outside the ephemeral range, so nothing takes it while the server is down.
 */
export async function startOwnRedis(extraArgs: string[] = ['--save', '', '--appendonly', 'no']): Promise<OwnRedis> {
	const port = await restartablePort();
	const dir = mkdtempSync(join(tmpdir(), 'mbb-test-redis-'));
	let child: ChildProcess | undefined;
	const exited = () =>
		new Promise<void>((resolve) =>
			child && child.exitCode === null && child.signalCode === null ? child.once('exit', () => resolve()) : resolve(),
		);
	const own: OwnRedis = {
		url: `redis://127.0.0.1:${port}`,
		port,
		pause: () => child?.kill('SIGSTOP'),
		resume: () => child?.kill('SIGCONT'),
		async stop() {
			const gone = exited();
			child?.kill('SIGCONT');
			child?.kill('SIGKILL');
			await gone;
		},
		async start() {
			child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, ...extraArgs], {
				stdio: 'ignore',
			});
			await eventually(
				() =>
					new Promise<boolean>((resolve) => {
						const socket = connect(port, '127.0.0.1');
						socket.once('data', (data) => (socket.destroy(), resolve(data.toString().startsWith('+PONG'))));
						socket.once('error', () => resolve(false));
						socket.write('PING\r\n');
					}).then((up) => up || false),
				10_000,
				'redis-server to answer',
			);
		},
		async destroy() {
			await own.stop();
			rmSync(dir, { recursive: true, force: true });
		},
	};
	await own.start();
	return own;
}
