#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { listDeadLetters, replayDeadLetters } from './queue';

const USAGE = `Usage: mbb-receiver-queue <list | replay> [options] [event ids...]

  list                 print the dead-lettered events, one JSON line each
  replay --all         send every dead-lettered event back to the queue (attempts reset)
  replay <id>...       send these events back

  --redis URL          Redis URL (default: $REDIS_URL)
  --prefix PREFIX      BullMQ key prefix (default mbb-receiver)
  --queue NAME         queue name (default deliveries)`;

export async function runQueueCli(argv: string[], out: (line: string) => void): Promise<number> {
	const { values, positionals } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: {
			redis: { type: 'string' },
			prefix: { type: 'string' },
			queue: { type: 'string' },
			all: { type: 'boolean' },
			help: { type: 'boolean' },
		},
	});
	const [command, ...ids] = positionals;
	const url = values.redis ?? process.env.REDIS_URL;
	if (values.help || !command) {
		out(USAGE);
		return values.help ? 0 : 2;
	}
	if (!url) {
		out('Give --redis URL (or set REDIS_URL)');
		return 2;
	}
	const where = { url, prefix: values.prefix, name: values.queue };
	if (command === 'list') {
		for (const letter of await listDeadLetters(where)) out(JSON.stringify(letter));
		return 0;
	}
	if (command === 'replay') {
		if (!values.all && ids.length === 0) {
			out('replay needs --all or event ids');
			return 2;
		}
		const { replayed, notFound } = await replayDeadLetters(where, values.all ? undefined : ids);
		out(`replayed ${replayed.length}${replayed.length ? `: ${replayed.join(', ')}` : ''}`);
		if (notFound.length) out(`not dead-lettered: ${notFound.join(', ')}`);
		return notFound.length ? 1 : 0;
	}
	out(USAGE);
	return 2;
}

if (require.main === module) {
	runQueueCli(process.argv.slice(2), (line) => console.log(line)).then(
		(code) => {
			process.exitCode = code;
		},
		(error) => {
			console.error(error instanceof Error ? error.message : error);
			process.exitCode = 1;
		},
	);
}
