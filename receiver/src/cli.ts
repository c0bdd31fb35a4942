#!/usr/bin/env node
import { runSendEvent } from './sendEvent';

runSendEvent(process.argv.slice(2), { out: (line) => console.log(line), env: process.env }).then(
	(code) => {
		process.exitCode = code;
	},
	(error) => {
		console.error(error);
		process.exitCode = 1;
	},
);
