import { MAX_PLAY_WAIT_MS, PLAYERS } from '../answer/players';
import { MAX_CHAOS_SEED, MAX_CHAOS_WAIT_MS } from '../delivery/chaos';
import { CHAT_PREVIEW_LENGTH } from '../http/consoleChats';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/params';
import {
	anyObject,
	arrayOf,
	bool,
	describe,
	int,
	isoTime,
	nullable,
	num,
	object,
	ref,
	str,
	strings,
	type Schema,
} from './schema';

/** A route the sandbox serves outside /api (all of them are its own: none is in the service's documentation). */
export interface RouteContract {
	method: 'get' | 'post';
	path: string;
	tag: 'Sandbox' | 'Console';
	summary: string;
	extension: string;
	security?: Record<string, string[]>[];
	parameters?: Schema[];
	body?: Schema;
	answer: Schema | 'html';
	/** True when it answers errors in the API's `{code, error}` form. */
	errors?: boolean;
	otherResponses?: Record<string, unknown>;
}

const CONTROL = "A control route of the sandbox (account key, or the console's session).";
const CONSOLE = "The sandbox's browser console.";
const controlSecurity: Record<string, string[]>[] = [{ accountKey: [] }, { consoleSession: [] }];
const consoleSecurity = [{ consoleSession: [] }];

/** A page of a list (query string or JSON body). */
const PAGE: Record<string, Schema> = {
	limit: describe({ type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE }, `Page size: default ${DEFAULT_PAGE_SIZE}.`),
	offset: describe({ type: 'integer', minimum: 0 }, 'Items to skip.'),
};
const queryParameters = (params: Record<string, Schema>) =>
	Object.entries(params).map(([name, schema]) => ({ name, in: 'query', required: false, schema }));

/** The filter and page of /sandbox/deliveries. */
const DELIVERY_FILTER: Record<string, Schema> = {
	hook: describe(str, 'One hook.'),
	status: { enum: ['pending', 'delivered', 'failed', 'cancelled'] },
	...PAGE,
};

const rate = (what: string) => describe({ type: 'number', minimum: 0, maximum: 1 }, `Share of deliveries ${what}.`);
const waitMs = (what: string) => describe({ type: 'integer', minimum: 0, maximum: MAX_CHAOS_WAIT_MS }, what);

/** The delivery chaos settings (docs/delivery-chaos.md), as POST /sandbox/chaos takes them and both routes answer. */
const CHAOS_SETTINGS: Record<string, Schema> = {
	duplicate: rate('whose first attempt is two concurrent POSTs of the same event'),
	reorder: rate('held back until a later delivery of the hook has been sent'),
	delay: rate('whose first attempt leaves delayMs late'),
	cut: rate('whose first attempt has its connection destroyed once the request is sent'),
	slow: rate("whose first attempt's answer counts as later than its timeout"),
	delayMs: waitMs('How late a delayed delivery leaves.'),
	holdMs: waitMs('Longest hold of a reordered delivery.'),
	seed: describe(
		{ type: 'integer', minimum: 0, maximum: MAX_CHAOS_SEED },
		'Chooses the deliveries: the same seed and events choose the same ones.',
	),
};

export const outsideApiRoutes: RouteContract[] = [
	{
		method: 'get',
		path: '/',
		tag: 'Sandbox',
		summary: 'What is running here (a browser asking for HTML is sent to the console)',
		extension: "The sandbox's own front door.",
		answer: object({ service: str, api: str, version: str, console: str, openapi: str }),
		otherResponses: { '302': { description: 'To /console/, when the client accepts text/html' } },
	},
	{
		method: 'get',
		path: '/openapi.json',
		tag: 'Sandbox',
		summary: 'This document',
		extension: 'The sandbox publishes its contract.',
		answer: object(
			{ openapi: str, info: anyObject, servers: arrayOf(anyObject), paths: anyObject, components: anyObject },
			{},
			true,
		),
	},
	{
		method: 'get',
		path: '/.well-known/jwks.json',
		tag: 'Sandbox',
		summary: 'Public keys of ES256/EdDSA delivery signatures',
		extension: "Signature keys are not in the service's documentation.",
		answer: object({ keys: arrayOf(object({ kty: str, kid: str, alg: str, use: str }, {}, true)) }),
	},
	{
		method: 'get',
		path: '/files/catalog/{token}',
		tag: 'Sandbox',
		summary: 'A catalog file behind a download link from /catalog/get',
		extension: "The file's format is not in the service's documentation.",
		parameters: [{ name: 'token', in: 'path', required: true, schema: str }],
		answer: object({ webapp: object({ id: str, name: str }), generated: isoTime, items: arrayOf(ref('CatalogItem')) }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/clock',
		tag: 'Sandbox',
		summary: "Move the sandbox's business time forward",
		extension: CONTROL,
		security: controlSecurity,
		body: object({ advanceSeconds: num }),
		answer: object({ now: isoTime }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/payments',
		tag: 'Sandbox',
		summary: 'Simulate a payment: emits payment.success',
		extension: CONTROL,
		security: controlSecurity,
		body: {
			type: 'object',
			properties: {
				botid: str,
				clientid: str,
				messenger: str,
				amount: { type: ['number', 'string'] },
				currency: str,
				description: str,
			},
			required: ['botid', 'clientid', 'messenger', 'amount', 'currency'],
		},
		answer: object({ payment: ref('Payment') }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/reset',
		tag: 'Sandbox',
		summary: "Back to a new data file's state (demo data unless --no-seed); the account key and snapshots stay",
		extension: CONTROL,
		security: controlSecurity,
		answer: object({ ok: { const: true } }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/snapshot',
		tag: 'Sandbox',
		summary: "Copy the whole state (kept in the data file); answers the snapshot's id",
		extension: CONTROL,
		security: controlSecurity,
		answer: object({
			snapshot: describe({ type: 'string', pattern: '^snap_[1-9][0-9]*$' }, 'Give it to /sandbox/restore.'),
		}),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/restore',
		tag: 'Sandbox',
		summary: "Replace the whole state by a snapshot's (clock included); an unknown snapshot is a 404",
		extension: CONTROL,
		security: controlSecurity,
		body: object({ snapshot: describe({ type: 'string', maxLength: 200 }, 'An id from /sandbox/snapshot.') }),
		answer: object({ ok: { const: true }, snapshot: str }),
		errors: true,
	},
	...(['get', 'post'] as const).map((method): RouteContract => ({
		method,
		path: '/sandbox/deliveries',
		tag: 'Sandbox',
		summary:
			"Delivery history, newest first, with every attempt: the headers sent, their signature schemes, latency and the receiver's answer",
		extension: CONTROL,
		security: controlSecurity,
		...(method === 'get'
			? { parameters: queryParameters(DELIVERY_FILTER) }
			: { body: { ...object(DELIVERY_FILTER), required: [] } }),
		answer: object({ items: arrayOf(ref('SandboxDelivery')), total: int }),
		errors: true,
	})),
	{
		method: 'get',
		path: '/sandbox/chaos',
		tag: 'Sandbox',
		summary: 'The delivery chaos settings in force (every rate 0: off)',
		extension: CONTROL,
		security: controlSecurity,
		answer: object({ chaos: object(CHAOS_SETTINGS) }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/chaos',
		tag: 'Sandbox',
		summary:
			"Replace the delivery chaos settings for deliveries queued from now on: settings not named take their defaults (rates 0, a new random seed); the seed's draws start again",
		extension: CONTROL,
		security: controlSecurity,
		body: { ...object(CHAOS_SETTINGS), required: [] },
		answer: object({ chaos: object(CHAOS_SETTINGS) }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/deliveries/redeliver',
		tag: 'Sandbox',
		summary:
			'Send a delivery again now, whatever its state (given-up ones included); a finished one gets one attempt. 404 unknown delivery, 409 an attempt under way, 422 its hook deleted or disabled',
		extension: CONTROL,
		security: controlSecurity,
		body: object({ id: describe({ type: 'string', maxLength: 200 }, 'A delivery id (dlv_...).') }),
		answer: object({ delivery: ref('SandboxDelivery') }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/hooks/secret',
		tag: 'Sandbox',
		summary:
			"Give a hook a secret the caller chose (listen's stable secret; nothing secret is answered). 422 not_found an unknown hook, invalid_param a malformed secret, param_conflict a hook made under --signing v1a",
		extension: CONTROL,
		security: controlSecurity,
		body: object({
			id: describe({ type: 'string', maxLength: 200 }, 'A hook id (hook_...).'),
			secret: describe(
				{ type: 'string', pattern: '^whsec_[A-Za-z0-9+/]+={0,2}$' },
				'"whsec_" and the base64 of 24 to 64 bytes.',
			),
		}),
		answer: object({ ok: { const: true }, id: str }),
		errors: true,
	},
	{
		method: 'post',
		path: '/sandbox/answer',
		tag: 'Sandbox',
		summary:
			"Open the link buttons of a subscriber's message as the subscriber (answer on the page: which button, what text or form values, after how long), a link preview (GET and HEAD only) or a clicking scanner (every control pressed in order); answers every request made and what came back. 422 for what the page cannot take, 502 link_unreachable a link that did not answer",
		extension: CONTROL,
		security: controlSecurity,
		body: {
			...object({
				botid: str,
				clientid: str,
				message: describe(
					{ type: 'integer', minimum: 1 },
					'A message id of the chat: default, the newest bot message with link buttons.',
				),
				button: describe(
					str,
					"The button's text: required for the subscriber when the message has several; default for the others: every button.",
				),
				as: describe({ enum: [...PLAYERS] }, 'Who opens the links: default subscriber.'),
				text: describe(str, "The subscriber types it in the page's only text box."),
				fields: describe(
					{ type: 'object', additionalProperties: { type: ['string', 'number', 'null'] } },
					"Form values by the field's label; a dropdown's by its option's text; null leaves a field empty.",
				),
				afterMs: describe(
					{ type: 'integer', minimum: 0, maximum: MAX_PLAY_WAIT_MS },
					'How long the subscriber reads the page before pressing: default, until the page says a press counts.',
				),
				pauseMs: describe(
					{ type: 'integer', minimum: 0, maximum: MAX_PLAY_WAIT_MS },
					"The scanner's pause before each press: default 2000.",
				),
			}),
			required: ['botid', 'clientid'],
		},
		answer: object({
			as: { enum: [...PLAYERS] },
			message: int,
			buttons: arrayOf(object({ name: str, url: str })),
			steps: arrayOf({
				...object({
					action: { enum: ['open', 'preview', 'press'] },
					method: str,
					url: str,
					control: object({ text: str, hidden: bool }),
					status: int,
					heading: str,
					text: strings,
					at: isoTime,
				}),
				required: ['action', 'method', 'url', 'status', 'heading', 'text', 'at'],
			}),
		}),
		errors: true,
		otherResponses: {
			'502': { description: 'A link that did not answer', content: { 'application/json': { schema: ref('Error') } } },
		},
	},
	{
		method: 'get',
		path: '/console',
		tag: 'Console',
		summary: "The console page, at /console/ (loopback clients, the sandbox's own Host only)",
		extension: CONSOLE,
		answer: 'html',
		errors: true,
	},
	{
		method: 'get',
		path: '/console/overview',
		tag: 'Console',
		summary: 'Settings, clock, keys and hooks for the console (keys and secrets masked)',
		extension: CONSOLE,
		security: consoleSecurity,
		answer: object({
			service: object({ api: str, now: isoTime, accountKey: str }),
			settings: object({}, {}, true),
			keys: arrayOf(
				object({
					id: str,
					name: str,
					key: str,
					scopes: strings,
					bots: strings,
					expires: nullable(isoTime),
					revoked: bool,
				}),
			),
			hooks: arrayOf(
				object({ id: str, name: str, url: str, events: strings, secret: str, disabled: bool, bots: strings }),
			),
			webapps: arrayOf(object({ id: str, name: str })),
			counts: object({
				bots: int,
				subscribers: int,
				lists: int,
				rows: int,
				items: int,
				hooks: int,
				deliveries: int,
				log: int,
			}),
		}),
		errors: true,
	},
	{
		method: 'get',
		path: '/console/chats',
		tag: 'Console',
		summary:
			'Every subscriber with the size of its chat and its latest message (a preview), the chat written to last first; subscribers without messages after them, newest first',
		extension: CONSOLE,
		security: consoleSecurity,
		parameters: queryParameters(PAGE),
		answer: object({
			items: arrayOf(
				object({
					botid: str,
					clientid: str,
					messenger: str,
					name: str,
					active: bool,
					blocked: bool,
					messages: int,
					last: nullable(
						object({
							direction: { enum: ['out', 'in'] },
							preview: describe(str, `The first ${CHAT_PREVIEW_LENGTH} characters, then an ellipsis.`),
							buttons: int,
							time: isoTime,
						}),
					),
				}),
			),
			total: int,
		}),
		errors: true,
	},
	{
		method: 'post',
		path: '/console/call',
		tag: 'Console',
		summary:
			'Run an API method as the account, for the console: reads, /subscriber/create and /crm/stage/set; not rate-limited, not in the API log',
		extension: `${CONSOLE} The answer is the method's own (see its path under /api).`,
		security: consoleSecurity,
		body: object({ method: describe(str, 'An API path, e.g. /subscriber/list'), params: anyObject }),
		answer: anyObject,
		errors: true,
	},
];
