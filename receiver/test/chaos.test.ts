import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildReceiver, eventually } from './helpers';

const SCRIPT = join(__dirname, '../../chaos/receiver/run.mjs');

/**
 * The short form of `npm run chaos:receiver` (CI): 500 events per run, paced over 10 s so that the SIGKILLs fall
 * among them, both runs (Redis without persistence; Redis with AOF killed and restarted). About 25 s.
 *
 * `doubled` counts effects applied twice (a counter inside the guarded Lua script: must be 0); `reruns` counts runs
 * that reached the effect step again (a counter before that script, outside the guard). Reruns are expected, but
 * only from kills: each worker SIGKILL can leave at most `concurrency` jobs that reached the effect without being
 * marked completed, and the Redis crash of the aof run at most `concurrency` per worker; receiver kills cause none
 * (the job id deduplicates redeliveries). Each run's line states that bound, and its reruns must stay within it.
 */
it('chaos, short form: every accepted event has its effect exactly once', async () => {
	buildReceiver();
	const output = await new Promise<string>((resolve, reject) =>
		// No time limit of its own: the run ends by itself, with a verdict or the line "failed: <cause>" (nothing
		// changed for a minute while settling, or its 10-minute limit); a busy machine only makes it slower.
		execFile(process.execPath, [SCRIPT, '--events', '500', '--per-second', '50'], (error, stdout, stderr) =>
			error && !stdout.includes('lost:')
				? reject(new Error(`${error.message}\n${stdout}\n${stderr}`))
				: resolve(stdout),
		),
	);
	const lines = output.trim().split('\n');
	const results = lines.filter((line) => /^run (plain|aof): lost: /.test(line));
	expect(results).toHaveLength(2);
	for (const line of results) {
		const [, reruns, bound] = /reruns: (\d+) \(bound (\d+) /.exec(line) ?? [];
		expect(reruns).toBeDefined();
		expect(Number(reruns)).toBeLessThanOrEqual(Number(bound));
	}
	expect(lines.at(-1)).toMatch(/^lost: 0, doubled: 0, reruns: \d+$/);
}, 1_300_000);

/** The processes below `pid` (children, grandchildren, …) with their start times, read from /proc (Linux). */
function descendants(pid: number): Map<number, string> {
	const parents = new Map<number, number[]>();
	const started = new Map<number, string>();
	for (const entry of readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			// The name may hold spaces and parentheses: the fields after the last ")" are fixed.
			const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
			const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
			const parent = Number(fields[1]);
			parents.set(parent, [...(parents.get(parent) ?? []), Number(entry)]);
			started.set(Number(entry), fields[19]);
		} catch {
			// Gone meanwhile.
		}
	}
	const found = new Map<number, string>();
	const visit = (parent: number) => {
		for (const child of parents.get(parent) ?? []) {
			found.set(child, started.get(child)!);
			visit(child);
		}
	};
	visit(pid);
	return found;
}

/** Whether the process `pid` that started at `startTime` still runs (a zombie or a new process on that pid does not). */
function stillRuns(pid: number, startTime: string): boolean {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return fields[0] !== 'Z' && fields[19] === startTime;
	} catch {
		return false;
	}
}

const commandOf = (pid: number) => {
	try {
		return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
	} catch {
		return '';
	}
};

/**
 * The run killed mid-run, by SIGTERM (it stops everything itself and says why on its last line) and by SIGKILL (it
 * cannot: its reaper, a process of its own group, does): afterwards no process it started runs (its receivers,
 * workers, redis-server, the reaper) and its temporary directories are gone. Both in parallel, each with a TMPDIR of
 * its own (so that its temporary directories are the only ones there).
 */
async function killMidRun(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
	const tmp = mkdtempSync(join(tmpdir(), 'mbb-chaos-kill-'));
	try {
		const harness = spawn(process.execPath, [SCRIPT, '--events', '100000', '--per-second', '20', '--runs', 'aof'], {
			env: { ...process.env, TMPDIR: tmp },
			stdio: ['ignore', 'pipe', 'pipe'],
		});
		let stdout = '';
		harness.stdout!.on('data', (chunk) => (stdout += chunk));
		harness.stderr!.resume();
		const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
			harness.once('exit', (code, signal) => resolve({ code, signal })),
		);
		// Mid-run: the reaper, redis-server, two receivers and two workers are up, and the events are being sent.
		const started = await eventually(
			() => {
				if (harness.exitCode !== null) throw new Error(`the chaos run ended before it was killed:\n${stdout}`);
				const found = descendants(harness.pid!);
				const commands = [...found.keys()].map(commandOf);
				const ready =
					commands.filter((command) => command.endsWith('reaper.mjs')).length === 1 &&
					commands.filter((command) => command.startsWith('redis-server')).length === 1 &&
					commands.filter((command) => /(receiver|worker)-process\.mjs$/.test(command)).length === 4 &&
					readdirSync(tmp).length === 1;
				return ready && stdout.includes('run aof: 100000 events') ? found : false;
			},
			100_000,
			'the chaos run to start its processes',
		);
		harness.kill(signal);
		const end = await exited;
		if (signal === 'SIGTERM') {
			expect(end.code).toBe(2);
			expect(stdout.trim().split('\n').at(-1)).toBe('failed: stopped by SIGTERM');
		} else {
			expect(end.signal).toBe('SIGKILL');
		}
		const commands = new Map([...started.keys()].map((pid) => [pid, commandOf(pid)]));
		const survivors = () =>
			[...started]
				.filter(([pid, startTime]) => stillRuns(pid, startTime))
				.map(([pid]) => `${pid} ${commands.get(pid)}`);
		await eventually(
			() => survivors().length === 0,
			100_000,
			() => `every process of the run to stop (${signal}; still running: ${survivors().join('; ')})`,
		);
		await eventually(() => readdirSync(tmp).length === 0, 30_000, 'the temporary directories to be removed');
	} finally {
		rmSync(tmp, { recursive: true, force: true });
	}
}

it('the chaos run killed mid-run (SIGTERM, SIGKILL) leaves no process and no temporary directory behind', async () => {
	buildReceiver();
	await Promise.all([killMidRun('SIGTERM'), killMidRun('SIGKILL')]);
}, 240_000);
