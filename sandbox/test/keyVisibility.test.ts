import { modules } from '../src/api';
import { ALL_SCOPES } from '../src/domain/keys';
import { openSandbox, type AnswerOf, type OpenSandbox, type TestClient } from './client';

/**
 * What each key sees of /account/get and of every listing, key by key. The expected values are written out from
 * the demo data (docs/running.md: demo data; the seeded bots, projects, chains, list and subscribers) and from what this
 * test creates, never read back from the sandbox.
 */

const DEMO = {
	balance: 1500,
	groups: ['grp_sales', 'grp_support'],
	chains: { bot_tg: ['1001', '1002'], bot_wa: ['2001'] },
	subscribers: { bot_tg: ['100001', '100002', '100003', '100004'], bot_wa: ['15550101', '15550102'] },
	leadsRows: 3,
};
const CREATED_SUBSCRIBERS = { bot_tg: ['vis-tg-1', 'vis-tg-2'], bot_wa: ['vis-wa-1'] };
const VISIBILITY_ROWS = ['row 1', 'row 2', 'row 3', 'row 4'];
const HOOK = { url: 'http://127.0.0.1:9/visibility', events: ['subscriber.new'] };

const sorted = <T extends string>(values: T[]) => [...values].sort();
type Bot = keyof typeof DEMO.chains;

/** The scope each listing needs (docs/rules.md: keys and scopes). */
const SCOPE_OF: Record<string, string> = {
	'/account/get': 'account:read',
	'/account/balance/get': 'account:read',
	'/account/summary': 'account:read',
	'/bot/list': 'bots:read',
	'/group/list': 'bots:read',
	'/list/all': 'lists:read',
	'/list/rows/get': 'lists:read',
	'/list/rows/find': 'lists:read',
	'/subscriber/list': 'subscribers:read',
	'/subscriber/find': 'subscribers:read',
	'/crm/board': 'crm:read',
	'/stat/get': 'stats:read',
	'/hook/list': 'hooks:read',
	'/hook/deliveries': 'hooks:read',
	'/log/get': 'log:read',
};

interface Listing {
	path: string;
	query?: Record<string, string | number | boolean>;
	/** The part of a 200 answer the test compares. */
	view: (body: unknown) => unknown;
}

/** A listing whose view reads the answer as the contract types it. */
function listing<P extends string>(
	path: P,
	view: (body: AnswerOf<P, 'get'>) => unknown,
	query?: Record<string, string | number | boolean>,
): Listing {
	return { path, ...(query ? { query } : {}), view: view as (body: unknown) => unknown };
}

/** /account/get and every listing of the sandbox (a method that answers a set of objects without naming one). */
function listings(today: { from: string; to: string }, hookName: (id: string) => string): Listing[] {
	return [
		listing('/account/get', (body) => body.used),
		listing('/account/balance/get', (body) => body.balance),
		listing('/account/summary', (body) => ({
			bots: body.bots.map((bot) => bot.id),
			groups: body.groups.map((group) => group.code),
			chains: sorted(body.chains.map((chain) => chain.code)),
			lists: body.lists.map((list) => [list.name, list.count]),
		})),
		listing('/bot/list', (body) => body.items.map((bot) => bot.id)),
		listing('/group/list', (body) => body.items.map((group) => group.code)),
		listing('/list/all', (body) => body.items.map((list) => [list.name, list.count])),
		listing('/list/rows/get', (body) => ({ names: body.items.map((row) => row.row.Name), total: body.total }), {
			list: 'Visibility',
			limit: 1000,
		}),
		listing('/list/rows/find', (body) => ({ names: body.items.map((row) => row.row.Name), total: body.total }), {
			list: 'Visibility',
			column: 'Name',
			value: 'row 2',
		}),
		listing(
			'/subscriber/list',
			(body) => ({ clientids: sorted(body.items.map((card) => card.clientid)), total: body.total }),
			{ limit: 1000 },
		),
		listing(
			'/subscriber/find',
			(body) => ({ clientids: sorted(body.items.map((card) => card.clientid)), total: body.total }),
			{ query: 'Visibility' },
		),
		listing('/crm/board', (body) => body.total),
		listing('/stat/get', (body) => body.total.subscribers, today),
		listing('/hook/list', (body) => ({ names: sorted(body.items.map((hook) => hook.name)), total: body.total }), {
			limit: 1000,
		}),
		// One delivery per new subscriber to each hook that hears of its bot.
		listing(
			'/hook/deliveries',
			(body) => ({
				hooks: sorted(body.items.map((delivery) => hookName(delivery.hook))),
				total: body.total,
			}),
			{ limit: 1000 },
		),
		// Last: by then every key of the test has made its calls.
		listing('/log/get', (body) => sorted([...new Set<string>(body.items.map((entry) => String(entry.keyId)))]), {
			limit: 1000,
		}),
	];
}

/** Methods open to GET that are not listings: reads of one object named by the call (a card, a catalog), and a deletion. */
const NOT_LISTINGS = [
	'/subscriber/get',
	'/subscriber/tag/list',
	'/subscriber/data/get',
	'/subscriber/chat/get',
	'/subscriber/chains/get',
	'/catalog/get',
	'/webapp/delete',
];

describe('what each key sees of /account/get and every listing', () => {
	let open: OpenSandbox;

	test('the listings below are every read method of the sandbox that names no single object', () => {
		const reads = modules
			.flatMap((module) => module.endpoints)
			.filter((endpoint) => endpoint.methods === 'GET or POST')
			.map((endpoint) => endpoint.path);
		const covered = listings({ from: '', to: '' }, (id) => id).map((listing) => listing.path);
		expect(sorted(reads.filter((path) => !NOT_LISTINGS.includes(path)))).toEqual(sorted(covered));
	});

	beforeAll(async () => {
		open = await openSandbox({ retrySchedule: [3600] });
	});
	afterAll(() => open.close());

	test('the account key, keys restricted to one bot, and delegated keys with few scopes each see exactly their part', async () => {
		const { api } = open;
		const make = async (creator: TestClient, name: string, scopes: string[], bots: string[] = []) => {
			const response = await creator.post('/key/create', { name, scopes, ...(bots.length > 0 ? { bots } : {}) });
			if (response.status !== 200)
				throw new Error(`/key/create answered ${response.status}: ${JSON.stringify(response.body)}`);
			return { id: response.body.key.id as string, client: api.withKey(response.body.key.key) };
		};
		const keyA = await make(api, 'tg', ALL_SCOPES, ['bot_tg']);
		const keyB = await make(api, 'wa', ALL_SCOPES, ['bot_wa']);
		const readerA = await make(keyA.client, 'tg reader', ['account:read', 'bots:read', 'lists:read'], ['bot_tg']);
		const summaryOnly = await make(api, 'account reader', ['account:read']);
		const logB = await make(keyB.client, 'wa log', ['log:read', 'hooks:read'], ['bot_wa']);
		const revokedA = await make(keyA.client, 'tg revoked', ['account:read'], ['bot_tg']);
		expect((await keyA.client.post('/key/revoke', { id: revokedA.id })).status).toBe(200);

		const hookNames = new Map<string, string>();
		for (const [client, name] of [
			[api, 'every bot'],
			[keyA.client, 'tg hook'],
			[keyB.client, 'wa hook'],
		] as const) {
			const created = await client.post('/hook/create', { name, ...HOOK });
			expect(created.status).toBe(200);
			hookNames.set(created.body.hook.id, name);
		}
		const subscribed: string[] = [];
		for (const [botid, clientids] of Object.entries(CREATED_SUBSCRIBERS)) {
			for (const clientid of clientids) {
				const created = await api.post('/subscriber/create', { botid, clientid, name: `Visibility ${clientid}` });
				expect(created.body.created).toBe(true);
				subscribed.push(String(created.body.subscriber.subscribed));
			}
		}
		expect((await api.post('/list/create', { name: 'Visibility', headers: ['Name'] })).status).toBe(200);
		expect(
			(await api.post('/list/rows/add', { list: 'Visibility', rows: VISIBILITY_ROWS.map((Name) => ({ Name })) }))
				.status,
		).toBe(200);

		// The account's time zone is UTC (the default): the day of a subscription is its date.
		const days = sorted(subscribed.map((time) => time.slice(0, 10)));
		const today = { from: days[0], to: days[days.length - 1] };

		const lists = [
			['Leads', DEMO.leadsRows],
			['Visibility', VISIBILITY_ROWS.length],
		];
		const everyList = { lists: 2, rows: DEMO.leadsRows + VISIBILITY_ROWS.length };
		const botIds = Object.keys(DEMO.chains) as Bot[];
		const subscribersOf = (bots: Bot[]) =>
			sorted(bots.flatMap((botid) => [...DEMO.subscribers[botid], ...CREATED_SUBSCRIBERS[botid]]));
		const createdOf = (bots: Bot[]) => sorted(bots.flatMap((botid) => CREATED_SUBSCRIBERS[botid]));
		/** What a key with every read scope sees when it may touch `bots`; `keys` and `hooks` are those it sees. */
		const withEveryScope = (
			bots: Bot[],
			seen: { keys: number; hooks: string[]; deliveries: string[]; log: string[] },
		) => ({
			'/account/get': { bots: bots.length, ...everyList, keys: seen.keys },
			'/account/balance/get': DEMO.balance,
			'/account/summary': {
				bots,
				groups: DEMO.groups,
				chains: sorted(bots.flatMap((botid) => DEMO.chains[botid])),
				lists,
			},
			'/bot/list': bots,
			'/group/list': DEMO.groups,
			'/list/all': lists,
			'/list/rows/get': { names: VISIBILITY_ROWS, total: VISIBILITY_ROWS.length },
			'/list/rows/find': { names: ['row 2'], total: 1 },
			'/subscriber/list': { clientids: subscribersOf(bots), total: subscribersOf(bots).length },
			'/subscriber/find': { clientids: createdOf(bots), total: createdOf(bots).length },
			'/crm/board': subscribersOf(bots).length,
			'/stat/get': createdOf(bots).length,
			'/hook/list': { names: seen.hooks, total: seen.hooks.length },
			'/hook/deliveries': { hooks: sorted(seen.deliveries), total: seen.deliveries.length },
			'/log/get': sorted(seen.log),
		});
		/** A key holding only `scopes`: `full` where it has the method's scope, else 403 naming the scope. */
		const withScopes = (scopes: string[], full: Record<string, unknown>) =>
			Object.fromEntries(
				Object.entries(full).map(([path, view]) => [
					path,
					scopes.includes(SCOPE_OF[path]) ? view : `403 forbidden ${SCOPE_OF[path]}`,
				]),
			);

		// One delivery per new subscriber to each hook that hears of its bot: the account's hook hears of every bot.
		const tgDeliveries = CREATED_SUBSCRIBERS.bot_tg.map(() => 'tg hook');
		const waDeliveries = CREATED_SUBSCRIBERS.bot_wa.map(() => 'wa hook');
		const everyDelivery = [...createdOf(botIds).map(() => 'every bot'), ...tgDeliveries, ...waDeliveries];
		// `used.keys` counts keys not revoked: the account key and the five made here that work; a restricted key counts
		// the keys restricted to its own bots, itself included. The log shows a restricted key its calls and those of
		// the keys it created.
		const account = withEveryScope(botIds, {
			keys: 6,
			hooks: ['every bot', 'tg hook', 'wa hook'],
			deliveries: everyDelivery,
			log: ['account', keyA.id, keyB.id, readerA.id, summaryOnly.id, logB.id],
		});
		const onTg = withEveryScope(['bot_tg'], {
			keys: 2,
			hooks: ['tg hook'],
			deliveries: tgDeliveries,
			log: [keyA.id, readerA.id],
		});
		const onWa = withEveryScope(['bot_wa'], {
			keys: 2,
			hooks: ['wa hook'],
			deliveries: waDeliveries,
			log: [keyB.id, logB.id],
		});
		const expected: Record<string, Record<string, unknown>> = {
			account,
			keyA: onTg,
			keyB: onWa,
			readerA: withScopes(['account:read', 'bots:read', 'lists:read'], onTg),
			// Not restricted to bots: the account's counts.
			summaryOnly: withScopes(['account:read'], account),
			logB: withScopes(['log:read', 'hooks:read'], { ...onWa, '/log/get': [logB.id] }),
		};
		const clients: Record<string, TestClient> = {
			account: api,
			keyA: keyA.client,
			keyB: keyB.client,
			readerA: readerA.client,
			summaryOnly: summaryOnly.client,
			logB: logB.client,
		};

		const seen: Record<string, Record<string, unknown>> = Object.fromEntries(
			Object.keys(clients).map((name) => [name, {}]),
		);
		for (const listing of listings(today, (id) => hookNames.get(id) ?? id)) {
			for (const [name, client] of Object.entries(clients)) {
				const response = await client.get(listing.path, listing.query);
				seen[name][listing.path] =
					response.status === 200
						? listing.view(response.body)
						: `${response.status} ${response.body.code} ${response.body.scope}`;
			}
		}
		expect(seen).toEqual(expected);
	});
});
