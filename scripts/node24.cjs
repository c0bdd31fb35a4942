#!/usr/bin/env node
/*
 * Runs a command under Node 24 whatever Node started it (18, 20, 22 or 24), so that the package
 * scripts work as written on any machine. n8n 2.x, n8n-core and the sandbox (node:sqlite) need Node 24.
 *
 *   node scripts/node24.cjs <file.ts|.js|.mjs|.cjs> [args]   runs the file with Node 24
 *   node scripts/node24.cjs <command> [args]                 runs the command with Node 24 first on PATH
 *   node scripts/node24.cjs --bin-dir                         prints the folder holding Node 24's `node`
 *
 * On an older Node, Node 24 comes from the npm registry (the `node` package) into $NODE24_DIR or
 * ~/.cache/node24, once. Plain CommonJS without newer syntax: this file itself must run on Node 18.
 * `require('./node24.cjs').registryNodeBinDir(22)` does the same for another major (the n8n 1.x smoke test).
 */
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { longStep } = require('./lib/longStep.cjs');
const { withInstallLock } = require('./lib/installLock.cjs');

const REQUIRED_MAJOR = 24;
const majorOf = (version) => Number(String(version).replace(/^v/, '').split('.')[0]);

function cachedNodeDir(major) {
	return (major === REQUIRED_MAJOR && process.env.NODE24_DIR) || path.join(os.homedir(), '.cache', `node${major}`);
}

/** The major version of the `node` binary at `file`, or 0 when it is missing or does not run. */
function versionOf(file) {
	if (!fs.existsSync(file)) return 0;
	const result = spawnSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' });
	return result.status === 0 ? majorOf(result.stdout.trim()) : 0;
}

/** The folder of a Node 24 `node` binary: this process's own, or the cached one (installed on first use). */
function node24BinDir() {
	if (majorOf(process.versions.node) >= REQUIRED_MAJOR) return path.dirname(process.execPath);
	return registryNodeBinDir(REQUIRED_MAJOR);
}

/** The folder of the cached `node` binary of exactly this major from the npm registry (installed on first use). */
function registryNodeBinDir(major) {
	const dir = cachedNodeDir(major);
	const binDir = path.join(dir, 'node_modules', 'node', 'bin');
	// Node 24 or newer for the project itself; exactly `major` for a compatibility test.
	const fits = (version) => (major === REQUIRED_MAJOR ? version >= major : version === major);
	if (fits(versionOf(path.join(binDir, 'node')))) return binDir;
	process.stderr.write(`This needs Node ${major}; this is Node ${process.versions.node}.\n`);
	// Two first runs at once (two clones' CI, `npm run dev` beside the tests) would install into one folder together:
	// the second waits for the first and then finds its Node.
	const installed = withInstallLock(
		dir,
		'node',
		() => {
			if (fits(versionOf(path.join(binDir, 'node')))) return true;
			fs.mkdirSync(dir, { recursive: true });
			// The `node` package fetches the platform's binary in its install script: scripts must run here even when
			// the caller's npm config (this project's .npmrc, npm_config_ignore_scripts from `npm run`) turns them off.
			const env = Object.assign({}, process.env, { npm_config_ignore_scripts: 'false' });
			const install = longStep(
				'node',
				`fetching Node ${major} from the npm registry into ${dir} (once: a download of about 50 MB)`,
				'under a minute',
				() =>
					spawnSync(
						'npm',
						[
							'install',
							'--prefix',
							dir,
							'--no-save',
							'--no-package-lock',
							'--ignore-scripts=false',
							'--no-audit',
							'--no-fund',
							'--loglevel=error',
							`node@${major}`,
						],
						// npm's own report ("added 1 package") goes to stderr: stdout carries only what the caller asked for (--bin-dir).
						{ stdio: ['ignore', process.stderr, process.stderr], env, shell: process.platform === 'win32' },
					),
			);
			return install.status === 0 && fits(versionOf(path.join(binDir, 'node')));
		},
		(line) => process.stderr.write(line + '\n'),
	);
	if (!installed) {
		process.stderr.write(
			`Could not install Node ${major} into ${dir}. Install Node ${major} yourself (e.g. \`nvm install ${major}\`) and run the command again.\n`,
		);
		process.exit(1);
	}
	return binDir;
}

function main(args) {
	if (args.length === 0) {
		process.stderr.write('usage: node scripts/node24.cjs <file or command> [args...] | --bin-dir\n');
		process.exit(2);
	}
	const binDir = node24BinDir();
	if (args[0] === '--bin-dir') {
		process.stdout.write(`${binDir}\n`);
		return;
	}
	const nodeBinary = path.join(
		binDir,
		path.basename(process.execPath).startsWith('node') ? path.basename(process.execPath) : 'node',
	);
	const isScriptFile = /\.(ts|mts|js|mjs|cjs)$/.test(args[0]);
	const command = isScriptFile ? nodeBinary : args[0];
	const commandArgs = isScriptFile ? args : args.slice(1);
	// Node 24 first on PATH: whatever this command starts (npm run, jest, #!/usr/bin/env node) runs on it too.
	const env = Object.assign({}, process.env, { PATH: `${binDir}${path.delimiter}${process.env.PATH || ''}` });
	const child = spawn(command, commandArgs, {
		stdio: 'inherit',
		env,
		shell: process.platform === 'win32' && !isScriptFile,
	});
	// Ctrl+C reaches the child from the terminal; a signal sent to this process alone is passed on.
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
		process.on(signal, () => {
			if (child.exitCode === null) child.kill(signal);
		});
	}
	child.on('error', (error) => {
		process.stderr.write(`could not start \`${args[0]}\`: ${error.message}\n`);
		process.exit(127);
	});
	child.on('exit', (code, signal) => {
		process.exitCode = code === null ? 128 + (os.constants.signals[signal] || 0) : code;
	});
}

module.exports = { registryNodeBinDir };

if (require.main === module) main(process.argv.slice(2));
