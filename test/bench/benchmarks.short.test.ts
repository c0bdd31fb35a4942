import { spawnSync } from 'node:child_process';
import { delimiter, dirname, join } from 'node:path';

/**
 * The benchmarks' short forms: each compiles and runs as `npm run bench:*` does, on a few rows, so a
 * benchmark that no longer runs fails CI. Their figures are too small to judge a rate: each says its goal line is
 * informational, exits with 0 when what it reports about correctness holds (every row once, no failed or doubled
 * item), and the tests check those lines. Its output is shown only when a test fails.
 */
const ROOT = join(__dirname, '../..');

function bench(script: string, args: string[]): string {
	const run = spawnSync('bash', [join(ROOT, 'bench', script, 'run.sh'), ...args], {
		cwd: ROOT,
		encoding: 'utf8',
		timeout: 150_000,
		env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` },
	});
	const output = `${run.stdout}${run.stderr}`;
	if (run.error) throw run.error;
	if (run.status !== 0) throw new Error(`bench ${script} exited with ${run.status ?? run.signal}:\n${output}`);
	expect(output).toMatch(/goal \(.*\): informational, not checked in the short form/);
	return output;
}

describe('benchmarks (short forms)', () => {
	it('bench:return-all reads 3,000 rows, and again at 100 a page: every row exactly once, in order', () => {
		const output = bench('return-all', ['3000', '600']);
		expect(output).toContain('Return All of 3000 rows through the node');
		expect(output).toContain('every row exactly once, in order: true / true');
	}, 180_000);

	it('bench:multi-worker: 6 processes share one key, no item fails or is doubled', () => {
		const output = bench('multi-worker', ['6', '5']);
		expect(output).toContain('failed items: 0');
		expect(output).toContain('messages recorded per item: exactly once 30, never 0, more than once 0');
	}, 180_000);

	it('bench:sandbox-log-flood: 2,000 calls without a key (1,000 with 8 KB paths) leave every keyed entry and keep 1,000 others', () => {
		const output = bench('sandbox-log-flood', ['--requests', '1000']);
		expect(output).toContain(
			'keyed entries kept: 53 of 53; entries without a key kept: 1000; longest stored path: 257 characters',
		);
		expect(output).toContain('log bounded and keyed entries kept: true');
	}, 180_000);

	it('bench:bulk-import adds 2,000 rows: every row present exactly once, output paired in order', () => {
		const output = bench('bulk-import', ['2000']);
		expect(output).toContain('every row present exactly once: true; output paired in order: true');
	}, 180_000);
});
