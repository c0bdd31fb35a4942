/**
 * A jest reporter that keeps a left-open handle from hanging the run, in place of jest's `forceExit` (which prints
 * "Force exiting Jest" on every run, leak or not). When the run is over and something a test started still keeps the
 * process alive (a server, a socket, a Redis client that reconnects), it says so in one line and exits with the run's
 * result after a grace period; a run without leaks ends on its own before that, silently. Its timer is unref'd, so it
 * keeps nothing alive itself. Off with --detectOpenHandles (jest then names the handles) and in watch mode.
 */
const GRACE_MS = Number(process.env.JEST_EXIT_GUARD_MS) || 30_000;

class ExitGuardReporter {
	constructor(globalConfig) {
		this.globalConfig = globalConfig;
	}

	onRunComplete(_contexts, results) {
		const { detectOpenHandles, watch, watchAll } = this.globalConfig;
		if (detectOpenHandles || watch || watchAll) return;
		setTimeout(() => {
			process.stderr.write(
				`jest: something a test started was still open ${GRACE_MS / 1000} s after the last test, so the run ends here; ` +
					'`npm run jest -- --detectOpenHandles <test files>` names it\n',
			);
			process.exit(results.success ? 0 : 1);
		}, GRACE_MS).unref();
	}
}

module.exports = ExitGuardReporter;
