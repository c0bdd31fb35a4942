/** A record's key within its kind: an id or a number. */
export type RecordKey = string | number;

/**
 * The shapes of what the data file holds, checked when it is opened: a record of the wrong shape
 * refuses the file at start instead of failing requests later.
 *
 * A shape is a type name (`|null`: or null; `|absent`: or a field that is not there), `[shape]` (an array whose items have that shape), `{ field: shape }` (an
 * object with at least those fields) or `{ '*': shape }` (an object whose every value has that shape).
 */
export type Shape =
	| 'string'
	| 'number'
	| 'boolean'
	| 'object'
	| 'array'
	| 'string|null'
	| 'number|null'
	| 'string|absent'
	| [Shape]
	| { [field: string]: Shape };

/** Where the first mismatch is (e.g. `lists[3].rows`), or undefined when `value` has the shape. */
export function shapeProblem(value: unknown, shape: Shape, path: string): string | undefined {
	if (typeof shape === 'string') {
		const [main, orNull] = shape.split('|');
		if ((orNull === 'null' && value === null) || (orNull === 'absent' && value === undefined)) return undefined;
		if (main === 'array' ? Array.isArray(value) : main === 'object' ? isObject(value) : typeof value === main)
			return undefined;
		return `${path || 'the value'} is not ${main === 'array' || main === 'object' ? `an ${main}` : `a ${main}`}`;
	}
	if (Array.isArray(shape)) {
		if (!Array.isArray(value)) return `${path || 'the value'} is not an array`;
		for (let index = 0; index < value.length; index++) {
			const problem = shapeProblem(value[index], shape[0], `${path}[${index}]`);
			if (problem) return problem;
		}
		return undefined;
	}
	if (!isObject(value)) return `${path || 'the value'} is not an object`;
	const every = shape['*'];
	if (every !== undefined) {
		for (const [name, item] of Object.entries(value)) {
			const problem = shapeProblem(item, every, `${path}.${name}`);
			if (problem) return problem;
		}
		return undefined;
	}
	for (const [field, fieldShape] of Object.entries(shape)) {
		const problem = shapeProblem(
			(value as Record<string, unknown>)[field],
			fieldShape,
			path ? `${path}.${field}` : field,
		);
		if (problem) return problem;
	}
	return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// `createdBy` (who may revoke the key) is absent on the account key and on keys stored before creators were recorded.
const apiKey: Shape = {
	id: 'string',
	key: 'string',
	scopes: ['string'],
	bots: ['string'],
	revoked: 'boolean',
	expiresAt: 'number|null',
	createdBy: 'string|absent',
};
const hook: Shape = {
	id: 'string',
	url: 'string',
	events: ['string'],
	secret: 'string',
	bots: ['string'],
	disabledAt: 'string|null',
};
const directory: Shape = {
	account: 'object',
	tariff: 'object',
	balance: 'number',
	bots: [{ id: 'string', name: 'string', messenger: 'string' }],
	groups: [{ code: 'string', name: 'string' }],
	chains: [
		{
			code: 'string',
			botid: 'string',
			trigger: 'string|null',
			steps: [{ code: 'string', blocks: [{ id: 'string', text: 'string' }] }],
		},
	],
	stages: [{ name: 'string', tag: 'string', order: 'number' }],
};
const link: Shape = { token: 'string', webappid: 'string', expiresAt: 'number' };
const app: Shape = { id: 'string', name: 'string' };
const signingKey: Shape = { kid: 'string', alg: 'string', privateJwk: 'object', publicJwk: 'object' };
const list: Shape = { id: 'number', name: 'string', headers: ['string'], group: 'string|null', nextRowId: 'number' };
const row: Shape = { id: 'number', values: 'array', created: 'string' };
const subscriber: Shape = {
	id: 'number',
	botid: 'string',
	clientid: 'string',
	messenger: 'string',
	name: 'string',
	username: 'string',
	note: 'string',
	tags: ['string'],
	active: 'boolean',
	blocked: 'boolean',
	dialog: 'boolean',
	subscribed: 'string',
	stage: 'string|null',
	variables: { '*': 'object' },
};
const chatMessage: Shape = { id: 'number', direction: 'string', text: 'string', buttons: 'array', time: 'string' };
const run: Shape = { subscriber: 'number', chaincode: 'string', step: 'string', started: 'string' };
const broadcast: Shape = {
	code: 'string',
	text: 'string',
	bots: ['string'],
	queue: ['number'],
	status: 'string',
	sent: 'number',
};
const item: Shape = { id: 'number', webappid: 'string', created: 'string' };
const payment: Shape = { id: 'string', botid: 'string', amount: 'number' };
const logEntry: Shape = { id: 'number', time: 'string', path: 'string', status: 'number', failed: 'boolean' };
const statsDay: Shape = { '*': { subscribers: 'number', messages: 'number' } };
const remembered: Shape = { fingerprint: 'string', expiresAt: 'number' };
const delivery: Shape = {
	id: 'string',
	hookId: 'string',
	eventId: 'string',
	body: 'string',
	status: 'string',
	nextAttemptAt: 'number|null',
	attempts: [{ n: 'number', status: 'number|null' }],
};

/** Small documents, rewritten whole when they change. */
export const DOCUMENT_SHAPES: Record<string, Shape> = {
	directory,
	keys: { keys: [apiKey] },
	hooks: { hooks: [hook] },
	catalog: { apps: [app], links: [link] },
	signingKeys: { keys: [signingKey] },
	clock: { offsetMs: 'number' },
	counters: { '*': 'number' },
};

/** Records by kind (`row/<list id>` for a list's rows), written one by one. */
export const RECORD_SHAPES: Record<string, Shape> = {
	list,
	row,
	subscriber,
	chat: { ...chatMessage, subscriber: 'number' },
	run,
	broadcast,
	item,
	payment,
	log: logEntry,
	statsDay,
	idem: remembered,
	delivery,
};

export function recordShape(kind: string): Shape | undefined {
	return RECORD_SHAPES[kind.startsWith('row/') ? 'row' : kind];
}

/** The sections of data files written before schema version 1 (table `slices`, one JSON per section). */
export const LEGACY_SLICE_SHAPES: Record<string, Shape> = {
	directory,
	keys: { keys: [apiKey] },
	hooks: { hooks: [hook] },
	signingKeys: { keys: [signingKey] },
	lists: { lists: [{ ...list, rows: [row] }], nextId: 'number' },
	subscribers: { subscribers: [subscriber], nextId: 'number' },
	chats: { chats: { '*': [chatMessage] }, nextId: 'number' },
	chainRuns: { runs: [run] },
	broadcasts: { broadcasts: [broadcast] },
	catalog: { apps: [app], items: [item], nextItemId: 'number', links: [link] },
	payments: { payments: [payment] },
	apiLog: { entries: [logEntry], nextId: 'number' },
	stats: { days: { '*': statsDay } },
	idempotency: { entries: { '*': remembered } },
	deliveries: { deliveries: [delivery] },
};
