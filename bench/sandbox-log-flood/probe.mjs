/**
 * Loaded into the sandbox's process by the benchmark (node --expose-gc --import): on the message `measure` over
 * the IPC channel it collects garbage and answers with process.memoryUsage(), so the benchmark reads what the
 * process retains rather than what its heap happens to hold between collections.
 */
process.on('message', (message) => {
	if (message !== 'measure') return;
	globalThis.gc();
	globalThis.gc();
	process.send(process.memoryUsage());
});
// The channel must not keep the sandbox alive on its own, nor stop it from exiting when killed.
process.channel?.unref();
