import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { formatDuration, HEARTBEAT_MS } from './longStep.cjs';

const POLL_MS = 1000;
/** How long an install may hold the lock before a waiter gives up (n8n takes about 5 minutes, 15 on a busy machine). */
const WAIT_LIMIT_MS = 45 * 60_000;
/** A lock folder without its owner's pid yet is given this long before it counts as abandoned. */
const UNCLAIMED_GRACE_MS = 10_000;

/** Whether a process with this pid is running (one of another user counts: signalling it is refused, not unknown). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** What a look at the lock folder saw: which folder it is, and the pid its owner had written (empty: not yet). */
interface LockSeen {
  /** Its inode and birth time (an inode number alone is soon reused) and the pid: see {@link removeAbandoned}. */
  identity: string;
  written: string;
  mtimeMs: number;
}

function look(lock: string): LockSeen | undefined {
  try {
    const { ino, birthtimeMs, mtimeMs } = statSync(lock);
    let written = '';
    try {
      written = readFileSync(path.join(lock, 'pid'), 'utf8');
    } catch {
      // no pid file yet
    }
    return { identity: `${ino}:${birthtimeMs}:${written}`, written, mtimeMs };
  } catch {
    return undefined; // released meanwhile
  }
}

/** The lock's owner, alive; false when the lock was left behind by a process that is gone. */
function ownerOf({ written, mtimeMs }: LockSeen): number | 'unclaimed' | false {
  // The owner creates the folder, then its pid file, then writes into it: a missing or empty file is an owner that
  // has not written its pid yet, not an abandoned lock.
  if (written === '') return Date.now() - mtimeMs < UNCLAIMED_GRACE_MS ? 'unclaimed' : false;
  const pid = Number(written);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : false;
}

/**
 * Removes the abandoned lock folder `judged` (its {@link LockSeen.identity}). Another waiter may have removed it and taken
 * the lock anew since it was judged; so the folder is first moved aside, and put back when it is not the one judged.
 */
function removeAbandoned(lock: string, judged: string): void {
  const aside = `${lock}.abandoned-${process.pid}-${Date.now()}`;
  try {
    renameSync(lock, aside);
  } catch {
    return; // gone meanwhile
  }
  if (look(aside)?.identity === judged) {
    rmSync(aside, { recursive: true, force: true });
    return;
  }
  try {
    renameSync(aside, lock);
  } catch {
    rmSync(aside, { recursive: true, force: true }); // a third process holds the lock now; this one's owner lost it
  }
}

/**
 * Runs `install` while holding a lock on `dir` (a folder `<dir>.lock` beside it), so that two processes on one machine
 * (two clones' CI, `npm run dev` and a test run) never install into the same cache folder at once: the second waits
 * for the first, then finds the install done. A lock whose process is gone is taken over.
 */
export function withInstallLock<T>(dir: string, what: string, install: () => T): T {
  const lock = `${dir}.lock`;
  mkdirSync(path.dirname(lock), { recursive: true });
  const waitStarted = Date.now();
  const deadline = waitStarted + WAIT_LIMIT_MS;
  let toldAt = 0;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const seen = look(lock);
    if (seen === undefined) continue; // released meanwhile
    const owner = ownerOf(seen);
    if (owner === false) {
      removeAbandoned(lock, seen.identity);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${what}: another process (${owner}) has been installing into ${dir} for ${WAIT_LIMIT_MS / 60_000} minutes; remove ${lock} if it is stuck`);
    // One line when the wait begins, then one at least every 30 s: the other install may take many minutes.
    const waiter = owner === 'unclaimed' ? 'starting' : `pid ${owner}`;
    if (!toldAt) console.log(`${what}: waiting for another process (${waiter}) that is installing into ${dir}`);
    else if (Date.now() - toldAt >= HEARTBEAT_MS) console.log(`${what}: … still waiting for another process (${waiter}) that is installing into ${dir} (${formatDuration(Date.now() - waitStarted)} so far)`);
    if (!toldAt || Date.now() - toldAt >= HEARTBEAT_MS) toldAt = Date.now();
    sleepSync(POLL_MS);
  }
  let mine: string | undefined;
  try {
    writeFileSync(path.join(lock, 'pid'), String(process.pid));
    mine = look(lock)?.identity;
    return install();
  } finally {
    // Only the folder this process made: one that replaced it is another process's lock.
    if (mine === undefined || look(lock)?.identity === mine) rmSync(lock, { recursive: true, force: true });
  }
}
