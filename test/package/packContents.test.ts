/**
 * What npm ships is for users: how to use and run things. Measurements, runs and their history live in notes/, which
 * no package ships. This test packs the n8n package, the receiver and the sandbox as npm would (a dry run over the
 * current build) and looks through every shipped file for the marks of a lab notebook.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '../..');

const NOTEBOOK_MARKS: Array<[string, RegExp]> = [
	['a run on record', /run on record/i],
	['a tracker number', /\bissue #?\d+/i],
	['a time of day', /\b\d\d:\d\d(:\d\d)? UTC\b/],
	['a commit', /\bcommit [0-9a-f]{7,40}\b/i],
	['a dated journal', /\b(this|last|earlier) session\b/i],
];

function packedFiles(workspace: string | undefined): string[] {
	const args = ['pack', '--dry-run', '--json', ...(workspace ? ['-w', workspace] : [])];
	const packed = spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8' });
	if (packed.status !== 0) throw new Error(`npm ${args.join(' ')} failed: ${packed.stderr}`);
	const [{ files }] = JSON.parse(packed.stdout) as Array<{ files: Array<{ path: string }> }>;
	return files.map((file) => join(workspace ?? '', file.path));
}

describe.each([
	['the n8n package', undefined],
	['the receiver', 'receiver'],
	['the sandbox', 'sandbox'],
])('what npm ships of %s', (_name, workspace) => {
	const files = packedFiles(workspace);

	test('holds the built code and a README', () => {
		expect(files.some((file) => file.endsWith('.js'))).toBe(true);
		expect(files).toContain(join(workspace ?? '', 'README.md'));
	});

	test('holds no notebook: no dated file, no run on record, tracker number, time of day or commit', () => {
		const found = files.flatMap((file) => {
			if (/20\d\d-\d\d-\d\d/.test(file)) return [`${file}: a dated file name`];
			const text = readFileSync(join(ROOT, file), 'utf8');
			return NOTEBOOK_MARKS.filter(([, mark]) => mark.test(text)).map(([what]) => `${file}: ${what}`);
		});
		expect(found).toEqual([]);
	});
});

test('the marks find what they are meant to find', () => {
	const samples = [
		'The run on record (two runs) gave 0.95x.',
		'Resolves issue 42.',
		'Measured at 10:55 UTC.',
		'Fixed in commit 5f9f18a.',
		'As this session found, the store grows.',
	];
	expect(samples.map((sample) => NOTEBOOK_MARKS.filter(([, mark]) => mark.test(sample)).length)).toEqual([
		1, 1, 1, 1, 1,
	]);
	expect(NOTEBOOK_MARKS.filter(([, mark]) => mark.test('The console session expires; times are in UTC.'))).toEqual([]);
});
