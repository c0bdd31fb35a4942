// A receiver or worker of the chaos run ends when the run does, however the run ended. The reaper kills every process
// the run listed with it; this covers the rest (a worker seen to outlive a run killed with SIGKILL just after it was
// started, in receiver/test/chaos.test.ts). The run passes its pid (CHAOS_RUN_PID): a process whose parent is already
// gone when this module loads would read the new parent as its own. After the run dies the kernel gives its children
// a new parent, which `process.ppid` reads afresh on each call.
const run = Number(process.env.CHAOS_RUN_PID) || process.ppid;
const exitWhenOrphaned = () => {
	if (process.ppid !== run) process.exit(1);
};
exitWhenOrphaned();
setInterval(exitWhenOrphaned, 250).unref();
