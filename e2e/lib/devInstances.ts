/**
 * The `npm run dev` processes running in this clone, each recorded in e2e/out/dev-running/<pid>.json while it runs
 * (the e2e's own instances elsewhere: see {@link devRegistryDir}).
 * A second `dev` with the same data folder must not start (two n8n on one database, two sandboxes on one data file);
 * one with a data folder of its own may run beside it, but must not rebuild dist/ (the first one's n8n loads it) nor
 * watch the sources (the first one rebuilds on changes).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { outDir, repoRoot } from './paths.ts';
import { isAlive } from '../../scripts/lib/installLock.cjs';

export interface DevInstance {
	pid: number;
	/** The data folder (absolute). */
	dir: string;
	n8nPort: number;
	sandboxPort: number;
}

/**
 * Where the instances record themselves. `MBB_DEV_INSTANCES_DIR` gives a group of instances a registry of its own:
 * the e2e's dev test uses it, so a developer's own `npm run dev` in the clone neither counts for the test's instances
 * nor sees them, and `npm run test:all` runs beside it.
 */
export const devRegistryDir = (): string =>
	path.resolve(process.env.MBB_DEV_INSTANCES_DIR || path.join(outDir, 'dev-running'));

/** The live instances of this clone (records of processes that died without cleaning up are removed). */
export function runningDevInstances(): DevInstance[] {
	const registry = devRegistryDir();
	if (!existsSync(registry)) return [];
	const live: DevInstance[] = [];
	for (const file of readdirSync(registry).filter((name) => name.endsWith('.json'))) {
		const record = path.join(registry, file);
		let instance: DevInstance;
		try {
			instance = JSON.parse(readFileSync(record, 'utf8')) as DevInstance;
		} catch {
			continue; // being written by a starting instance
		}
		if (instance.pid !== process.pid && isAlive(instance.pid)) live.push(instance);
		else if (instance.pid !== process.pid) rmSync(record, { force: true });
	}
	return live;
}

/** Records this process as running with `instance`'s data folder and ports; the record goes when the process exits. */
export function registerDevInstance(instance: Omit<DevInstance, 'pid'>): void {
	const registry = devRegistryDir();
	mkdirSync(registry, { recursive: true });
	const record = path.join(registry, `${process.pid}.json`);
	writeFileSync(record, `${JSON.stringify({ pid: process.pid, ...instance })}\n`);
	process.on('exit', () => rmSync(record, { force: true }));
}

/** The one line that refuses a second `dev` on a data folder in use, with the command that runs another beside it. */
export function alreadyRunningMessage(running: DevInstance): string {
	const dir = path.relative(repoRoot, running.dir) || '.';
	const next = path.relative(repoRoot, path.join(path.dirname(running.dir), `${path.basename(running.dir)}-2`));
	return (
		`npm run dev is already running in this clone (pid ${running.pid}, data folder ${dir}, editor http://127.0.0.1:${running.n8nPort}); ` +
		`to run another beside it, give it a data folder and ports of its own: ` +
		`N8N_PORT=${running.n8nPort + 1} SANDBOX_PORT=${running.sandboxPort + 1} npm run dev -- --dir ${next}`
	);
}
