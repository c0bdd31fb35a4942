import { DeliveryLog } from './deliveryLog';
import { closeListenHook, openListenHook, type ListenHook } from './listenHook';
import { LISTEN_USAGE, ListenUsageError, parseListenOptions, type ListenOptions } from './options';
import { ListenError, SandboxClient } from './sandboxClient';

/** Where `listen` writes: the secret and delivery lines to `out`, progress and problems to `err`. */
export interface ListenIo {
	out: (line: string) => void;
	err: (line: string) => void;
}

const consoleIo: ListenIo = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Statuses after which the next poll may succeed: too many requests, a transient failure. */
const PASSING = new Set([429, 503]);

/** Reads the history every interval until `stopped` resolves; reports an outage once, not every poll. */
async function follow(log: DeliveryLog, options: ListenOptions, io: ListenIo, stopped: Promise<void>): Promise<void> {
	let halted = false;
	void stopped.then(() => (halted = true));
	let troubled = false;
	while (!halted) {
		try {
			await log.report();
			if (troubled) io.err('listen: the sandbox answers again');
			troubled = false;
		} catch (error) {
			if (!(error instanceof ListenError)) throw error;
			if (error.status !== undefined && !PASSING.has(error.status)) throw error;
			if (!troubled) io.err(`listen: ${error.message}; trying again`);
			troubled = true;
		}
		await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, options.pollIntervalMs))]);
	}
}

function stopSignal(): Promise<void> {
	return new Promise((resolve) => {
		process.once('SIGINT', () => resolve());
		process.once('SIGTERM', () => resolve());
	});
}

function announce(hook: ListenHook, options: ListenOptions, io: ListenIo): void {
	const how = hook.created ? 'made' : 'reused';
	io.err(
		`listen: forwarding ${options.events.join(', ')} from ${options.sandbox} to ${options.forwardTo} (hook ${hook.id}, ${how}); Ctrl+C stops`,
	);
	io.out(`MBB_HOOK_SECRET=${hook.secret}`);
}

/** Removes the hook unless --keep; false when it could not be removed (the message says why). */
async function leave(client: SandboxClient, hook: ListenHook, options: ListenOptions, io: ListenIo): Promise<boolean> {
	if (options.keep) {
		io.err(`listen: stopped; hook ${hook.id} kept (--keep), the next run reuses it`);
		return true;
	}
	try {
		await closeListenHook(client, hook.id);
		io.err(`listen: stopped; hook ${hook.id} removed`);
		return true;
	} catch (error) {
		if (!(error instanceof ListenError)) throw error;
		io.err(`sandbox listen: could not remove hook ${hook.id}: ${error.message}`);
		return false;
	}
}

/** Runs `listen` until `stopped` (SIGINT or SIGTERM) resolves; resolves with the exit code. */
export async function listen(
	options: ListenOptions,
	io: ListenIo = consoleIo,
	stopped = stopSignal(),
): Promise<number> {
	const client = new SandboxClient(options.sandbox, options.key);
	const hook = await openListenHook(client, options.key, options.forwardTo, options.events);
	const log = new DeliveryLog(client, hook.id, io.out);
	let failure: unknown;
	try {
		if (!hook.created) await log.skipExisting();
		announce(hook, options, io);
		await follow(log, options, io, stopped);
		// Attempts made just before the stop still get their line.
		await log.report().catch(() => undefined);
	} catch (error) {
		failure = error;
	}
	const left = await leave(client, hook, options, io);
	if (failure !== undefined) throw failure;
	return left ? 0 : 1;
}

/** The `listen` subcommand of the command line: flags in, exit code out. */
export async function listenCommand(argv: string[], io: ListenIo = consoleIo): Promise<number> {
	let options: ListenOptions | undefined;
	try {
		options = parseListenOptions(argv, process.env);
	} catch (error) {
		io.err(`sandbox listen: ${(error as Error).message}\n\n${LISTEN_USAGE}`);
		return 2;
	}
	if (options === undefined) {
		io.out(LISTEN_USAGE);
		return 0;
	}
	try {
		return await listen(options, io);
	} catch (error) {
		if (!(error instanceof ListenError) && !(error instanceof ListenUsageError)) throw error;
		io.err(`sandbox listen: ${error.message}`);
		return 1;
	}
}
