import { modules } from '../src/api';
import { ALL_SCOPES } from '../src/domain/keys';
import { openSandbox, type OpenSandbox, type TestClient } from './client';

/**
 * What each key sees of /account/get and of every listing, key by key. The expected values are written out from
 * the demo data (README: demo data; the seeded bots, projects, chains, list and subscribers) and from what this
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

const sorted = (values: string[]) => [...values].sort();

interface Listing {
  path: string;
  query?: Record<string, string | number | boolean>;
  /** The part of a 200 answer the test compares. */
  view: (body: any) => unknown;
}

/** /account/get and every listing of the sandbox (a method that answers a set of objects without naming one). */
function listings(today: { from: string; to: string }, hookName: (id: string) => string): Listing[] {
  return [
    { path: '/account/get', view: (body) => body.used },
    { path: '/account/balance/get', view: (body) => body.balance },
    {
      path: '/account/summary',
      view: (body) => ({
        bots: body.bots.map((bot: any) => bot.id),
        groups: body.groups.map((group: any) => group.code),
        chains: sorted(body.chains.map((chain: any) => chain.code)),
        lists: body.lists.map((list: any) => [list.name, list.count]),
      }),
    },
    { path: '/bot/list', view: (body) => body.items.map((bot: any) => bot.id) },
    { path: '/group/list', view: (body) => body.items.map((group: any) => group.code) },
    { path: '/list/all', view: (body) => body.items.map((list: any) => [list.name, list.count]) },
    { path: '/list/rows/get', query: { list: 'Visibility', limit: 1000 }, view: (body) => ({ names: body.items.map((row: any) => row.row.Name), total: body.total }) },
    { path: '/list/rows/find', query: { list: 'Visibility', column: 'Name', value: 'row 2' }, view: (body) => ({ names: body.items.map((row: any) => row.row.Name), total: body.total }) },
    { path: '/subscriber/list', query: { limit: 1000 }, view: (body) => ({ clientids: sorted(body.items.map((card: any) => card.clientid)), total: body.total }) },
    { path: '/subscriber/find', query: { query: 'Visibility' }, view: (body) => ({ clientids: sorted(body.items.map((card: any) => card.clientid)), total: body.total }) },
    { path: '/crm/board', view: (body) => body.total },
    { path: '/stat/get', query: today, view: (body) => body.total.subscribers },
    { path: '/hook/list', query: { limit: 1000 }, view: (body) => ({ names: sorted(body.items.map((hook: any) => hook.name)), total: body.total }) },
    // One delivery per new subscriber to each hook that hears of its bot.
    { path: '/hook/deliveries', query: { limit: 1000 }, view: (body) => ({ hooks: sorted(body.items.map((delivery: any) => hookName(delivery.hook))), total: body.total }) },
    // Last: by then every key of the test has made its calls.
    { path: '/log/get', query: { limit: 1000 }, view: (body) => sorted([...new Set<string>(body.items.map((entry: any) => String(entry.keyId)))]) },
  ];
}

/** Methods open to GET that are not listings: reads of one object named by the call (a card, a catalog), and a deletion. */
const NOT_LISTINGS = [
  '/subscriber/get', '/subscriber/tag/list', '/subscriber/data/get', '/subscriber/chat/get', '/subscriber/chains/get', '/catalog/get',
  '/webapp/delete',
];

describe('what each key sees of /account/get and every listing', () => {
  let open: OpenSandbox;

  test('the listings below are every read method of the sandbox that names no single object', () => {
    const reads = modules.flatMap((module) => module.endpoints).filter((endpoint) => endpoint.methods === 'GET or POST').map((endpoint) => endpoint.path);
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
      if (response.status !== 200) throw new Error(`/key/create answered ${response.status}: ${JSON.stringify(response.body)}`);
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
    for (const [client, name] of [[api, 'every bot'], [keyA.client, 'tg hook'], [keyB.client, 'wa hook']] as const) {
      const created = await client.post('/hook/create', { name, ...HOOK });
      expect(created.status).toBe(200);
      hookNames.set(created.body.hook.id, name);
    }
    const subscribed: string[] = [];
    for (const [botid, clientids] of Object.entries(CREATED_SUBSCRIBERS)) {
      for (const clientid of clientids) {
        const created = await api.post('/subscriber/create', { botid, clientid, name: `Visibility ${clientid}` });
        expect(created.body.created).toBe(true);
        subscribed.push(created.body.subscriber.subscribed);
      }
    }
    expect((await api.post('/list/create', { name: 'Visibility', headers: ['Name'] })).status).toBe(200);
    expect((await api.post('/list/rows/add', { list: 'Visibility', rows: VISIBILITY_ROWS.map((Name) => ({ Name })) })).status).toBe(200);

    // The account's time zone is UTC (the default): the day of a subscription is its date.
    const days = sorted(subscribed.map((time) => time.slice(0, 10)));
    const today = { from: days[0], to: days[days.length - 1] };

    const tgSubscribers = sorted([...DEMO.subscribers.bot_tg, ...CREATED_SUBSCRIBERS.bot_tg]);
    const waSubscribers = sorted([...DEMO.subscribers.bot_wa, ...CREATED_SUBSCRIBERS.bot_wa]);
    const lists = [['Leads', DEMO.leadsRows], ['Visibility', VISIBILITY_ROWS.length]];
    const everyList = { lists: 2, rows: DEMO.leadsRows + VISIBILITY_ROWS.length };
    const rows = { names: VISIBILITY_ROWS, total: 4 };
    const found = { names: ['row 2'], total: 1 };
    const forbidden = (scope: string) => `403 forbidden ${scope}`;

    // Keys counted in `used.keys` (not revoked): the account key and five made here; a restricted key counts the keys
    // restricted to its own bots, itself included.
    const expected: Record<string, Record<string, unknown>> = {
      account: {
        '/account/get': { bots: 2, ...everyList, keys: 6 },
        '/account/balance/get': DEMO.balance,
        '/account/summary': { bots: ['bot_tg', 'bot_wa'], groups: DEMO.groups, chains: sorted([...DEMO.chains.bot_tg, ...DEMO.chains.bot_wa]), lists },
        '/bot/list': ['bot_tg', 'bot_wa'],
        '/group/list': DEMO.groups,
        '/list/all': lists,
        '/list/rows/get': rows,
        '/list/rows/find': found,
        '/subscriber/list': { clientids: sorted([...tgSubscribers, ...waSubscribers]), total: 9 },
        '/subscriber/find': { clientids: sorted([...CREATED_SUBSCRIBERS.bot_tg, ...CREATED_SUBSCRIBERS.bot_wa]), total: 3 },
        '/crm/board': 9,
        '/stat/get': 3,
        '/hook/list': { names: ['every bot', 'tg hook', 'wa hook'], total: 3 },
        '/hook/deliveries': { hooks: sorted(['every bot', 'every bot', 'every bot', 'tg hook', 'tg hook', 'wa hook']), total: 6 },
        '/log/get': sorted(['account', keyA.id, keyB.id, readerA.id, summaryOnly.id, logB.id]),
      },
      keyA: {
        '/account/get': { bots: 1, ...everyList, keys: 2 },
        '/account/balance/get': DEMO.balance,
        '/account/summary': { bots: ['bot_tg'], groups: DEMO.groups, chains: DEMO.chains.bot_tg, lists },
        '/bot/list': ['bot_tg'],
        '/group/list': DEMO.groups,
        '/list/all': lists,
        '/list/rows/get': rows,
        '/list/rows/find': found,
        '/subscriber/list': { clientids: tgSubscribers, total: 6 },
        '/subscriber/find': { clientids: CREATED_SUBSCRIBERS.bot_tg, total: 2 },
        '/crm/board': 6,
        '/stat/get': 2,
        '/hook/list': { names: ['tg hook'], total: 1 },
        '/hook/deliveries': { hooks: ['tg hook', 'tg hook'], total: 2 },
        '/log/get': sorted([keyA.id, readerA.id]),
      },
      keyB: {
        '/account/get': { bots: 1, ...everyList, keys: 2 },
        '/account/balance/get': DEMO.balance,
        '/account/summary': { bots: ['bot_wa'], groups: DEMO.groups, chains: DEMO.chains.bot_wa, lists },
        '/bot/list': ['bot_wa'],
        '/group/list': DEMO.groups,
        '/list/all': lists,
        '/list/rows/get': rows,
        '/list/rows/find': found,
        '/subscriber/list': { clientids: waSubscribers, total: 3 },
        '/subscriber/find': { clientids: CREATED_SUBSCRIBERS.bot_wa, total: 1 },
        '/crm/board': 3,
        '/stat/get': 1,
        '/hook/list': { names: ['wa hook'], total: 1 },
        '/hook/deliveries': { hooks: ['wa hook'], total: 1 },
        '/log/get': sorted([keyB.id, logB.id]),
      },
      readerA: {
        '/account/get': { bots: 1, ...everyList, keys: 2 },
        '/account/balance/get': DEMO.balance,
        '/account/summary': { bots: ['bot_tg'], groups: DEMO.groups, chains: DEMO.chains.bot_tg, lists },
        '/bot/list': ['bot_tg'],
        '/group/list': DEMO.groups,
        '/list/all': lists,
        '/list/rows/get': rows,
        '/list/rows/find': found,
        '/subscriber/list': forbidden('subscribers:read'),
        '/subscriber/find': forbidden('subscribers:read'),
        '/crm/board': forbidden('crm:read'),
        '/stat/get': forbidden('stats:read'),
        '/hook/list': forbidden('hooks:read'),
        '/hook/deliveries': forbidden('hooks:read'),
        '/log/get': forbidden('log:read'),
      },
      summaryOnly: {
        // Not restricted to bots: the account's counts.
        '/account/get': { bots: 2, ...everyList, keys: 6 },
        '/account/balance/get': DEMO.balance,
        '/account/summary': { bots: ['bot_tg', 'bot_wa'], groups: DEMO.groups, chains: sorted([...DEMO.chains.bot_tg, ...DEMO.chains.bot_wa]), lists },
        '/bot/list': forbidden('bots:read'),
        '/group/list': forbidden('bots:read'),
        '/list/all': forbidden('lists:read'),
        '/list/rows/get': forbidden('lists:read'),
        '/list/rows/find': forbidden('lists:read'),
        '/subscriber/list': forbidden('subscribers:read'),
        '/subscriber/find': forbidden('subscribers:read'),
        '/crm/board': forbidden('crm:read'),
        '/stat/get': forbidden('stats:read'),
        '/hook/list': forbidden('hooks:read'),
        '/hook/deliveries': forbidden('hooks:read'),
        '/log/get': forbidden('log:read'),
      },
      logB: {
        '/account/get': forbidden('account:read'),
        '/account/balance/get': forbidden('account:read'),
        '/account/summary': forbidden('account:read'),
        '/bot/list': forbidden('bots:read'),
        '/group/list': forbidden('bots:read'),
        '/list/all': forbidden('lists:read'),
        '/list/rows/get': forbidden('lists:read'),
        '/list/rows/find': forbidden('lists:read'),
        '/subscriber/list': forbidden('subscribers:read'),
        '/subscriber/find': forbidden('subscribers:read'),
        '/crm/board': forbidden('crm:read'),
        '/stat/get': forbidden('stats:read'),
        '/hook/list': { names: ['wa hook'], total: 1 },
        '/hook/deliveries': { hooks: ['wa hook'], total: 1 },
        '/log/get': [logB.id],
      },
    };
    const clients: Record<string, TestClient> = {
      account: api, keyA: keyA.client, keyB: keyB.client, readerA: readerA.client, summaryOnly: summaryOnly.client, logB: logB.client,
    };

    const seen: Record<string, Record<string, unknown>> = Object.fromEntries(Object.keys(clients).map((name) => [name, {}]));
    for (const listing of listings(today, (id) => hookNames.get(id) ?? id)) {
      for (const [name, client] of Object.entries(clients)) {
        const response = await client.get(listing.path, listing.query);
        seen[name][listing.path] = response.status === 200 ? listing.view(response.body) : `${response.status} ${response.body.code} ${response.body.scope}`;
      }
    }
    expect(seen).toEqual(expected);
  });
});
