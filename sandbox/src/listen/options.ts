import { parseArgs } from 'node:util';
import { EVENT_KINDS } from '@messenger-bot-builder/receiver';

export const LISTEN_USAGE = `Usage: messenger-bot-builder-sandbox listen --forward-to <url> [flags]
  Forwards a running sandbox's events to a local address: makes a hook for it (or reuses the one made before),
  prints its secret as MBB_HOOK_SECRET=whsec_... (the same for the same key and address on every run), then one
  line per delivery attempt; Ctrl+C removes the hook.
  --forward-to <url>            the receiver's address, http(s) (required)
  --events <kind,kind,...>      event kinds to forward (default: all, ${EVENT_KINDS.map((kind) => kind.value).join(', ')})
  --sandbox <url>               the running sandbox (default http://127.0.0.1:8787; /api may be added or left out)
  --key <account key>           the sandbox's account key (default: env MBB_SANDBOX_KEY)
  --keep                        leave the hook in place when stopped (the next run reuses it)
  --poll-interval <ms>          how often the delivery history is read (default 1000)
  --help`;

export interface ListenOptions {
	forwardTo: string;
	events: string[];
	/** The sandbox's root, without /api. */
	sandbox: string;
	key: string;
	keep: boolean;
	pollIntervalMs: number;
}

/** A mistake in the command line: the message names it and the usage follows. */
export class ListenUsageError extends Error {}

function httpUrl(flag: string, value: string): URL {
	let url: URL;
	try {
		url = new URL(value);
	} catch {
		throw new ListenUsageError(`--${flag} must be an absolute http(s) URL, got "${value}"`);
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		throw new ListenUsageError(`--${flag} must be an http or https URL, got "${value}" (${url.protocol.slice(0, -1)})`);
	if (url.username || url.password)
		throw new ListenUsageError(`--${flag} must not carry a user name or password: deliveries would not send them`);
	return url;
}

function eventKinds(value: string | undefined): string[] {
	if (value === undefined) return EVENT_KINDS.map((kind) => kind.value);
	const kinds = [...new Set(value.split(',').map((part) => part.trim()))].filter(Boolean);
	if (kinds.length === 0) throw new ListenUsageError('--events must name at least one event kind');
	return kinds;
}

function pollInterval(value: string | undefined): number {
	if (value === undefined) return 1000;
	const ms = Number(value);
	if (!Number.isInteger(ms) || ms < 50)
		throw new ListenUsageError(`--poll-interval must be whole milliseconds of at least 50, got "${value}"`);
	return ms;
}

/** Reads the flags of `listen`; undefined when --help asked for the usage. */
export function parseListenOptions(argv: string[], env: NodeJS.ProcessEnv): ListenOptions | undefined {
	const { values } = parseArgs({
		args: argv,
		options: {
			'forward-to': { type: 'string' },
			events: { type: 'string' },
			sandbox: { type: 'string' },
			key: { type: 'string' },
			keep: { type: 'boolean' },
			'poll-interval': { type: 'string' },
			help: { type: 'boolean' },
		},
		strict: true,
	});
	if (values.help) return undefined;
	if (values['forward-to'] === undefined) throw new ListenUsageError('--forward-to <url> is required');
	const forwardTo = httpUrl('forward-to', values['forward-to']).href;
	const sandbox = httpUrl('sandbox', values.sandbox ?? 'http://127.0.0.1:8787')
		.href.replace(/\/+$/, '')
		.replace(/\/api$/, '');
	const key = values.key ?? env.MBB_SANDBOX_KEY;
	if (!key)
		throw new ListenUsageError(
			'--key <account key> is required (or set MBB_SANDBOX_KEY): the sandbox printed it at start',
		);
	return {
		forwardTo,
		events: eventKinds(values.events),
		sandbox,
		key,
		keep: values.keep ?? false,
		pollIntervalMs: pollInterval(values['poll-interval']),
	};
}
