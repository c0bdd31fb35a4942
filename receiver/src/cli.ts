#!/usr/bin/env node
import { inspect } from 'node:util';
import { runSendEvent } from './sendEvent';

// The command's own output: its lines to stdout, a failure to stderr.
runSendEvent(process.argv.slice(2), { out: (line) => process.stdout.write(`${line}\n`), env: process.env }).then(
	(code) => {
		process.exitCode = code;
	},
	(error) => {
		process.stderr.write(`${inspect(error)}\n`);
		process.exitCode = 1;
	},
);
