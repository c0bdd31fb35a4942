/*
 * A long step of the first run (Node 24's download, n8n's install, the sqlite3 compile, Chromium, Deno and Bun, n8n's
 * checking tools) says what it is doing: one line when it starts (what, and how long it usually takes), a line with
 * the time so far at least every 30 s while it runs (HEARTBEAT_MS; the steps are synchronous, so a small
 * child process prints them and stops with the step or when this process is gone), and the total when it ends.
 * Lines go to stderr: stdout stays for what a caller asked for (`node24.cjs --bin-dir`).
 * Plain CommonJS without newer syntax: scripts/node24.cjs uses it on Node 18.
 *
 *   node scripts/lib/longStep.cjs [--quiet] <prefix> <what> <usually> -- <command> [args...]   (from shell scripts)
 *   --quiet: no start line, and no end line when the step ended before its first progress line (the build: quick
 *   when warm, minutes of silent tsc on a busy machine)
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');

/** Between two progress lines (`MBB_HEARTBEAT_MS` overrides it, for the tests); well under the promised 30 s. */
const HEARTBEAT_MS = Number(process.env.MBB_HEARTBEAT_MS) || 20000;

/** `42 s`, `3 min 5 s`, `1 h 2 min`. */
function formatDuration(ms) {
	const seconds = Math.max(0, Math.round(ms / 1000));
	if (seconds < 60) return seconds + ' s';
	const minutes = Math.floor(seconds / 60);
	if (minutes < 60) return minutes + ' min' + (seconds % 60 ? ' ' + (seconds % 60) + ' s' : '');
	return Math.floor(minutes / 60) + ' h' + (minutes % 60 ? ' ' + (minutes % 60) + ' min' : '');
}

/** The progress line, printed by the heartbeat process (it gets this function's source, so there is one wording). */
function progressLine(prefix, what, elapsedMs) {
	return prefix + ': … still ' + what + ' (' + formatDuration(elapsedMs) + ' so far)\n';
}

/** `<prefix>: <what> (usually <usually>)…`: the line a step starts with. */
function startLine(prefix, what, usually) {
	return prefix + ': ' + what + ' (usually ' + usually + ')…\n';
}

/** `<prefix>: <what>: done in <total>`, or `failed after <total>` (`failed (<how>) after`, where a cause is known). */
function endLine(prefix, what, ok, elapsedMs, failure) {
	const verdict = ok ? 'done in ' : 'failed ' + (failure ? '(' + failure + ') ' : '') + 'after ';
	return prefix + ': ' + what + ': ' + verdict + formatDuration(elapsedMs) + '\n';
}

function startHeartbeat(prefix, what, started) {
	const source =
		formatDuration.toString() +
		'\n' +
		progressLine.toString() +
		'\n' +
		'const [prefix, what, started, parent, every] = process.argv.slice(1);\n' +
		'setInterval(() => {\n' +
		'  try { process.kill(Number(parent), 0); } catch (error) { if (error.code !== "EPERM") process.exit(0); }\n' +
		'  process.stderr.write(progressLine(prefix, what, Date.now() - Number(started)));\n' +
		'}, Number(every));\n';
	const child = spawn(
		process.execPath,
		['-e', source, prefix, what, String(started), String(process.pid), String(HEARTBEAT_MS)],
		{
			stdio: ['ignore', 'ignore', 'inherit'],
		},
	);
	child.on('error', function () {}); // no heartbeat is no reason to fail the step
	child.unref();
	return child;
}

/**
 * Runs `run` (synchronous) as a long step: `<prefix>: <what> (usually <usually>)…` first, progress lines while it runs,
 * `<prefix>: <what>: done in <total>` at the end, or `failed after <total>` when `run` throws or returns a
 * `spawnSync` result that did not exit with 0. Returns what `run` returns.
 */
function longStep(prefix, what, usually, run, options) {
	const quiet = Boolean(options && options.quiet);
	const started = Date.now();
	if (!quiet) process.stderr.write(startLine(prefix, what, usually));
	const heartbeat = startHeartbeat(prefix, what, started);
	let ok = false;
	try {
		const result = run();
		ok = !(result && typeof result === 'object' && 'status' in result && result.status !== 0);
		return result;
	} finally {
		heartbeat.kill();
		const elapsed = Date.now() - started;
		// Quiet steps (the build) stay silent when they are quick; one that printed progress lines also prints its end.
		if (!quiet || !ok || elapsed >= HEARTBEAT_MS) process.stderr.write(endLine(prefix, what, ok, elapsed));
	}
}

module.exports = { longStep, formatDuration, progressLine, startLine, endLine, HEARTBEAT_MS };

if (require.main === module) {
	const args = process.argv.slice(2);
	const quiet = args[0] === '--quiet';
	if (quiet) args.shift();
	const dashes = args.indexOf('--');
	if (dashes !== 3 || args.length < 5) {
		process.stderr.write(
			'usage: node scripts/lib/longStep.cjs [--quiet] <prefix> <what> <usually> -- <command> [args...]\n',
		);
		process.exit(2);
	}
	// A quiet step inside another step (the nodes' tsc inside the whole build) leaves the progress lines to the outer
	// one: two clocks would print two lines at once, and the outer one already bounds the silence.
	const nested = quiet && process.env.MBB_LONG_STEP_ACTIVE === '1';
	const runCommand = function () {
		const result = spawnSync(args[4], args.slice(5), {
			stdio: 'inherit',
			env: Object.assign({}, process.env, { MBB_LONG_STEP_ACTIVE: '1' }),
		});
		if (result.error) throw result.error;
		if (result.status !== 0)
			throw Object.assign(
				new Error(args[4] + ' exited with ' + (result.status === null ? result.signal : result.status)),
				{ status: result.status },
			);
	};
	try {
		if (nested) runCommand();
		else longStep(args[0], args[1], args[2], runCommand, { quiet: quiet });
	} catch (error) {
		if (!error.status) process.stderr.write(args[0] + ': ' + error.message + '\n');
		process.exitCode = error.status || 1;
	}
}
