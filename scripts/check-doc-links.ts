/** `npm run docs:links`: lists every relative link or anchor in the repository's Markdown that leads nowhere. */
import { brokenLinks } from './lib/docLinks.ts';
import { repoRoot } from './lib/paths.ts';

const broken = brokenLinks(repoRoot);
for (const link of broken) console.log(`${link.file}:${link.line}: ${link.target}: ${link.reason}`);
console.log(broken.length ? `docs: ${broken.length} broken link(s)` : 'docs: every relative link and anchor resolves');
process.exitCode = broken.length ? 1 : 0;
