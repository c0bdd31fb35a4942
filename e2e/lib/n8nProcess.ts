/**
 * One n8n process (`n8n start`, `n8n worker` or `n8n webhook`) from the pinned install, with its own ports,
 * its output kept for failure reports, and a clean shutdown of its whole process group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { defaultN8nHost, n8nBinOf, type N8nHost } from './paths.ts';
import { LogTail } from './logTail.ts';
import { waitFor } from './waitFor.ts';

/** Variables of the parent that n8n and its task runner need; everything else n8n-related is set explicitly. */
const inheritedVariables = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'SSL_CERT_FILE'];

export interface N8nProcessOptions {
	/** Shown in errors and log files: "main", "worker", "webhook-1". */
	name: string;
	command: 'start' | 'worker' | 'webhook';
	env: Record<string, string>;
	logFile: string;
	/** The URL whose `/healthz/readiness` answers 200 once the process is ready. */
	healthUrl: string;
	readyTimeoutMs?: number;
	/** Which n8n install and Node (default: the e2e's n8n 2.x under this Node). */
	host?: N8nHost;
}

export class N8nProcess {
	readonly name: string;
	readonly log: LogTail;
	/** How it was started: `N8nProcess.start(process.options)` starts it again alike (same ports, same log file). */
	readonly options: N8nProcessOptions;
	private readonly child: ChildProcess;
	private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

	private constructor(options: N8nProcessOptions, child: ChildProcess, logFile: string) {
		this.name = options.name;
		this.options = options;
		this.child = child;
		this.log = new LogTail(logFile);
		this.log.attach(child.stdout!);
		this.log.attach(child.stderr!);
		child.on('exit', (code, signal) => (this.exit = { code, signal }));
	}

	static async start(options: N8nProcessOptions): Promise<N8nProcess> {
		const env: Record<string, string> = {};
		for (const name of inheritedVariables) if (process.env[name]) env[name] = process.env[name]!;
		const host = options.host ?? defaultN8nHost;
		const child = spawn(host.nodeBinary, [n8nBinOf(host.dir), options.command], {
			env: { ...env, ...options.env },
			stdio: ['ignore', 'pipe', 'pipe'],
			// Its own process group: stop() ends n8n together with the task runner it spawned.
			detached: true,
		});
		const instance = new N8nProcess(options, child, options.logFile);
		try {
			await instance.waitUntilReady(options.healthUrl, options.readyTimeoutMs ?? 90_000);
		} catch (error) {
			await instance.stop();
			throw new Error(`${instance.describe()} did not become ready: ${error.message}\n${instance.tailReport()}`);
		}
		return instance;
	}

	get running(): boolean {
		return this.exit === undefined;
	}

	describe(): string {
		return `n8n ${this.name} (pid ${this.child.pid})`;
	}

	/** The last lines of output, framed for a failure message. */
	tailReport(lines = 60): string {
		return `--- last lines of ${this.describe()}, full log: ${this.log.logFile} ---\n${this.log.tail(lines)}\n--- end of ${this.name} log ---`;
	}

	/**
	 * SIGKILL to the whole process group (n8n and its task runner), as a crash or an OOM kill would end it: no shutdown
	 * handler runs. Resolves once the process has exited.
	 */
	async kill(): Promise<void> {
		if (this.running && this.child.pid) {
			const exited = once(this.child, 'exit');
			this.signalGroup('SIGKILL');
			await exited;
		}
		this.log.close();
	}

	/** SIGTERM to the process group, SIGKILL if it has not exited after `graceMs`. */
	async stop(graceMs = 15_000): Promise<void> {
		if (this.running && this.child.pid) {
			const exited = once(this.child, 'exit');
			this.signalGroup('SIGTERM');
			const timer = setTimeout(() => this.signalGroup('SIGKILL'), graceMs);
			await exited;
			clearTimeout(timer);
		}
		// The task runner may outlive its parent for a moment; make sure nothing of this group is left.
		this.signalGroup('SIGKILL');
		this.log.close();
	}

	private signalGroup(signal: NodeJS.Signals): void {
		try {
			process.kill(-this.child.pid!, signal);
		} catch {
			// the group is gone already
		}
	}

	private async waitUntilReady(healthUrl: string, timeoutMs: number): Promise<void> {
		await waitFor(
			async () => {
				if (this.exit) throw new ExitedEarly(this.exit.code, this.exit.signal);
				const response = await fetch(`${healthUrl}/healthz/readiness`);
				return response.ok ? true : undefined;
			},
			{
				what: `${healthUrl}/healthz/readiness`,
				timeoutMs,
				intervalMs: 300,
				stopOn: (error) => error instanceof ExitedEarly,
			},
		);
	}
}

class ExitedEarly extends Error {
	constructor(code: number | null, signal: NodeJS.Signals | null) {
		super(`the process exited early (code ${code}, signal ${signal})`);
	}
}
