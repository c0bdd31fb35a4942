// The chaos run's reaper: stops what the run started when the run itself can no longer do it (SIGKILL, a crash
// of the runtime). The run starts it first, in a process group of its own (a signal to the run's group does not
// reach it), and tells it on stdin what to stop:
//
//   pid <n>      a process the run started (receiver, worker, redis-server)
//   exited <n>   that process has exited (its pid may be reused: the reaper forgets it)
//   dir <path>   a temporary directory the run made
//   removed <path>
//
// When stdin ends (the run exited, however it exited: the kernel closes the pipe), every process still listed gets
// SIGKILL, every directory still listed is removed, and the reaper exits. After a clean end the run has stopped and
// removed everything itself and the lists are empty.
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';

const pids = new Set();
const dirs = new Set();

// A Ctrl+C in the terminal reaches the whole foreground group; the reaper stays until the run has gone.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => undefined);

createInterface({ input: process.stdin })
	.on('line', (line) => {
		const space = line.indexOf(' ');
		const [verb, argument] = [line.slice(0, space), line.slice(space + 1)];
		if (verb === 'pid') pids.add(Number(argument));
		else if (verb === 'exited') pids.delete(Number(argument));
		else if (verb === 'dir') dirs.add(argument);
		else if (verb === 'removed') dirs.delete(argument);
	})
	.on('close', async () => {
		const alive = (pid) => {
			try {
				process.kill(pid, 0);
				return true;
			} catch {
				return false;
			}
		};
		// One kill at a time, each allowed to fail: a process that exits by itself between the check and the kill (ESRCH)
		// must not end the reaper before it reached the others (a worker outlived a killed run that way).
		for (const pid of pids) {
			try {
				process.kill(pid, 'SIGKILL');
			} catch {
				// gone already
			}
		}
		// A redis-server writes into its directory until it is gone: remove the directories after the processes.
		for (let i = 0; i < 100 && [...pids].some(alive); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
		for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
		process.exit(0);
	});
