/** The repository's Markdown: every relative link and anchor leads somewhere, and the checker itself notices when one does not. */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { anchorsOf, brokenLinks, headingSlug } from '../../scripts/lib/docLinks';

const repoRoot = path.resolve(__dirname, '../..');

test('every relative link and anchor in the Markdown files resolves', () => {
	expect(brokenLinks(repoRoot)).toEqual([]);
});

test("the receiver README's relative links stay inside what its package ships (npm shows that README)", () => {
	const receiver = path.join(repoRoot, 'receiver');
	const files = (JSON.parse(readFileSync(path.join(receiver, 'package.json'), 'utf8')) as { files: string[] }).files;
	const shipped = files.filter((entry) => !entry.startsWith('!'));
	const readme = readFileSync(path.join(receiver, 'README.md'), 'utf8').replace(/```[\s\S]*?```/g, '');
	const relative = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
		.map((match) => match[1])
		.filter((target) => !/^[a-z]+:/i.test(target) && !target.startsWith('#'));
	expect(relative.length).toBeGreaterThan(0);
	const outside = relative.filter(
		(target) =>
			!shipped.some(
				(entry) => path.normalize(target.split('#')[0]).startsWith(`${entry}/`) || target.split('#')[0] === entry,
			),
	);
	expect(outside).toEqual([]);
});

test('GitHub heading anchors: punctuation dropped, repeats numbered, fenced code ignored', () => {
	expect(headingSlug('Message → Send and Wait for Response')).toBe('message--send-and-wait-for-response');
	expect(headingSlug("Publishing and n8n's verification")).toBe('publishing-and-n8ns-verification');
	expect(headingSlug('Running at scale: queue mode, webhook processes, restarts')).toBe(
		'running-at-scale-queue-mode-webhook-processes-restarts',
	);
	expect(headingSlug('`npm run dev` and [links](x.md)')).toBe('npm-run-dev-and-links');
	expect([...anchorsOf('# Tests\n## Tests\n```sh\n# not a heading\n```\n<a id="kept"></a>\n')]).toEqual([
		'tests',
		'tests-1',
		'kept',
	]);
});

test('the checker reports a missing file, a missing anchor and an anchor on a file that is not Markdown, and ignores code', () => {
	const dir = mkdtempSync(path.join(os.tmpdir(), 'doc-links-'));
	try {
		execFileSync('git', ['init', '-q'], { cwd: dir });
		mkdirSync(path.join(dir, 'docs'));
		writeFileSync(path.join(dir, 'docs', 'page.md'), '# Page\n\n## A section\n');
		writeFileSync(path.join(dir, 'image.png'), '');
		writeFileSync(
			path.join(dir, 'README.md'),
			[
				'# Front',
				'[ok](docs/page.md#a-section) [ok](#front) ![ok](image.png) [ok](https://example.com/nowhere.md)',
				'[gone](docs/missing.md)',
				'[no anchor](docs/page.md#another-section)',
				'[png anchor](image.png#top)',
				'`[in code](nowhere.md)`',
				'```',
				'[in a block](nowhere.md)',
				'```',
			].join('\n'),
		);
		expect(brokenLinks(dir).map(({ file, line, target, reason }) => `${file}:${line} ${target} ${reason}`)).toEqual([
			'README.md:3 docs/missing.md no such file',
			'README.md:4 docs/page.md#another-section no heading with the anchor #another-section in docs/page.md',
			'README.md:5 image.png#top an anchor on a file that is not Markdown',
		]);
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
