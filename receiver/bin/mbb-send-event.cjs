#!/usr/bin/env node
// The command npm links for this package. npm links a workspace's commands when it installs them (`npm ci`), before
// any build, and leaves out a command whose file is not there: this file is always there, and runs the compiled CLI.
'use strict';
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const cli = join(__dirname, '..', 'dist', 'receiver', 'src', 'cli.js');
if (existsSync(cli)) require(cli);
else {
	process.stderr.write('mbb-send-event: the receiver is not built yet (' + cli + ' is missing): run npm run build\n');
	process.exitCode = 1;
}
