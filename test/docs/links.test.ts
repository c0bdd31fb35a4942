/** The repository's Markdown: every relative link and anchor leads somewhere, and the checker itself notices when one does not. */
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** The repository on GitHub: package.json's homepage without its anchor. */
const repositoryUrl = (
	JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { homepage: string }
).homepage
	.split('#')[0]
	.replace(/\/+$/, '');

/** The documentation links n8n shows: the nodes' codex files and the credential's documentationUrl. */
function documentationUrls(): Array<{ source: string; url: string }> {
	const codex = [
		'nodes/MessengerBotBuilder/MessengerBotBuilder.node.json',
		'nodes/MessengerBotBuilderTrigger/MessengerBotBuilderTrigger.node.json',
	].flatMap((source) => {
		const { resources } = JSON.parse(readFileSync(path.join(repoRoot, source), 'utf8')) as {
			resources: Record<string, Array<{ url: string }>>;
		};
		return Object.values(resources).flatMap((links) => links.map(({ url }) => ({ source, url })));
	});
	const credential = 'credentials/MessengerBotBuilderApi.credentials.ts';
	const [, url] = /documentationUrl\s*=\s*'([^']+)'/.exec(readFileSync(path.join(repoRoot, credential), 'utf8')) ?? [];
	return [...codex, { source: credential, url }];
}

/** Why `url` does not lead to a file and heading of this repository on its main branch, or undefined if it does. */
export function repositoryLinkProblem(root: string, repository: string, url: string | undefined): string | undefined {
	if (!url?.startsWith(repository)) return `not a page of ${repository}`;
	const [location, anchor] = url.slice(repository.length).split('#');
	const file = location === '' ? 'README.md' : /^\/blob\/main\/(.+)$/.exec(location)?.[1];
	if (!file) return 'not a file on the main branch (/blob/main/…)';
	const full = path.join(root, file);
	if (!existsSync(full)) return `no file ${file}`;
	if (anchor !== undefined && !anchorsOf(readFileSync(full, 'utf8')).has(anchor))
		return `no heading with the anchor #${anchor} in ${file}`;
	return undefined;
}

test("the nodes' and the credential's documentation links lead to a file and heading of the repository", () => {
	const links = documentationUrls();
	expect(links).toHaveLength(5);
	const broken = links
		.map(({ source, url }) => ({ source, url, problem: repositoryLinkProblem(repoRoot, repositoryUrl, url) }))
		.filter(({ problem }) => problem !== undefined);
	expect(broken).toEqual([]);
});

test('a documentation link to a missing file or heading, another site or another branch is reported', () => {
	const problem = (url: string) => repositoryLinkProblem(repoRoot, repositoryUrl, url);
	expect(problem(`${repositoryUrl}/blob/main/docs/using-the-nodes.md#credentials`)).toBeUndefined();
	expect(problem(`${repositoryUrl}#no-such-heading`)).toBe('no heading with the anchor #no-such-heading in README.md');
	expect(problem(`${repositoryUrl}/blob/main/docs/nowhere.md`)).toBe('no file docs/nowhere.md');
	expect(problem(`${repositoryUrl}/tree/dev/docs/trigger.md`)).toBe('not a file on the main branch (/blob/main/…)');
	expect(problem('https://example.com/docs')).toBe(`not a page of ${repositoryUrl}`);
});
