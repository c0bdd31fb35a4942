#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { listDeadLetters, replayDeadLetters, type DeadLetterFilter } from './deadLetters';

const USAGE = `Usage: mbb-receiver-queue <list | replay> [options] [event ids...]

  list                 print the dead-lettered events, one JSON line each
  replay --all         send every dead-lettered event back to the queue (attempts reset)
  replay <id>...       send these events back
  replay --since T     send back those that failed since T (and/or --kind K: those of one event kind)

  --since T            only events whose last attempt failed at or after T: an ISO date or time
                       (2026-05-01, 2026-05-01T08:00:00Z) or a time ago (90s, 30m, 6h, 2d)
  --kind KIND          only events of this kind (payment.success, subscriber.new, ...)
  --redis URL          Redis URL (default: $REDIS_URL)
  --prefix PREFIX      BullMQ key prefix (default mbb-receiver)
  --queue NAME         queue name (default deliveries)`;

const AGO_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: an ISO date or time, or a time ago (`6h`); undefined when it is neither. */
export function parseSince(text: string, now = Date.now()): Date | undefined {
	const ago = /^(\d+)([smhd])$/.exec(text);
	if (ago) return new Date(now - Number(ago[1]) * AGO_UNITS_MS[ago[2]]);
	if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined;
	const at = new Date(text);
	return Number.isFinite(at.getTime()) ? at : undefined;
}

/** The `--since` and `--kind` filter, or a usage error's message. */
function filterOf(values: { since?: string; kind?: string }): DeadLetterFilter | string {
	const filter: DeadLetterFilter = {};
	if (values.since !== undefined) {
		const since = parseSince(values.since);
		if (!since) return `--since takes an ISO date or time, or a time ago like 6h, not ${JSON.stringify(values.since)}`;
		filter.since = since;
	}
	if (values.kind !== undefined) {
		if (values.kind === '') return '--kind takes an event kind';
		filter.kind = values.kind;
	}
	return filter;
}

export async function runQueueCli(argv: string[], out: (line: string) => void): Promise<number> {
	const { values, positionals } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: {
			redis: { type: 'string' },
			prefix: { type: 'string' },
			queue: { type: 'string' },
			all: { type: 'boolean' },
			since: { type: 'string' },
			kind: { type: 'string' },
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
	const filter = filterOf(values);
	if (typeof filter === 'string') {
		out(filter);
		return 2;
	}
	const where = { url, prefix: values.prefix, name: values.queue };
	if (command === 'list') {
		for (const letter of await listDeadLetters(where, filter)) out(JSON.stringify(letter));
		return 0;
	}
	if (command === 'replay') return replay(where, values.all === true, ids, filter, out);
	out(USAGE);
	return 2;
}

async function replay(
	where: { url: string; prefix?: string; name?: string },
	all: boolean,
	ids: string[],
	filter: DeadLetterFilter,
	out: (line: string) => void,
): Promise<number> {
	const filtered = filter.since !== undefined || filter.kind !== undefined;
	if (!all && ids.length === 0 && !filtered) {
		out('replay needs --all, event ids, or --since/--kind');
		return 2;
	}
	if (ids.length > 0 && filtered) {
		out('replay takes event ids or --since/--kind, not both');
		return 2;
	}
	// --all replays every dead letter, whatever else is given.
	const which = all ? undefined : ids.length > 0 ? ids : filter;
	const { replayed, notFound } = await replayDeadLetters(where, which);
	out(`replayed ${replayed.length}${replayed.length ? `: ${replayed.join(', ')}` : ''}`);
	if (notFound.length) out(`not dead-lettered: ${notFound.join(', ')}`);
	return notFound.length ? 1 : 0;
}
