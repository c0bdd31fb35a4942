#!/usr/bin/env node
import { runQueueCli } from './queueCli';

// The command's own output: its lines to stdout, a failure's message to stderr.
runQueueCli(process.argv.slice(2), (line) => process.stdout.write(`${line}\n`)).then(
	(code) => {
		process.exitCode = code;
	},
	(error) => {
		process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
		process.exitCode = 1;
	},
);
