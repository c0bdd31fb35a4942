import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withInstallLock } from '../../scripts/lib/installLock.cjs';

/** The lock that keeps two processes from installing n8n (or n8n's tools) into one cache folder at once. */
describe('withInstallLock', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'mbb-install-lock-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it("lets one of two processes install at a time; the second finds the first one's install done", async () => {
		const journal = path.join(dir, 'journal');
		const cache = path.join(dir, 'cache');
		// Each process installs unless the cache holds a finished install, as installN8n does.
		const script = `
			const { appendFileSync, existsSync, mkdirSync, writeFileSync } = require('node:fs');
			const { withInstallLock } = require(${JSON.stringify(path.join(__dirname, '../../scripts/lib/installLock.cjs'))});
			withInstallLock(${JSON.stringify(cache)}, 'test', () => {
				if (existsSync(${JSON.stringify(path.join(cache, 'done'))})) return appendFileSync(${JSON.stringify(journal)}, 'found ' + process.argv[1] + '\\n');
				appendFileSync(${JSON.stringify(journal)}, 'start ' + process.argv[1] + '\\n');
				Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
				mkdirSync(${JSON.stringify(cache)}, { recursive: true });
				writeFileSync(${JSON.stringify(path.join(cache, 'done'))}, '');
				appendFileSync(${JSON.stringify(journal)}, 'end ' + process.argv[1] + '\\n');
			});`;
		const run = (name: string) =>
			new Promise<number | null>((resolve) =>
				spawn(process.execPath, ['-e', script, name], { stdio: 'ignore' }).once('exit', resolve),
			);
		expect(await Promise.all([run('a'), run('b')])).toEqual([0, 0]);
		const lines = readFileSync(journal, 'utf8').trim().split('\n');
		const first = lines[0].split(' ')[1];
		const second = first === 'a' ? 'b' : 'a';
		expect(lines).toEqual([`start ${first}`, `end ${first}`, `found ${second}`]);
		expect(existsSync(`${cache}.lock`)).toBe(false);
	});

	it('waits for an owner that has made the lock but not written its pid yet (an empty pid file), and takes the lock once it is released', async () => {
		const journal = path.join(dir, 'journal');
		const cache = path.join(dir, 'cache');
		// The moment between the owner's creating its pid file and writing into it.
		mkdirSync(`${cache}.lock`);
		writeFileSync(path.join(`${cache}.lock`, 'pid'), '');
		const script = `
			const { appendFileSync } = require('node:fs');
			const { withInstallLock } = require(${JSON.stringify(path.join(__dirname, '../../scripts/lib/installLock.cjs'))});
			withInstallLock(${JSON.stringify(cache)}, 'test', () => appendFileSync(${JSON.stringify(journal)}, 'installed\\n'));`;
		const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
		const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		try {
			await new Promise<void>((resolve, reject) => {
				const check = () => {
					if (output.includes(`test: waiting for another process (starting) that is installing into ${cache}`))
						resolve();
					else if (child.exitCode !== null) reject(new Error(`the waiter did not wait: ${output}`));
				};
				child.stdout.on('data', check);
				child.once('exit', check);
				check();
			});
			writeFileSync(journal, 'released\n');
			rmSync(`${cache}.lock`, { recursive: true, force: true });
			expect(await exited).toBe(0);
		} finally {
			if (child.exitCode === null) child.kill();
		}
		expect(readFileSync(journal, 'utf8')).toBe('released\ninstalled\n');
		expect(existsSync(`${cache}.lock`)).toBe(false);
	});

	it('takes over a lock left by a process that is gone, and releases it when the install throws', () => {
		const cache = path.join(dir, 'cache');
		mkdirSync(`${cache}.lock`);
		writeFileSync(path.join(`${cache}.lock`, 'pid'), '2147483646'); // no such process
		expect(withInstallLock(cache, 'test', () => 'installed')).toBe('installed');
		expect(() =>
			withInstallLock(cache, 'test', () => {
				throw new Error('npm ci failed');
			}),
		).toThrow('npm ci failed');
		expect(existsSync(`${cache}.lock`)).toBe(false);
	});
});
