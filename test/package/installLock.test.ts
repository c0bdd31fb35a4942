import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withInstallLock } from '../../scripts/lib/installLock';

/** The lock that keeps two processes from installing n8n (or n8n's tools) into one cache folder at once. */
describe('withInstallLock', () => {
	let dir: string;
	beforeEach(() => {
		dir = mkdtempSync(path.join(tmpdir(), 'mbb-install-lock-'));
	});
	afterEach(() => rmSync(dir, { recursive: true, force: true }));

	it('lets one of two processes install at a time; the second finds the first one\'s install done', async () => {
		const journal = path.join(dir, 'journal');
		const cache = path.join(dir, 'cache');
		// Each process installs unless the cache holds a finished install, as installN8n does.
		const script = `
			const { appendFileSync, existsSync, mkdirSync, writeFileSync } = require('node:fs');
			const { withInstallLock } = require(${JSON.stringify(path.join(__dirname, '../../scripts/lib/installLock.ts'))});
			withInstallLock(${JSON.stringify(cache)}, 'test', () => {
				if (existsSync(${JSON.stringify(path.join(cache, 'done'))})) return appendFileSync(${JSON.stringify(journal)}, 'found ' + process.argv[1] + '\\n');
				appendFileSync(${JSON.stringify(journal)}, 'start ' + process.argv[1] + '\\n');
				Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 600);
				mkdirSync(${JSON.stringify(cache)}, { recursive: true });
				writeFileSync(${JSON.stringify(path.join(cache, 'done'))}, '');
				appendFileSync(${JSON.stringify(journal)}, 'end ' + process.argv[1] + '\\n');
			});`;
		const run = (name: string) =>
			new Promise<number | null>((resolve) => spawn(process.execPath, ['-e', script, name], { stdio: 'ignore' }).once('exit', resolve));
		expect(await Promise.all([run('a'), run('b')])).toEqual([0, 0]);
		const lines = readFileSync(journal, 'utf8').trim().split('\n');
		const first = lines[0].split(' ')[1];
		const second = first === 'a' ? 'b' : 'a';
		expect(lines).toEqual([`start ${first}`, `end ${first}`, `found ${second}`]);
		expect(existsSync(`${cache}.lock`)).toBe(false);
	});

	it('takes over a lock left by a process that is gone, and releases it when the install throws', () => {
		const cache = path.join(dir, 'cache');
		mkdirSync(`${cache}.lock`);
		writeFileSync(path.join(`${cache}.lock`, 'pid'), '2147483646'); // no such process
		expect(withInstallLock(cache, 'test', () => 'installed')).toBe('installed');
		expect(() => withInstallLock(cache, 'test', () => {
			throw new Error('npm ci failed');
		})).toThrow('npm ci failed');
		expect(existsSync(`${cache}.lock`)).toBe(false);
	});
});
