#!/usr/bin/env node
/*
 * `npm run setup`: the repository's dependencies, installed as `npm ci` installs them (exactly package-lock.json),
 * with what a log needs and npm does not print outside a terminal: a start line, a progress line at least every 30 s
 * (the time so far and how many of the lock's top-level packages are in node_modules), and the total. npm's own
 * output (one `added … packages` line, and errors) passes through. Plain CommonJS without newer syntax and without
 * dependencies: it runs before anything is installed, on any Node from 18.
 */
'use strict';
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { progressLine, startLine, endLine, HEARTBEAT_MS } = require('./lib/longStep.cjs');

const root = path.resolve(__dirname, '..');
const PREFIX = 'setup';
const WHAT = "installing the repository's dependencies (npm ci)";

/** Top-level packages package-lock.json installs (`node_modules/<name>` and `node_modules/@scope/<name>`). */
function lockedTopLevel() {
	const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8'));
	return Object.keys(lock.packages || {}).filter(function (key) {
		return /^node_modules\/(@[^/]+\/)?[^/]+$/.test(key);
	}).length;
}

/**
 * Top-level packages in node_modules so far whose package.json is written: npm creates the folders first and
 * fills them as the downloads arrive, so a folder alone says nothing.
 */
function installedTopLevel() {
	const dir = path.join(root, 'node_modules');
	let count = 0;
	let names;
	try {
		names = fs.readdirSync(dir);
	} catch {
		return 0;
	}
	const written = function (folder) {
		return fs.existsSync(path.join(folder, 'package.json')) ? 1 : 0;
	};
	names.forEach(function (name) {
		if (name.charAt(0) === '.') return;
		if (name.charAt(0) === '@') {
			try {
				fs.readdirSync(path.join(dir, name)).forEach(function (inner) {
					count += written(path.join(dir, name, inner));
				});
			} catch {
				/* being written */
			}
		} else count += written(path.join(dir, name));
	});
	return count;
}

const started = Date.now();
const total = lockedTopLevel();
process.stderr.write(
	startLine(
		PREFIX,
		WHAT + ': ' + total + ' top-level packages',
		'about 1 min with a warm npm cache, 2 to 4 min with an empty one; longer on a busy machine',
	),
);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const child = spawn(npm, ['ci', '--no-audit', '--no-fund'].concat(process.argv.slice(2)), {
	cwd: root,
	stdio: 'inherit',
	shell: process.platform === 'win32',
});
const timer = setInterval(function () {
	const line = progressLine(PREFIX, WHAT, Date.now() - started).replace(
		/\)\n$/,
		'; ' + Math.min(installedTopLevel(), total) + ' of ' + total + ' in node_modules)\n',
	);
	process.stderr.write(line);
}, HEARTBEAT_MS);
child.on('error', function (error) {
	clearInterval(timer);
	process.stderr.write(PREFIX + ': could not start npm: ' + error.message + '\n');
	process.exitCode = 1;
});
child.on('exit', function (code, signal) {
	clearInterval(timer);
	const ok = code === 0;
	process.stderr.write(endLine(PREFIX, WHAT, ok, Date.now() - started, signal || 'exit ' + code));
	process.exitCode = ok ? 0 : code || 1;
});
