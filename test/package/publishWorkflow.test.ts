/**
 * The publish workflow cannot run here (it needs GitHub and npm): its steps are checked instead.
 * On a version tag it must build, test, verify with n8n's tools and publish that very tarball with
 * npm provenance, which needs the `id-token: write` permission.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const repoRoot = path.resolve(__dirname, '..', '..');
const workflow = parse(readFileSync(path.join(repoRoot, '.github', 'workflows', 'publish.yml'), 'utf8'));
const rootPackage = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}

const jobs = Object.values(workflow.jobs as Record<string, { steps: Step[]; permissions?: Record<string, string> }>);
const steps = jobs.flatMap((job) => job.steps);
/** Index of the one step whose `run` holds `command`; fails when none or several do. */
function stepRunning(command: string): number {
	const found = steps.flatMap((step, index) =>
		step.run?.split('\n').some((line) => line.includes(command)) ? [index] : [],
	);
	expect({ command, steps: found.length }).toEqual({ command, steps: 1 });
	return found[0];
}

test('runs on version tags only', () => {
	expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
});

test('may request an OIDC token (npm provenance) and only read the repository', () => {
	expect(workflow.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
	for (const job of jobs) expect(job.permissions).toBeUndefined();
});

test('checks out, sets up Node 24 with the npm registry, installs, builds, tests and verifies before publishing', () => {
	expect(steps[0].uses).toMatch(/^actions\/checkout@v\d+$/);
	const setupNode = steps.findIndex((step) => step.uses?.startsWith('actions/setup-node@'));
	expect(setupNode).toBeGreaterThan(0);
	expect(steps[setupNode].with).toEqual({ 'node-version': 24, 'registry-url': 'https://registry.npmjs.org' });
	const order = ['npm ci', 'npm run build', 'npm run lint', 'npm test', 'npm run verify:n8n', 'npm publish'].map(
		stepRunning,
	);
	expect(order[0]).toBeGreaterThan(setupNode);
	expect([...order].sort((a, b) => a - b)).toEqual(order);
});

test('refuses a tag that is not the package version', () => {
	const check = steps[stepRunning('GITHUB_REF_NAME')].run!;
	expect(check).toContain(`require("./package.json").version`);
	expect(check).toMatch(/"\$\{GITHUB_REF_NAME\}" != "v\$\{version\}"/);
	expect(check).toMatch(/exit 1/);
});

test('publishes the tarball verify:n8n packed and scanned, with provenance and public access', () => {
	const publish = steps[stepRunning('npm publish')];
	const args = publish.run!.trim().split(/\s+/);
	expect(args.slice(0, 2)).toEqual(['npm', 'publish']);
	expect(args).toContain('--provenance');
	expect(args).toContain('--access');
	expect(args[args.indexOf('--access') + 1]).toBe('public');
	// npm pack names an unscoped package's tarball <name>-<version>.tgz; verify:n8n packs into out/package.
	const tarball = args[args.length - 1].replace(/"/g, '').replace('${PACKAGE_VERSION}', rootPackage.version);
	expect(tarball).toBe(`out/package/${rootPackage.name}-${rootPackage.version}.tgz`);
	expect(publish.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' });
});

test('the verify step is the one that packs: verify:n8n runs scripts/verify-n8n.ts', () => {
	expect(rootPackage.scripts['verify:n8n']).toBe('node scripts/node24.cjs scripts/verify-n8n.ts');
	expect(readFileSync(path.join(repoRoot, 'scripts', 'verify-n8n.ts'), 'utf8')).toContain('buildPackageTarball()');
});
