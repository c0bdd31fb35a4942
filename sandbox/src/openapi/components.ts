import { EVENT_KINDS } from '@messenger-bot-builder/receiver';
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
	oneOf,
	ref,
	sandbox,
	scalar,
	sandboxObject,
	str,
	strings,
	type Schema,
} from './schema';

/** The documented event kinds' values, as the hook and delivery schemas enumerate them. */
export const EVENT_KIND_VALUES = EVENT_KINDS.map((kind) => kind.value);

export const apiKeyProperties: Record<string, Schema> = {
	id: str,
	name: str,
	scopes: strings,
	bots: strings,
	created: isoTime,
	expires: nullable(isoTime),
	revoked: bool,
};

export const hookProperties: Record<string, Schema> = {
	id: str,
	name: str,
	url: str,
	events: arrayOf({ enum: EVENT_KIND_VALUES }),
	created: isoTime,
};
const numberOrString = oneOf(num, str);

/** An attempt of a delivery as every view shows it; the control routes' view adds to it. */
const attemptProperties: Record<string, Schema> = {
	n: int,
	id: describe(str, 'The attempt id: the `jti` claim of its JWT.'),
	at: isoTime,
	status: describe(nullable(int), "The receiver's HTTP status; null when it did not answer."),
	error: nullable(str),
	durationMs: num,
};

/** A delivery as /hook/deliveries shows it; the control routes' view adds to it. */
const deliveryProperties: Record<string, Schema> = {
	id: str,
	hook: str,
	status: { enum: ['pending', 'delivered', 'failed', 'cancelled'] },
	event: ref('Event'),
	nextAttempt: nullable(isoTime),
	attempts: arrayOf(ref('DeliveryAttempt')),
	outcome: nullable(str),
};

/** Records the answers share, as `#/components/schemas/<name>`. */
/** A field the documentation names without promising that every record carries it (optional, sent by the sandbox). */
const namedField = (schema: Schema): Schema =>
	sandbox(
		schema,
		'Named by the documentation; whether every card carries it is not shown. The sandbox always sends it.',
	);

export const componentSchemas: Record<string, Schema> = {
	Error: {
		type: 'object',
		description:
			'Every error answer: a machine-readable `code` and a human-readable `error`. The sandbox adds `param` (the parameter at fault), `scope` (the missing scope of a 403), `retryAfter` (seconds, on 429), `max` (the largest value or count allowed) and `column` (an unknown column) where they apply.',
		properties: {
			code: str,
			error: str,
			param: sandbox(str),
			scope: sandbox(str),
			retryAfter: sandbox(num),
			max: sandbox(int),
			column: sandbox(str),
		},
		required: ['code', 'error'],
	},
	Subscriber: object(
		{
			botid: str,
			clientid: str,
			messenger: str,
		},
		{
			// Named by the documentation, which does not promise that every card carries them (a messenger without
			// nicknames, an empty note): optional, so that a generated client handles a card without them.
			name: namedField(str),
			username: namedField(str),
			note: namedField(str),
			tags: namedField(strings),
			active: namedField(bool),
			blocked: namedField(bool),
			dialog: namedField(bool),
			id: describe(int, 'Internal card number (`subscriber` in /subscriber/get).'),
			stage: nullable(str),
			// Named by the documentation, but not their field names or formats: optional, so that a generated client
			// does not count on what the service may spell otherwise.
			subscribed: sandbox(
				isoTime,
				"The documentation names a subscription date; its field name and format are the sandbox's.",
			),
			variables: sandbox(
				{ type: 'object', additionalProperties: { type: 'object', additionalProperties: scalar } },
				'Variables grouped by chain code: chain code to (variable name to value).',
			),
		},
	),
	Bot: sandboxObject({ id: str, name: str, messenger: str, group: str, username: str, created: isoTime }),
	Group: sandboxObject({ code: str, name: str }),
	Chain: sandbox({
		type: 'object',
		properties: {
			code: str,
			name: str,
			botid: str,
			trigger: nullable(str),
			steps: arrayOf(object({ code: str, name: str, blocks: arrayOf(object({ id: str, text: str })) })),
		},
		required: ['code', 'name', 'botid'],
	}),
	List: object({ id: int, name: str, headers: strings, count: int }, { group: nullable(str) }),
	Row: object({
		id: int,
		values: describe(arrayOf(scalar), 'Values in column order.'),
		row: describe({ type: 'object', additionalProperties: scalar }, 'Column name to value.'),
		created: isoTime,
	}),
	CatalogItem: sandbox({
		type: 'object',
		properties: {
			id: num,
			webappid: str,
			title: str,
			description: str,
			price: nullable(numberOrString),
			oldprice: str,
			hide: bool,
			pieces: str,
			code: str,
			rubric: str,
			szpieces: str,
			sizes: str,
			colors: str,
			order: nullable(numberOrString),
			created: isoTime,
			updated: isoTime,
		},
		required: ['id', 'title', 'price', 'hide'],
		additionalProperties: false,
	}),
	ChatMessage: sandboxObject({
		id: int,
		direction: { enum: ['out', 'in'] },
		text: str,
		buttons: arrayOf(object({ name: str, url: str })),
		source: { enum: ['api', 'broadcast', 'chain', 'subscriber'] },
		origin: nullable(str),
		time: isoTime,
	}),
	ChainRun: sandboxObject({
		chaincode: str,
		name: nullable(str),
		step: str,
		block: str,
		started: isoTime,
		by: str,
		next: { anyOf: [object({ step: str, at: isoTime }), { type: 'null' }] },
	}),
	LogEntry: sandboxObject({
		id: int,
		time: isoTime,
		method: str,
		path: str,
		status: int,
		failed: bool,
		code: nullable(str),
		keyId: nullable(str),
		durationMs: num,
	}),
	ApiKey: sandboxObject(apiKeyProperties),
	Hook: sandboxObject(hookProperties),
	DeliveryAttempt: sandboxObject(
		attemptProperties,
		"An attempt as the API shows it: no headers (signatures), no receiver's answer.",
	),
	Delivery: sandboxObject(deliveryProperties),
	SandboxDeliveryAttempt: sandboxObject(
		{
			...attemptProperties,
			latencyMs: describe(num, 'The same figure as durationMs, under the name the delivery history uses.'),
			headers: describe(
				nullable({ type: 'object', additionalProperties: str }),
				'Every header the attempt sent, signatures included; null for attempts recorded before headers were kept.',
			),
			schemes: describe(
				strings,
				'The signature schemes the headers carry: `jwt-<alg>` (X-Signature), `standard-webhooks-v1`.',
			),
			responseBody: describe(
				nullable(str),
				"The start of the receiver's answer (at most 2048 characters); null when it did not answer.",
			),
		},
		'An attempt as the control routes show it (account key or console only): also what was sent and what came back.',
	),
	SandboxDelivery: sandboxObject(
		{
			...deliveryProperties,
			attempts: arrayOf(ref('SandboxDeliveryAttempt')),
			type: { enum: EVENT_KIND_VALUES },
			created: describe(isoTime, 'Business time the event happened.'),
			body: describe(str, 'The exact raw body every attempt sends.'),
			chaos: describe(strings, 'What delivery chaos did to it, in words (`duplicated: ...`, `delayed 1500 ms`).'),
		},
		'A delivery as the control routes show it (account key or console only).',
	),
	Event: sandboxObject(
		{ id: str, type: str, created: isoTime, hook: str, data: anyObject },
		'The body of a hook delivery.',
	),
	Payment: sandboxObject({
		id: str,
		amount: num,
		currency: str,
		botid: str,
		clientid: str,
		messenger: str,
		description: nullable(str),
		paid_at: isoTime,
	}),
};
