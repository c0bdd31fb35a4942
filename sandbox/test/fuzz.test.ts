import fc from 'fast-check';
import { modules } from '../src/api';
import { deliveriesState } from '../src/delivery/deliveries';
import { apiLogState } from '../src/domain/apiLog';
import { itemsState } from '../src/domain/catalog';
import { idempotencyState } from '../src/domain/idempotency';
import { listsState } from '../src/domain/lists';
import { broadcastsState } from '../src/domain/messagingBroadcasts';
import { chainRunsState } from '../src/domain/messagingChains';
import { chatState } from '../src/domain/messagingChat';
import { paymentsState } from '../src/domain/hooksPayments';
import { statsState } from '../src/domain/statsCounters';
import { subscribersState } from '../src/domain/subscribers';
import type { Store } from '../src/store/store';
import { openSandbox, type OpenSandbox } from './client';

/** Objects with their keys sorted: the order of an object's keys is not state. */
const sortedKeys = (_key: string, value: unknown) =>
	value && typeof value === 'object' && !Array.isArray(value)
		? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
		: value;

/** Every domain's working set, as JSON (maps as entry lists). */
function workingSets(store: Store): string {
	const subscribers = subscribersState(store);
	return JSON.stringify(
		{
			lists: listsState(store),
			subscribers: subscribers.subscribers,
			bySubscribed: subscribers.bySubscribed.map((card) => card.id),
			perBot: [...subscribers.perBot],
			chats: [...chatState(store).chats],
			runs: chainRunsState(store),
			broadcasts: broadcastsState(store),
			items: itemsState(store).items,
			payments: paymentsState(store),
			log: apiLogState(store),
			stats: statsState(store),
			idempotency: [...idempotencyState(store).entries],
			deliveries: deliveriesState(store),
		},
		sortedKeys,
	);
}

/**
 * Property: whatever the body (random shape and type, also near-valid parameters), no endpoint
 * answers 5xx, every refusal is JSON with `code` and `error`, and every change is written through
 * (after each request, the working set read again from the database equals the one in memory).
 * Runs over every endpoint of the module registry and the /sandbox routes. FUZZ_RUNS (default 1000)
 * and FUZZ_SEED repeat or widen a run.
 */
const SANDBOX_ROUTES = [
	'/sandbox/clock',
	'/sandbox/payments',
	'/sandbox/snapshot',
	'/sandbox/restore',
	'/sandbox/deliveries',
	'/sandbox/deliveries/redeliver',
	'/sandbox/chaos',
	'/sandbox/hooks/secret',
	'/sandbox/reset',
];
const RECEIVER = 'http://127.0.0.1:9/hook';
const FUZZ_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** Parameter names the API knows, with values that pass some of the checks. */
const NEAR_VALID: Record<string, unknown[]> = {
	botid: ['bot_tg', 'bot_wa', 'bot_none'],
	clientid: ['100001', '15550101', 'x'],
	messenger: ['telegram', 'whatsapp'],
	list: ['Leads', 'none'],
	listid: [1, '1', 2],
	rows: [[{ Name: 'a' }], [['a', 'b']], [{}]],
	row: [{ Name: 'a' }, { Nope: 1 }],
	values: [['a'], []],
	rowid: [1, 2, 999],
	rowids: [[1, 2], ['3']],
	where: [{ Name: 'Alice' }, {}],
	column: ['Name', 'Nope'],
	value: ['Alice', 1],
	exact: [true, 'false'],
	sort: ['new', 'old', 'x'],
	limit: [1, 1000, 1001, 0],
	offset: [0, 5, -1],
	tag: ['vip', ['a', 'b'], ''],
	data: [{ a: 1 }, { __proto__: null, b: 'x' }, {}],
	chaincode: ['1001', '1002', '2001'],
	stepcode: ['1', '2'],
	block: ['1', 'blk_hello'],
	text: ['hello'],
	buttons: [[{ name: 'a', url: 'https://example.test' }]],
	name: ['fuzz'],
	headers: [
		['A', 'B'],
		['A', 'A'],
	],
	group: ['grp_sales'],
	webappid: ['1', '2'],
	itemid: [1, 2],
	items: [[{ title: 'x' }], [{ itemid: 1 }]],
	id: ['account', 'hook_x', 'dlv_x', '1'],
	scopes: [['lists:read'], 'lists:write'],
	bots: [['bot_tg'], []],
	days: [1, 4000],
	url: [RECEIVER],
	events: [['subscriber.new'], 'payment.success'],
	hook: ['hook_x'],
	secret: [FUZZ_SECRET, 'whsec_x'],
	status: [200, 'failed'],
	query: ['a'],
	subscriber: [1, 2],
	stage: ['New', 'Nope'],
	from: ['2026-01-01', '2026-02-30', '2026-01-01T00:00:00Z'],
	to: ['2026-12-31'],
	amount: [1, -1],
	currency: ['USD', 'US'],
	advanceSeconds: [0, 1, 1e13, -1],
	snapshot: ['snap_1', 'snap_x'],
	title: ['t'],
	price: [1, 'x'],
};
const NAMES = Object.keys(NEAR_VALID);

const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.oneof(
	{ weight: 3, arbitrary: fc.anything({ maxDepth: 2, maxKeys: 4 }) },
	{ weight: 2, arbitrary: scalar },
	{ weight: 1, arbitrary: fc.array(scalar, { maxLength: 4 }) },
);
const nearValid = fc
	.constantFrom(...NAMES)
	.chain((name) => fc.tuple(fc.constant(name), fc.oneof(fc.constantFrom(...NEAR_VALID[name]), value)));
const params = fc
	.array(
		fc.oneof(
			{ weight: 4, arbitrary: nearValid },
			{ weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 8 }), value) },
		),
		{ maxLength: 6 },
	)
	.map((entries) => {
		const body: Record<string, unknown> = {};
		for (const [name, item] of entries)
			Object.defineProperty(body, name, { value: item, enumerable: true, writable: true, configurable: true });
		// Deliveries only ever go to 127.0.0.1.
		if (typeof body.url === 'string') body.url = RECEIVER;
		return body;
	});
const who = { botid: 'bot_tg', clientid: '100001' };
/** A valid body per path: the fuzzer changes a few of its parameters, so that calls get past the first checks. */
const VALID: Record<string, Record<string, unknown>> = {
	'/api/account/balance/get': {},
	'/api/account/get': {},
	'/api/account/summary': {},
	'/api/log/get': { path: 'list' },
	'/api/bot/list': {},
	'/api/group/list': {},
	'/api/key/create': { name: 'fuzz', scopes: ['lists:read'] },
	'/api/key/revoke': { id: 'key_unknown' },
	'/api/subscriber/get': who,
	'/api/subscriber/find': { query: 'a' },
	'/api/subscriber/list': { sort: 'new' },
	'/api/subscriber/tag/list': who,
	'/api/subscriber/data/get': who,
	'/api/subscriber/chat/get': who,
	'/api/subscriber/chains/get': who,
	'/api/subscriber/create': { botid: 'bot_wa', clientid: 'fuzz-1', name: 'Fuzz' },
	'/api/subscriber/update': { ...who, note: 'n' },
	'/api/subscriber/tag/add': { ...who, tag: 'stage:qualified' },
	'/api/subscriber/tag/remove': { ...who, tag: 'vip' },
	'/api/subscriber/data/set': { ...who, data: { a: 1 } },
	'/api/subscriber/block': { botid: 'bot_tg', clientid: '100002' },
	'/api/subscriber/unblock': { botid: 'bot_tg', clientid: '100004' },
	'/api/subscriber/delete': { botid: 'bot_wa', clientid: 'fuzz-1', messenger: 'whatsapp' },
	'/api/message/send': { ...who, text: 'hi' },
	'/api/message/next/clear': who,
	'/api/block/start': { ...who, chaincode: '1001', stepcode: '2' },
	'/api/chain/start': { ...who, chaincode: '1001' },
	'/api/chain/stop': who,
	'/api/broadcast/send': { botid: 'bot_tg', text: 'news' },
	'/api/broadcast/stop': { code: 'brd_unknown' },
	'/api/crm/stage/set': { ...who, stage: 'Won' },
	'/api/crm/board': {},
	'/api/stat/get': { from: '2026-01-01', to: '2026-01-31' },
	'/api/list/all': {},
	'/api/list/create': { name: 'Fuzz', headers: ['A', 'B'] },
	'/api/list/clear': { list: 'Fuzz' },
	'/api/list/rows/get': { list: 'Leads', sort: 'new' },
	'/api/list/rows/find': { list: 'Leads', column: 'Name', value: 'a' },
	'/api/list/row/add': { list: 'Leads', row: { Name: 'x' } },
	'/api/list/rows/add': { list: 'Leads', rows: [{ Name: 'y' }, ['z']] },
	'/api/list/row/edit': { list: 'Leads', rowid: 1, row: { Name: 'w' } },
	'/api/list/row/delete': { list: 'Leads', rowid: 4 },
	'/api/catalog/item/create': { webappid: '1', title: 't', price: 2 },
	'/api/catalog/item/edit': { webappid: '1', itemid: 1, title: 'u' },
	'/api/catalog/item/delete': { itemid: 6 },
	'/api/catalog/item/bulk/create': { webappid: '1', items: [{ title: 'b' }] },
	'/api/catalog/item/bulk/edit': { webappid: '1', items: [{ itemid: 1, hide: true }] },
	'/api/catalog/item/bulk/delete': { items: [{ itemid: 7 }] },
	'/api/catalog/items/delete': { webappid: '1' },
	'/api/catalog/get': { webappid: '1' },
	'/api/webapp/delete': { id: '1' },
	'/api/hook/create': { name: 'h', url: RECEIVER, events: ['subscriber.new', 'payment.success'] },
	'/api/hook/list': {},
	'/api/hook/delete': { id: 'hook_unknown' },
	'/api/hook/deliveries': { status: 'pending' },
	'/sandbox/clock': { advanceSeconds: 60 },
	'/sandbox/payments': { ...who, messenger: 'telegram', amount: 5, currency: 'EUR' },
	'/sandbox/snapshot': {},
	'/sandbox/restore': { snapshot: 'snap_1' },
	'/sandbox/deliveries': { status: 'failed' },
	'/sandbox/deliveries/redeliver': { id: 'dlv_unknown' },
	'/sandbox/chaos': { duplicate: 0.5, delayMs: 10, seed: 7 },
	'/sandbox/hooks/secret': { id: 'hook_unknown', secret: FUZZ_SECRET },
	'/sandbox/reset': {},
};
type Change = ['set', string, unknown] | ['delete', string];
const change: fc.Arbitrary<Change> = fc.oneof(
	nearValid.map(([name, item]): Change => ['set', name, item]),
	fc.tuple(fc.constantFrom(...NAMES), value).map(([name, item]): Change => ['set', name, item]),
	fc.constantFrom(...NAMES).map((name): Change => ['delete', name]),
);
/** A valid body of the path with up to three parameters changed. */
const changed = (path: string) =>
	fc.array(change, { maxLength: 3 }).map((changes) => {
		const body: Record<string, unknown> = { ...VALID[path] };
		for (const [kind, name, item] of changes) {
			if (kind === 'delete') delete body[name];
			else Object.defineProperty(body, name, { value: item, enumerable: true, writable: true, configurable: true });
		}
		if (typeof body.url === 'string') body.url = RECEIVER;
		return body as unknown;
	});
/** A body: usually a changed valid one; else random parameters or another JSON value. */
const bodyOf = (path: string) =>
	fc.oneof({ weight: 6, arbitrary: changed(path) }, { weight: 3, arbitrary: params }, { weight: 1, arbitrary: value });
const contentType = fc.constantFrom(
	'application/json',
	'application/json',
	'application/json',
	'application/json; charset=utf-8',
	'text/plain',
	'application/json; charset=utf-16',
	'application/json; charset=koi8-r',
);
const contentEncoding = fc.constantFrom(
	undefined,
	undefined,
	undefined,
	'gzip',
	'deflate',
	'br',
	'x-unknown',
	'identity',
);

describe('sandbox fuzz: no 5xx on any endpoint', () => {
	let open: OpenSandbox;
	const seen = new Map<string, number>();
	/** Paths that answered 200 at least once: the bodies reach the methods, not only their first check. */
	const accepted = new Set<string>();
	beforeAll(async () => {
		open = await openSandbox({ retrySchedule: [3600], deliveryTimeoutMs: 200, broadcastIntervalMs: 5 });
	});
	afterAll(() => open.close());

	const paths = [
		...modules.flatMap((module) => module.endpoints.map((endpoint) => `/api${endpoint.path}`)),
		...SANDBOX_ROUTES,
	];

	test('every path has a valid body to start from', () => {
		expect(paths.filter((path) => !Object.hasOwn(VALID, path))).toEqual([]);
	});

	test('random bodies, query strings, content types and encodings; every change written through', async () => {
		const { store } = open.sandbox.context;
		await fc.assert(
			fc.asyncProperty(
				fc.constantFrom(...paths).chain((path) => fc.tuple(fc.constant(path), bodyOf(path))),
				fc.constantFrom('POST', 'POST', 'GET'),
				contentType,
				contentEncoding,
				async ([path, input], method, type, encoding) => {
					const url = new URL(`${open.sandbox.url}${path}`);
					const headers: Record<string, string> = { authorization: open.sandbox.adminKey, 'content-type': type };
					if (encoding) headers['content-encoding'] = encoding;
					if (method === 'GET' && typeof input === 'object' && input !== null && !Array.isArray(input)) {
						for (const [name, item] of Object.entries(input))
							url.searchParams.append(name, typeof item === 'string' ? item : (JSON.stringify(item) ?? ''));
					}
					const response = await fetch(url, {
						method,
						headers,
						body: method === 'GET' ? undefined : (JSON.stringify(input) ?? 'undefined'),
					});
					const text = await response.text();
					seen.set(path, (seen.get(path) ?? 0) + 1);
					// Every change was written through: the state read again from the database is the state that was in
					// memory. (Synchronous: no timer or request runs between the two reads.)
					const inMemory = workingSets(store);
					store.reload();
					const reread = workingSets(store);
					if (reread !== inMemory) {
						const [before, after] = [JSON.parse(inMemory), JSON.parse(reread)];
						const parts = Object.keys(before).filter(
							(part) => JSON.stringify(before[part]) !== JSON.stringify(after[part]),
						);
						const detail = parts.map(
							(part) =>
								`${part}: ${JSON.stringify(before[part]).slice(0, 400)} -> ${JSON.stringify(after[part]).slice(0, 400)}`,
						);
						throw new Error(`${method} ${path} changed memory without writing it through (${detail.join('; ')})`);
					}
					if (response.status === 200) accepted.add(path);
					if (response.status >= 500) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
					if (response.status >= 400) {
						const refusal = JSON.parse(text) as { code?: unknown; error?: unknown };
						if (typeof refusal.code !== 'string' || typeof refusal.error !== 'string')
							throw new Error(`${method} ${path} refused without code and error: ${text}`);
					}
				},
			),
			{ numRuns: Number(process.env.FUZZ_RUNS ?? 1000), seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
		);
		// Every endpoint was called.
		expect(paths.filter((path) => !seen.has(path))).toEqual([]);
		if (process.env.FUZZ_REPORT)
			console.log(
				`accepted at least once: ${accepted.size} of ${paths.length}; never: ${paths.filter((path) => !accepted.has(path)).join(' ')}`,
			);
		expect(accepted.size).toBeGreaterThan(paths.length / 2);
	}, 120_000);
});
