#!/usr/bin/env node
/**
 * `npm run measure:first-run`: the first run as a new user meets it, measured. Clones this repository's HEAD into a
 * new temporary folder, gives it an empty home (so npm's cache, Node 24, n8n, n8n's tools, Deno and Bun are all
 * fetched, and sqlite3 is built), and times each step on the Node found on PATH (CI's Node 20): Node 24's fetch,
 * `npm run setup` (npm ci), the build, n8n's install, `npm run test:e2e`, `npm test`, `npm run verify:n8n`. It records the machine
 * (cores, memory, load average before and during the run, sampled every 10 s), the longest silence of each step
 * (the README promises a line at least every 30 s) and what `npm run setup` printed, and writes notes/first-run-figures.md
 * and .json in this repository after every step (a run cut short keeps what it measured). The user docs carry no
 * measured figures: notes/ is where they are kept.
 * Usage: node scripts/measure-first-run.mjs [--keep]   (--keep: leave the temporary folder for a look)
 *        node scripts/measure-first-run.mjs --render  (only render the Markdown again from notes/first-run-figures.json)
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = (await import('node:module')).createRequire(import.meta.url);
const { formatDuration } = require('./lib/longStep.cjs');
const figuresFile = path.join(repo, 'notes', 'first-run-figures.md');
const figuresJson = figuresFile.replace(/\.md$/, '.json');
const STEPS = [
	['Node 24', 'node', ['scripts/node24.cjs', '--bin-dir']],
	['npm run setup', 'npm', ['run', 'setup']],
	['build', 'npm', ['run', 'build']],
	["n8n's install", 'node', ['scripts/node24.cjs', 'e2e/install-n8n.ts']],
	['npm run test:e2e', 'npm', ['run', 'test:e2e']],
	['npm test', 'npm', ['test']],
	['npm run verify:n8n', 'npm', ['run', 'verify:n8n']],
];
const took = (seconds) => formatDuration(seconds * 1000);

/** notes/first-run-figures.md, from a run's figures. */
function render(run) {
	const { samples = 0, min, max, mean } = run.loadDuring;
	const total = run.steps.reduce((sum, s) => sum + s.seconds, 0);
	const rows = run.steps.map(
		(s) =>
			`| ${s.name} | \`${s.command}\` | ${took(s.seconds)} | ${s.exit === 0 ? 'passed' : `exit ${s.exit}`} | ${took(s.longestSilenceSeconds)} |`,
	);
	const missing = STEPS.map(([name]) => name).filter((name) => !run.steps.some((s) => s.name === name));
	const npmCi = run.steps.find((s) => s.name === 'npm run setup');
	const machine = `${run.machine.cores} cores (${run.machine.cpu}), ${run.machine.memoryGb} GB memory`;
	const load = `load average before ${run.loadBefore.join(', ')} (1, 5, 15 min), during the run min ${min}, mean ${mean}, max ${max} (${samples} samples, every 10 s)`;
	const md = `# First-run figures

Notes: [all notes](README.md) · user docs: [Getting started](../docs/getting-started.md) · [Contributing and testing](../docs/contributing.md)

Measured by \`npm run measure:first-run\` (\`scripts/measure-first-run.mjs\`), not typed: a new clone of commit
\`${run.commit}\` in a temporary folder, an empty home directory (npm's cache empty, so Node 24, n8n, sqlite3's build, n8n's
tools, Deno and Bun all happen), \`CI=true\`, on Node ${run.node}.

- Date: ${run.date.slice(0, 16).replace('T', ' ')} UTC
- Machine: ${machine}
- Load: ${load}. The machine was shared with other jobs: on an idle machine every step is shorter.

| step | command | took | result | longest silence |
|---|---|---|---|---|
${rows.join('\n')}
| **total so far** | | **${took(total)}** | | |
${missing.length ? `\nNot reached in this run: ${missing.join(', ')}.\n` : ''}
*Longest silence* is the longest time the step printed no line. The long steps of the set-up print a progress line
every 20 s: \`npm run setup\` around \`npm ci\` (which prints nothing in a log until it ends), the build around its \`tsc\` runs.
${(run.notes ?? []).map((note) => `\n${note}\n`).join('')}
${npmCi ? `\n\`npm run setup\` printed ${npmCi.lines} line(s)${npmCi.output?.length ? '; besides its progress lines:\n\n```\n' + npmCi.output.join('\n') + '\n```' : ', its progress lines included.'}\n` : ''}
Sizes on disk afterwards (\`du -sh\`):

| what | size |
|---|---|
${Object.entries(run.sizes)
	.filter(([, size]) => size)
	.map(([what, size]) => `| ${what} | ${size} |`)
	.join('\n')}
`;
	writeFileSync(figuresFile, md);
}

if (process.argv.includes('--render')) {
	render(JSON.parse(readFileSync(figuresJson, 'utf8')));
	process.exit(0);
}

const keep = process.argv.includes('--keep');
const work = mkdtempSync(path.join(os.tmpdir(), 'first-run-'));
const clone = path.join(work, 'project');
const home = path.join(work, 'home');
mkdirSync(home);
const log = path.join(work, 'run.log');

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
execFileSync('git', ['clone', '-q', repo, clone]);
if (existsSync(path.join(repo, '..', 'shared')))
	cpSync(path.join(repo, '..', 'shared'), path.join(work, 'shared'), { recursive: true });

const loadNow = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
const run = {
	date: new Date().toISOString(),
	commit,
	node: process.version,
	machine: {
		cores: os.cpus().length,
		memoryGb: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
		cpu: os.cpus()[0]?.model ?? '',
	},
	loadBefore: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number),
	loadDuring: { samples: [], min: 0, max: 0, mean: 0 },
	steps: [],
	sizes: {},
};
const sampler = setInterval(() => run.loadDuring.samples.push(loadNow()), 10_000);

const env = {
	...process.env,
	HOME: home,
	npm_config_cache: path.join(home, '.npm'),
	CI: 'true',
	// Not this machine's own caches: everything from the registry, into the empty home.
	NODE24_DIR: '',
	MBB_N8N_CACHE: '',
	MBB_RUNTIMES_DIR: '',
};
for (const name of ['NODE24_DIR', 'MBB_N8N_CACHE', 'MBB_RUNTIMES_DIR', 'npm_config_userconfig', 'npm_config_prefix'])
	delete env[name];

/** Runs one step in the clone; returns its seconds, exit code, line count and longest silence between lines. */
function step(name, command, args) {
	return new Promise((resolve) => {
		const started = Date.now();
		let last = started;
		let longestSilence = 0;
		let lines = 0;
		let text = '';
		writeFileSync(log, `\n=== ${name}: ${command} ${args.join(' ')}\n`, { flag: 'a' });
		const child = spawn(command, args, { cwd: clone, env, stdio: ['ignore', 'pipe', 'pipe'] });
		const onData = (chunk) => {
			const now = Date.now();
			const count = String(chunk).split('\n').length - 1;
			if (count > 0) {
				longestSilence = Math.max(longestSilence, now - last);
				last = now;
				lines += count;
			}
			text += chunk;
			writeFileSync(log, chunk, { flag: 'a' });
		};
		child.stdout.on('data', onData);
		child.stderr.on('data', onData);
		child.on('exit', (code) => {
			const ended = Date.now();
			longestSilence = Math.max(longestSilence, ended - last);
			const result = {
				name,
				command: `${command} ${args.join(' ')}`,
				seconds: Math.round((ended - started) / 1000),
				exit: code,
				lines,
				longestSilenceSeconds: Math.round(longestSilence / 1000),
			};
			if (name === 'npm run setup')
				result.output = text
					.trim()
					.split('\n')
					.filter((line) => line && !line.includes(': … still '))
					.slice(0, 20);
			console.log(
				`measure: ${name}: ${formatDuration(ended - started)} (exit ${code}, ${lines} lines, longest silence ${formatDuration(longestSilence)})`,
			);
			resolve(result);
		});
	});
}

function du(dir) {
	if (!existsSync(dir)) return undefined;
	return execFileSync('du', ['-sh', dir], { encoding: 'utf8' }).split('\t')[0];
}

function write() {
	const samples = run.loadDuring.samples;
	if (samples.length) {
		run.loadDuring.min = Math.min(...samples);
		run.loadDuring.max = Math.max(...samples);
		run.loadDuring.mean = Math.round((samples.reduce((a, b) => a + b, 0) / samples.length) * 10) / 10;
	}
	const cache = (name) => path.join(home, '.cache', name);
	run.sizes = {
		node_modules: du(path.join(clone, 'node_modules')),
		'npm cache (~/.npm)': du(path.join(home, '.npm')),
		'n8n (~/.cache/messenger-bot-builder-n8n)': du(cache('messenger-bot-builder-n8n')),
		"n8n's tools (~/.cache/messenger-bot-builder-n8n-tools)": du(cache('messenger-bot-builder-n8n-tools')),
		'Deno and Bun (~/.cache/messenger-bot-builder-runtimes)': du(cache('messenger-bot-builder-runtimes')),
		'Node 24 (~/.cache/node24)': du(cache('node24')),
	};
	const load = { ...run.loadDuring };
	delete load.samples; // the raw samples stay out of the JSON: their summary is kept
	const figures = { ...run, loadDuring: { ...load, samples: samples.length } };
	writeFileSync(figuresJson, `${JSON.stringify(figures, null, 2)}\n`);
	render(figures);
}

console.log(`measure: first run of ${commit} in ${work} (log: ${log})`);
for (const [name, command, args] of STEPS) {
	const result = await step(name, command, args);
	run.steps.push(result);
	write();
	if (result.exit !== 0 && ['Node 24', 'npm run setup', 'build'].includes(name)) break;
}
clearInterval(sampler);
write();
console.log(`measure: figures in ${path.relative(repo, figuresFile)}`);
if (!keep) rmSync(work, { recursive: true, force: true });
