/**
 * Every relative link and image in the repository's Markdown files must lead somewhere: the file (or folder) must
 * exist, and an anchor (`page.md#section`, `#section`) must name a heading of that page, spelled as GitHub makes
 * heading anchors. Links inside code (fenced blocks, `inline code`) are not links. Absolute URLs are not checked.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface BrokenLink {
	file: string;
	line: number;
	target: string;
	reason: string;
}

/** The Markdown files git tracks (or would track: new files not yet added count too), relative to `root`. */
export function markdownFiles(root: string): string[] {
	const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], {
		cwd: root,
		encoding: 'utf8',
	});
	return [...new Set(out.split('\n').filter((file) => file && existsSync(path.join(root, file))))].sort();
}

/** The text of a Markdown file with fenced code blocks and inline code blanked out (line numbers kept). */
function withoutCode(text: string): string[] {
	let fence: string | undefined;
	return text.split('\n').map((line) => {
		const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
		if (fence) {
			if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
			return '';
		}
		if (marker) {
			fence = marker;
			return '';
		}
		return line.replace(/(`+)[\s\S]*?\1/g, (code) => ' '.repeat(code.length));
	});
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, `-`, `_` and spaces kept), spaces to `-`. */
export function headingSlug(heading: string): string {
	const text = heading
		.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link in a heading keeps its text
		.replace(/`/g, '')
		.trim()
		.toLowerCase();
	return text.replace(/[^\p{L}\p{N}\p{M}_\- ]/gu, '').replace(/ /g, '-');
}

/** The anchors a Markdown page offers: its headings (repeats get `-1`, `-2`, as on GitHub) and explicit `<a id>`/`<a name>`. */
export function anchorsOf(text: string): Set<string> {
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	let fence: string | undefined;
	for (const line of text.split('\n')) {
		const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
		if (fence) {
			if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
			continue;
		}
		if (marker) {
			fence = marker;
			continue;
		}
		const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
		if (heading) {
			const slug = headingSlug(heading[1]);
			const count = seen.get(slug) ?? 0;
			seen.set(slug, count + 1);
			anchors.add(count ? `${slug}-${count}` : slug);
		}
		for (const match of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
	}
	return anchors;
}

/** Link targets on one line: inline links and images `[text](target "title")`, and `<img src="…">`. */
function targetsOf(line: string): string[] {
	const targets: string[] = [];
	for (const match of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]);
	for (const match of line.matchAll(/<img\s[^>]*src="([^"]+)"/g)) targets.push(match[1]);
	return targets;
}

const isAbsolute = (target: string) => /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');

/** The broken relative links of the given Markdown files (paths relative to `root`). */
export function brokenLinks(root: string, files: string[] = markdownFiles(root)): BrokenLink[] {
	const broken: BrokenLink[] = [];
	const anchorCache = new Map<string, Set<string>>();
	const anchors = (file: string) => {
		let found = anchorCache.get(file);
		if (!found) anchorCache.set(file, (found = anchorsOf(readFileSync(file, 'utf8'))));
		return found;
	};
	for (const file of files) {
		const absolute = path.join(root, file);
		withoutCode(readFileSync(absolute, 'utf8')).forEach((line, index) => {
			for (const target of targetsOf(line)) {
				if (isAbsolute(target)) continue;
				const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
				const linked = rawPath ? path.resolve(path.dirname(absolute), decodeURIComponent(rawPath)) : absolute;
				const report = (reason: string) => broken.push({ file, line: index + 1, target, reason });
				if (!existsSync(linked)) {
					report('no such file');
					continue;
				}
				if (anchor === undefined || anchor === '') continue;
				if (statSync(linked).isDirectory() || !linked.endsWith('.md')) {
					if (!/^L\d+(-L\d+)?$/.test(anchor)) report('an anchor on a file that is not Markdown');
					continue;
				}
				if (!anchors(linked).has(decodeURIComponent(anchor)))
					report(`no heading with the anchor #${anchor} in ${path.relative(root, linked)}`);
			}
		});
	}
	return broken;
}
