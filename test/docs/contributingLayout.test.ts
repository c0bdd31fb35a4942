/**
 * The Layout block of the action node's CONTRIBUTING.md is a map a contributor trusts: every path it names exists, and
 * every source file of the parts it lists file by file is on it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const repoRoot = path.resolve(__dirname, '../..');
const NODE_DIR = 'nodes/MessengerBotBuilder';
const CONTRIBUTING = path.join(repoRoot, NODE_DIR, 'CONTRIBUTING.md');
/** Folders whose every file the layout lists (the node's top level lists its files, not its folders). */
const LISTED_IN_FULL = ['', 'actions/common', 'actions/message/sendAndWait', 'transport', 'methods'];

/** The fenced block under "## Layout". */
export function layoutBlock(markdown: string): string {
	const section = markdown.split(/^## Layout$/m)[1];
	const block = section && /^```[^\n]*\n([\s\S]*?)^```$/m.exec(section);
	if (!block) throw new Error('CONTRIBUTING.md has no fenced block under "## Layout"');
	return block[1];
}

/**
 * The repository paths a layout block names: each line is a path (up to two spaces before its description), indented
 * two spaces under the folder (ending in `/`) it belongs to; a path with a placeholder such as `<resource>` is left out.
 */
export function layoutPaths(block: string): string[] {
	const folders: Array<{ indent: number; path: string }> = [];
	const paths: string[] = [];
	for (const line of block.split('\n')) {
		const match = /^( *)(\S+(?: \S+)*?)(?: {2,}.*)?$/.exec(line);
		if (!match) continue;
		const [, spaces, name] = match;
		while (folders.length && folders[folders.length - 1].indent >= spaces.length) folders.pop();
		const full = path.posix.join(folders.length ? folders[folders.length - 1].path : '', name);
		if (name.endsWith('/')) folders.push({ indent: spaces.length, path: full });
		if (!name.includes('<')) paths.push(full);
	}
	return paths;
}

const listed = layoutPaths(layoutBlock(readFileSync(CONTRIBUTING, 'utf8')));

test('the layout reads as paths, nested by indentation', () => {
	expect(layoutPaths('a/\n  b.ts       the b\n  c/\n    d.ts  the d\n  <x>/e.ts  any e\nf.ts\n')).toEqual([
		'a/',
		'a/b.ts',
		'a/c/',
		'a/c/d.ts',
		'f.ts',
	]);
	expect(listed.length).toBeGreaterThan(30);
});

test('every path in the layout exists', () => {
	const missing = listed.filter((entry) => {
		const full = path.join(repoRoot, entry);
		return !existsSync(full) || statSync(full).isDirectory() !== entry.endsWith('/');
	});
	expect(missing).toEqual([]);
});

test('every file of the node top level, actions/common, Send and Wait, transport and methods is in the layout', () => {
	const files = LISTED_IN_FULL.flatMap((folder) => {
		const dir = path.posix.join(NODE_DIR, folder);
		return readdirSync(path.join(repoRoot, dir), { withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map((entry) => path.posix.join(dir, entry.name));
	});
	expect(files.length).toBeGreaterThan(30);
	expect(files.filter((file) => !listed.includes(file))).toEqual([]);
});
