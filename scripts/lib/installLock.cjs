/*
 * A lock on a cache folder, so that two processes on one machine (two clones' CI, `npm run dev` and a test run) never
 * install into it at once: the second waits for the first, then finds the install done. A lock whose process is gone
 * is taken over. Plain CommonJS without newer syntax: scripts/node24.cjs uses it on Node 18, before Node 24 exists.
 */
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { formatDuration, HEARTBEAT_MS } = require('./longStep.cjs');

const POLL_MS = 1000;
/** How long an install may hold the lock before a waiter gives up (n8n takes about 5 minutes, 15 on a busy machine). */
const WAIT_LIMIT_MS = 45 * 60000;
/** A lock folder without its owner's pid yet is given this long before it counts as abandoned. */
const UNCLAIMED_GRACE_MS = 10000;

/** Whether a process with this pid is running (one of another user counts: signalling it is refused, not unknown). */
function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (error) {
		return error.code === 'EPERM';
	}
}

function sleepSync(ms) {
	Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * What a look at the lock folder saw: its identity (inode and birth time, since an inode number alone is soon reused,
 * and the pid: see removeAbandoned), the pid its owner had written (empty: not yet), and when it last changed.
 */
function look(lock) {
	let stats;
	try {
		stats = fs.statSync(lock);
	} catch {
		return undefined; // released meanwhile
	}
	let written = '';
	try {
		written = fs.readFileSync(path.join(lock, 'pid'), 'utf8');
	} catch {
		// no pid file yet
	}
	return { identity: stats.ino + ':' + stats.birthtimeMs + ':' + written, written: written, mtimeMs: stats.mtimeMs };
}

/** The lock's owner, alive ('unclaimed' while it has not written its pid yet); false when it was left behind. */
function ownerOf(seen) {
	// The owner creates the folder, then its pid file, then writes into it: a missing or empty file is an owner that
	// has not written its pid yet, not an abandoned lock.
	if (seen.written === '') return Date.now() - seen.mtimeMs < UNCLAIMED_GRACE_MS ? 'unclaimed' : false;
	const pid = Number(seen.written);
	return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : false;
}

/**
 * Removes the abandoned lock folder `judged` (its identity). Another waiter may have removed it and taken the lock
 * anew since it was judged; so the folder is first moved aside, and put back when it is not the one judged.
 */
function removeAbandoned(lock, judged) {
	const aside = lock + '.abandoned-' + process.pid + '-' + Date.now();
	try {
		fs.renameSync(lock, aside);
	} catch {
		return; // gone meanwhile
	}
	const seen = look(aside);
	if (seen && seen.identity === judged) {
		fs.rmSync(aside, { recursive: true, force: true });
		return;
	}
	try {
		fs.renameSync(aside, lock);
	} catch {
		fs.rmSync(aside, { recursive: true, force: true }); // a third process holds the lock now; this one's owner lost it
	}
}

/**
 * Runs `install` while holding a lock on `dir` (a folder `<dir>.lock` beside it). Waiting lines go to `report`
 * (stdout by default): one when the wait begins, then one at least every 30 s.
 */
function withInstallLock(dir, what, install, report) {
	const say =
		report ||
		function (line) {
			process.stdout.write(line + '\n');
		};
	const lock = dir + '.lock';
	fs.mkdirSync(path.dirname(lock), { recursive: true });
	const waitStarted = Date.now();
	const deadline = waitStarted + WAIT_LIMIT_MS;
	let toldAt = 0;
	for (;;) {
		try {
			fs.mkdirSync(lock);
			break;
		} catch (error) {
			if (error.code !== 'EEXIST') throw error;
		}
		const seen = look(lock);
		if (seen === undefined) continue; // released meanwhile
		const owner = ownerOf(seen);
		if (owner === false) {
			removeAbandoned(lock, seen.identity);
			continue;
		}
		if (Date.now() > deadline)
			throw new Error(
				what +
					': another process (' +
					owner +
					') has been installing into ' +
					dir +
					' for ' +
					WAIT_LIMIT_MS / 60000 +
					' minutes; remove ' +
					lock +
					' if it is stuck',
			);
		// The other install may take many minutes.
		const waiter = owner === 'unclaimed' ? 'starting' : 'pid ' + owner;
		if (!toldAt) say(what + ': waiting for another process (' + waiter + ') that is installing into ' + dir);
		else if (Date.now() - toldAt >= HEARTBEAT_MS)
			say(
				what +
					': … still waiting for another process (' +
					waiter +
					') that is installing into ' +
					dir +
					' (' +
					formatDuration(Date.now() - waitStarted) +
					' so far)',
			);
		if (!toldAt || Date.now() - toldAt >= HEARTBEAT_MS) toldAt = Date.now();
		sleepSync(POLL_MS);
	}
	let mine;
	try {
		fs.writeFileSync(path.join(lock, 'pid'), String(process.pid));
		const seen = look(lock);
		mine = seen && seen.identity;
		return install();
	} finally {
		// Only the folder this process made: one that replaced it is another process's lock.
		const now = look(lock);
		if (mine === undefined || (now && now.identity === mine)) fs.rmSync(lock, { recursive: true, force: true });
	}
}

module.exports = { withInstallLock, isAlive };
