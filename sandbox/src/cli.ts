#!/usr/bin/env node
import { parseArgs } from 'node:util';
import type { SandboxOptions } from './config';
import { startSandbox } from './server';

const usage = `Usage: messenger-bot-builder-sandbox [flags]
  --host <host>                 address to listen on (default 127.0.0.1)
  --port <port>                 port; 0 picks any free port (default 8787)
  --admin-key <key>             fixed account API key (default: random, printed at start)
  --data <file>                 SQLite file that keeps data across restarts (default: in memory)
  --rate-limit <n>              requests per second per key; 0 = off (default 10)
  --row-cap <n>                 rows per list before the oldest is trimmed (default 10000)
  --timezone <IANA zone>        account time zone: list rows' CreationDate, statistics days and date filters (default UTC)
  --retry-schedule <s,s,...>    seconds between hook redeliveries (default 5,30,120,600,3600)
  --delivery-timeout <ms>       time a hook receiver has to answer (default 10000)
  --signing <HS256|ES256|EdDSA> JWT algorithm of deliveries (default HS256)
  --broadcast-interval <ms>     pause between two messages of a broadcast (default 1000)
  --no-seed                     start empty, without demo data
  --verbose                     log every request
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
  if (signing !== undefined && !['HS256', 'ES256', 'EdDSA'].includes(signing)) fail('--signing must be HS256, ES256 or EdDSA');
  const retrySchedule = values['retry-schedule']?.split(',').map((part) => numberFlag('retry-schedule', part.trim()) as number);
  return {
    host: values.host,
    port: numberFlag('port', values.port),
    adminKey: values['admin-key'],
    dataFile: values.data,
    rateLimit: numberFlag('rate-limit', values['rate-limit']),
    rowCap: numberFlag('row-cap', values['row-cap'], 1),
    timezone,
    retrySchedule,
    deliveryTimeoutMs: numberFlag('delivery-timeout', values['delivery-timeout'], 1),
    signingAlgorithm: signing as SandboxOptions['signingAlgorithm'],
    broadcastIntervalMs: numberFlag('broadcast-interval', values['broadcast-interval']),
    seed: !values['no-seed'],
    verbose: values.verbose,
  };
}

async function main(): Promise<void> {
  let options: SandboxOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    fail((error as Error).message);
  }
  const sandbox = await startSandbox(options);
  console.log(`Sandbox ready: ${sandbox.baseUrl}`);
  console.log(`Account API key: ${sandbox.adminKey}`);
  if (options.dataFile) console.log(`Data file: ${options.dataFile}`);
  const shutdown = () => {
    sandbox.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}

main().catch((error) => {
  console.error(`sandbox: ${(error as Error).message}`);
  process.exit(1);
});
