import { parseArgs } from 'node:util';
import { isKnownEventType, KNOWN_EVENT_TYPES } from '../../nodes/shared/delivery';
import { sampleEvent } from './samples';
import { decodeHookSecret, generateHookSecret } from './secret';
import { signDelivery } from './sign';

export const SEND_EVENT_USAGE = `Usage: mbb-send-event <url> [options]

Sends a signed sample event to a receiver, as the service would (for local development).

Options:
  --secret <whsec_...>   hook secret the receiver is configured with (or env MBB_HOOK_SECRET)
  --type <kind>          event kind (default subscriber.new; known: ${KNOWN_EVENT_TYPES.join(', ')};
                         any other kind is sent with placeholder data)
  --hook <id>            hook id: the JWT audience and the body's "hook" (default hook_local)
  --id <evt_...>         event id (default random; send the same id twice to see deduplication)
  --data <json>          JSON object merged into the sample's "data"
  --scheme <scheme>      both (default), jwt or standard-webhooks
  --times <n>            send the same delivery n times (default 1): a repeat, which the receiver
                         answers 200 with "duplicate": true and does not emit again

Deliveries a receiver must refuse (to see its refusals and their hints):
  --tamper               change the body after signing (the payment's amount, or a field of
                         "data"), as a proxy or a bug on the way would: the signature no longer
                         matches (JWT: body_hash_mismatch; Standard Webhooks: invalid_signature)
  --wrong-secret         sign with a new random secret instead of the hook's: invalid_signature
  --age <seconds>        sign as if sent that long ago (e.g. 3600: an old timestamp, or clocks
                         apart): JWT expired; Standard Webhooks timestamp_out_of_tolerance

  --print                print the request instead of sending it
  --generate-secret      print a new hook secret and exit
  -h, --help             show this help`;

type Scheme = 'both' | 'jwt' | 'standard-webhooks';

export interface SendEventIo {
	out(line: string): void;
	env: Record<string, string | undefined>;
}

class UsageError extends Error {}

interface SendOptions {
	mode: 'send';
	url: URL;
	secret: string;
	scheme: Scheme;
	times: number;
	data?: Record<string, unknown>;
	type: string;
	hook: string;
	id?: string;
	print: boolean;
	tamper: boolean;
	wrongSecret: boolean;
	ageSeconds: number;
}

function readOptions(argv: string[], env: SendEventIo['env']): { mode: 'help' } | { mode: 'generate' } | SendOptions {
	const { values, positionals } = parseArgs({
		args: argv,
		allowPositionals: true,
		options: {
			secret: { type: 'string' },
			type: { type: 'string', default: 'subscriber.new' },
			hook: { type: 'string', default: 'hook_local' },
			id: { type: 'string' },
			data: { type: 'string' },
			scheme: { type: 'string', default: 'both' },
			times: { type: 'string', default: '1' },
			print: { type: 'boolean', default: false },
			tamper: { type: 'boolean', default: false },
			'wrong-secret': { type: 'boolean', default: false },
			age: { type: 'string', default: '0' },
			'generate-secret': { type: 'boolean', default: false },
			help: { type: 'boolean', short: 'h', default: false },
		},
	});
	if (values.help) return { mode: 'help' };
	if (values['generate-secret']) return { mode: 'generate' };

	if (positionals.length !== 1) throw new UsageError('Give exactly one receiver URL');
	let url: URL;
	try {
		url = new URL(positionals[0]);
	} catch {
		throw new UsageError('url must be an absolute http(s) URL');
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:')
		throw new UsageError('url must be an absolute http(s) URL');
	const secret = values.secret ?? env.MBB_HOOK_SECRET;
	if (!secret) throw new UsageError('--secret (or MBB_HOOK_SECRET) is required');
	try {
		decodeHookSecret(secret, '--secret');
	} catch (error) {
		throw new UsageError((error as Error).message);
	}
	const scheme = values.scheme as Scheme;
	if (!['both', 'jwt', 'standard-webhooks'].includes(scheme))
		throw new UsageError('--scheme must be both, jwt or standard-webhooks');
	const times = Number(values.times);
	if (!Number.isInteger(times) || times < 1 || times > 1000)
		throw new UsageError('--times must be a whole number from 1 to 1000');
	const ageSeconds = Number(values.age);
	if (!Number.isInteger(ageSeconds) || ageSeconds < 0)
		throw new UsageError('--age must be a whole number of seconds, 0 or more');
	let data: Record<string, unknown> | undefined;
	if (values.data !== undefined) {
		try {
			data = JSON.parse(values.data);
		} catch {
			throw new UsageError('--data must be a JSON object');
		}
		if (data === null || typeof data !== 'object' || Array.isArray(data))
			throw new UsageError('--data must be a JSON object');
	}
	return {
		mode: 'send',
		url,
		secret,
		scheme,
		times,
		data,
		type: values.type,
		hook: values.hook,
		id: values.id,
		print: values.print,
		tamper: values.tamper,
		wrongSecret: values['wrong-secret'],
		ageSeconds,
	};
}

function pickScheme(headers: Record<string, string>, scheme: Scheme): Record<string, string> {
	if (scheme === 'both') return headers;
	const { 'x-signature': jwt, ...standardWebhooks } = headers;
	return scheme === 'jwt' ? { 'x-signature': jwt } : standardWebhooks;
}

/**
 * The body as a proxy or a bug on the way would change it: the same event (same id, still compact JSON), one value
 * of "data" different: its first number plus one (a payment's amount), else its first text with "!" added (both
 * searched depth first); a "data" with neither gets a new field.
 */
export function tamperedBody(event: { data: Record<string, unknown> }): string {
	const changed = structuredClone(event);
	const changeFirst = (object: Record<string, unknown>, kind: 'number' | 'string'): boolean =>
		Object.keys(object).some((key) => {
			const value = object[key];
			if (typeof value === kind) {
				object[key] = kind === 'number' ? (value as number) + 1 : `${value as string}!`;
				return true;
			}
			return value !== null && typeof value === 'object' && changeFirst(value as Record<string, unknown>, kind);
		});
	if (!changeFirst(changed.data, 'number') && !changeFirst(changed.data, 'string')) changed.data.tampered = true;
	return JSON.stringify(changed);
}

/** Runs the command; resolves to the process exit code (0 when every delivery got a 2xx). */
export async function runSendEvent(argv: string[], io: SendEventIo): Promise<number> {
	let options: ReturnType<typeof readOptions>;
	try {
		options = readOptions(argv, io.env);
	} catch (error) {
		if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
		io.out(`error: ${(error as Error).message}\n\n${SEND_EVENT_USAGE}`);
		return 2;
	}
	if (options.mode === 'help') {
		io.out(SEND_EVENT_USAGE);
		return 0;
	}
	if (options.mode === 'generate') {
		io.out(generateHookSecret());
		return 0;
	}

	const event = sampleEvent(options.type, { id: options.id, hook: options.hook, data: options.data });
	const signedBody = JSON.stringify(event);
	const body = options.tamper ? tamperedBody(event) : signedBody;
	if (!isKnownEventType(event.type)) io.out(`note: ${event.type} is not a known kind; the receiver passes it to onAny`);
	const secret = options.wrongSecret ? generateHookSecret() : options.secret;
	let failures = 0;
	for (let attempt = 1; attempt <= options.times; attempt += 1) {
		const timestamp = Math.floor(Date.now() / 1000) - options.ageSeconds;
		const signature = await signDelivery({
			body: signedBody,
			eventId: event.id,
			hookId: event.hook,
			secret,
			timestamp,
		});
		const headers = { 'content-type': 'application/json', ...pickScheme(signature, options.scheme) };
		if (options.print) {
			io.out(JSON.stringify({ method: 'POST', url: options.url.href, headers, body }, null, 2));
			continue;
		}
		try {
			const response = await fetch(options.url, {
				method: 'POST',
				headers,
				body,
				redirect: 'manual',
				signal: AbortSignal.timeout(10_000),
			});
			const text = await response.text();
			io.out(`${event.type} ${event.id} -> ${response.status} ${text.slice(0, 500)}`);
			if (response.status < 200 || response.status >= 300) failures += 1;
		} catch (error) {
			const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
			io.out(`${event.type} ${event.id} -> no answer (${cause})`);
			failures += 1;
		}
	}
	return failures === 0 ? 0 : 1;
}
