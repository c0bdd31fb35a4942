#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { SandboxOptions } from './config';
import { CHAOS_FLAG_OPTIONS, CHAOS_FLAG_USAGE, chaosFromFlags } from './delivery/chaosFlags';
import { listenCommand } from './listen/command';
import { startSandbox } from './server';

const usage = `Usage: messenger-bot-builder-sandbox [flags]
       messenger-bot-builder-sandbox listen --forward-to <url> [flags]   (forward a running sandbox's events; listen --help)
  --host <host>                 address to listen on (default 127.0.0.1)
  --port <port>                 port; 0 picks any free port (default 8787)
  --admin-key <key>             fixed account API key (default: random, printed at start)
  --data <file>                 SQLite file that keeps data across restarts (default: in memory)
  --rate-limit <n>              requests per second per key; 0 = off (default 10)
  --row-cap <n>                 rows per list before the oldest is trimmed (default 10000)
  --timezone <IANA zone>        account time zone: list rows' CreationDate, statistics days and date filters (default UTC)
  --retry-schedule <s,s,...>    seconds between hook redeliveries (default 5,30,120,600,3600)
  --delivery-timeout <ms>       time a hook receiver has to answer (default 10000)
  --signing <HS256|ES256|EdDSA|v1a> JWT algorithm of deliveries, or v1a: Standard Webhooks Ed25519 only (default HS256)
  --broadcast-interval <ms>     pause between two messages of a broadcast (default 1000)
  --no-seed                     start empty, without demo data
  --verbose                     log every request
  Variants (play the service differently where its documentation is silent):
  --max-page <n>                largest page (limit) of list methods, 1 to 1000 (default 1000)
  --max-page-mode <cap|reject>  above it: serve the largest page silently, or refuse with 422 on limit (default reject)
  --omit-total                  list answers without total
  --retry-after <seconds|none>  429 answers with or without the Retry-After header (default seconds)
  --fail-reads <rate>           share (0 to 1) of reads answered with a transient 503 (default 0)
  --list-shape <items|bare|named>  list records under items, as a bare array, or under the resource's name (default items)
${CHAOS_FLAG_USAGE}
  --help`;

function fail(message: string): never {
	console.error(`sandbox: ${message}\n\n${usage}`);
	process.exit(2);
}

function numberFlag(name: string, value: string | undefined, min = 0): number | undefined {
	if (value === undefined) return undefined;
	const parsed = Number(value);
	if (!Number.isFinite(parsed) || parsed < min) fail(`--${name} must be a number of at least ${min}, got "${value}"`);
	return parsed;
}

/** `--retry-schedule`: seconds, comma-separated. */
function scheduleFlag(value: string | undefined): number[] | undefined {
	return value?.split(',').map((part) => numberFlag('retry-schedule', part.trim()) as number);
}

function parseOptions(argv: string[]): SandboxOptions {
	const { values } = parseArgs({
		args: argv,
		options: {
			host: { type: 'string' },
			port: { type: 'string' },
			'admin-key': { type: 'string' },
			data: { type: 'string' },
			'rate-limit': { type: 'string' },
			'row-cap': { type: 'string' },
			timezone: { type: 'string' },
			'retry-schedule': { type: 'string' },
			'delivery-timeout': { type: 'string' },
			signing: { type: 'string' },
			'broadcast-interval': { type: 'string' },
			seed: { type: 'boolean', default: true },
			'no-seed': { type: 'boolean' },
			verbose: { type: 'boolean' },
			'max-page': { type: 'string' },
			'max-page-mode': { type: 'string' },
			'omit-total': { type: 'boolean' },
			'retry-after': { type: 'string' },
			'fail-reads': { type: 'string' },
			'list-shape': { type: 'string' },
			...CHAOS_FLAG_OPTIONS,
			help: { type: 'boolean' },
		},
		strict: true,
	});
	if (values.help) {
		console.log(usage);
		process.exit(0);
	}
	const timezone = values.timezone;
	if (timezone !== undefined) {
		try {
			new Intl.DateTimeFormat('en-GB', { timeZone: timezone });
		} catch {
			fail(`--timezone must be an IANA time zone such as Europe/Berlin, got "${timezone}"`);
		}
	}
	const signing = values.signing;
	if (signing !== undefined && !['HS256', 'ES256', 'EdDSA', 'v1a'].includes(signing))
		fail('--signing must be HS256, ES256, EdDSA or v1a');
	const choice = <T extends string>(name: string, allowed: readonly T[]): T | undefined => {
		const value = values[name as keyof typeof values] as string | undefined;
		if (value !== undefined && !(allowed as readonly string[]).includes(value))
			fail(`--${name} must be ${allowed.join(' or ')}`);
		return value as T | undefined;
	};
	const maxPage = numberFlag('max-page', values['max-page'], 1);
	if (maxPage !== undefined && (!Number.isInteger(maxPage) || maxPage > 1000))
		fail('--max-page must be a whole number from 1 to 1000');
	const failReads = numberFlag('fail-reads', values['fail-reads']);
	if (failReads !== undefined && failReads > 1) fail('--fail-reads must be a share from 0 to 1, e.g. 0.1');
	return {
		host: values.host,
		port: numberFlag('port', values.port),
		adminKey: values['admin-key'],
		dataFile: values.data,
		rateLimit: numberFlag('rate-limit', values['rate-limit']),
		rowCap: numberFlag('row-cap', values['row-cap'], 1),
		timezone,
		retrySchedule: scheduleFlag(values['retry-schedule']),
		deliveryTimeoutMs: numberFlag('delivery-timeout', values['delivery-timeout'], 1),
		signingAlgorithm: signing as SandboxOptions['signingAlgorithm'],
		broadcastIntervalMs: numberFlag('broadcast-interval', values['broadcast-interval']),
		seed: !values['no-seed'],
		verbose: values.verbose,
		maxPage,
		maxPageMode: choice('max-page-mode', ['cap', 'reject'] as const),
		omitTotal: values['omit-total'],
		retryAfter: choice('retry-after', ['seconds', 'none'] as const),
		failReads,
		listShape: choice('list-shape', ['items', 'bare', 'named'] as const),
		deliveryChaos: chaosFromFlags(values),
	};
}

async function main(): Promise<void> {
	if (process.argv[2] === 'listen') process.exit(await listenCommand(process.argv.slice(3)));
	let options: SandboxOptions;
	try {
		options = parseOptions(process.argv.slice(2));
	} catch (error) {
		fail((error as Error).message);
	}
	const sandbox = await startSandbox(options);
	console.log(`Sandbox ready: ${sandbox.baseUrl}`);
	console.log(`Account API key: ${sandbox.adminKey}`);
	console.log(`Console: ${sandbox.baseUrl.replace(/\/api$/, '')}/console/`);
	if (options.dataFile) console.log(`Data file: ${options.dataFile}`);
	const shutdown = () => {
		sandbox.close().then(
			() => process.exit(0),
			() => process.exit(1),
		);
	};
	process.on('SIGINT', shutdown);
	process.on('SIGTERM', shutdown);
}

main().catch((error) => {
	const listen = error as NodeJS.ErrnoException & { port?: number; address?: string };
	if (listen.code === 'EADDRINUSE') {
		console.error(
			`sandbox: port ${listen.port} is already in use on ${listen.address}; choose another with --port (--port 0 takes any free port)`,
		);
	} else {
		console.error(`sandbox: ${(error as Error).message}`);
	}
	process.exit(1);
});
