/**
 * Tables for the contract test: what the service's documentation says about every method, and one
 * request per method for each check. The contract test fails when an endpoint of the registry is
 * missing from a table, so a new endpoint cannot escape these checks.
 */

import type { AnswerOf } from './client';

/** How the service's documentation lets each method be called: both forms, or POST only. */
export const DOCUMENTED_METHODS: Record<string, 'GET or POST' | 'POST'> = {
	'/account/balance/get': 'GET or POST',
	'/account/get': 'GET or POST',
	'/account/summary': 'GET or POST',
	'/log/get': 'GET or POST',
	'/subscriber/get': 'GET or POST',
	'/subscriber/find': 'GET or POST',
	'/subscriber/list': 'GET or POST',
	'/subscriber/tag/list': 'GET or POST',
	'/subscriber/data/get': 'GET or POST',
	'/subscriber/chat/get': 'GET or POST',
	'/subscriber/chains/get': 'GET or POST',
	'/subscriber/create': 'POST',
	'/subscriber/update': 'POST',
	'/subscriber/tag/add': 'POST',
	'/subscriber/tag/remove': 'POST',
	'/subscriber/data/set': 'POST',
	'/subscriber/block': 'POST',
	'/subscriber/unblock': 'POST',
	'/subscriber/delete': 'POST',
	'/message/send': 'POST',
	'/block/start': 'POST',
	'/chain/start': 'POST',
	'/chain/stop': 'POST',
	'/broadcast/send': 'POST',
	'/broadcast/stop': 'POST',
	'/message/next/clear': 'POST',
	'/list/all': 'GET or POST',
	'/list/rows/get': 'GET or POST',
	// The table says POST, and the text below it documents the GET form (column and value in the query).
	'/list/rows/find': 'GET or POST',
	'/list/row/add': 'POST',
	'/list/rows/add': 'POST',
	'/list/row/edit': 'POST',
	'/list/row/delete': 'POST',
	'/list/clear': 'POST',
	'/list/create': 'POST',
	'/catalog/item/create': 'POST',
	'/catalog/item/edit': 'POST',
	'/catalog/item/delete': 'POST',
	'/catalog/item/bulk/create': 'POST',
	'/catalog/item/bulk/edit': 'POST',
	'/catalog/item/bulk/delete': 'POST',
	'/catalog/items/delete': 'POST',
	'/catalog/get': 'GET or POST',
	// The table lists it as GET or POST although it deletes: the table wins.
	'/webapp/delete': 'GET or POST',
	// Read-only methods of the "partial shape" table: the general rule (reads accept GET and POST) applies.
	'/bot/list': 'GET or POST',
	'/group/list': 'GET or POST',
	'/crm/board': 'GET or POST',
	'/stat/get': 'GET or POST',
	'/crm/stage/set': 'POST',
	'/hook/create': 'POST',
	'/key/create': 'POST',
	'/key/revoke': 'POST',
};

/** The sandbox's own additions (documented as extensions). */
export const EXTENSION_METHODS: Record<string, 'GET or POST' | 'POST'> = {
	'/hook/list': 'GET or POST',
	'/hook/delete': 'POST',
	'/hook/deliveries': 'GET or POST',
};

const TG = { botid: 'bot_tg', clientid: '100001' };
const today = new Date().toISOString().slice(0, 10);
const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);

/**
 * One request per GET-capable method, with every documented parameter (optional ones included), as
 * the strings a query string carries. `fields` are the response fields the documentation names.
 */
export const READ_CASES: Record<string, { params: Record<string, string>; fields: string[] }> = {
	'/account/balance/get': { params: {}, fields: ['balance'] },
	'/account/get': { params: {}, fields: ['account', 'tariff', 'used'] },
	'/account/summary': { params: {}, fields: ['bots', 'groups', 'chains', 'lists'] },
	'/log/get': {
		params: { path: 'group/list', status: '200', failed: 'false', from: '2000-01-01', limit: '5', offset: '0' },
		fields: ['items', 'total'],
	},
	'/subscriber/get': { params: { ...TG, messenger: 'telegram' }, fields: ['subscriber'] },
	'/subscriber/find': {
		params: { query: 'ali', tag: 'vip', botid: 'bot_tg', limit: '5', offset: '0' },
		fields: ['items'],
	},
	'/subscriber/list': {
		params: {
			botid: 'bot_tg',
			messenger: 'telegram',
			tag: 'vip',
			active: 'true',
			blocked: 'false',
			dialog: 'true',
			from: '2000-01-01',
			to: '2999-12-31',
			sort: 'new',
			limit: '5',
			offset: '0',
		},
		fields: ['items', 'total'],
	},
	'/subscriber/tag/list': { params: TG, fields: ['tags'] },
	'/subscriber/data/get': { params: { ...TG, chaincode: '1001' }, fields: ['chains'] },
	'/subscriber/chat/get': { params: { ...TG, limit: '2', offset: '1' }, fields: ['items'] },
	'/subscriber/chains/get': { params: TG, fields: ['chains'] },
	'/list/all': { params: { group: 'grp_sales' }, fields: ['items'] },
	'/list/rows/get': { params: { listid: '1', limit: '2', offset: '1', sort: 'new' }, fields: ['items', 'total'] },
	'/list/rows/find': {
		params: { list: 'Leads', column: 'Name', value: 'SMITH', exact: 'false', limit: '5' },
		fields: ['items'],
	},
	'/catalog/get': { params: { webappid: '1' }, fields: ['link', 'notice'] },
	'/webapp/delete': { params: { id: '1' }, fields: ['result'] },
	'/bot/list': { params: {}, fields: ['items'] },
	'/group/list': { params: {}, fields: ['items'] },
	'/crm/board': { params: { botid: 'bot_tg' }, fields: ['stages'] },
	'/stat/get': { params: { from: monthAgo, to: today, botid: 'bot_tg' }, fields: ['items'] },
	'/hook/list': { params: { limit: '5', offset: '0' }, fields: ['items', 'total'] },
	'/hook/deliveries': { params: { status: 'delivered', limit: '5', offset: '0' }, fields: ['items', 'total'] },
};

/** Numeric and boolean strings as JSON numbers and booleans: the other way a client may send them. */
export function typedForm(params: Record<string, string>): Record<string, unknown> {
	return Object.fromEntries(
		Object.entries(params).map(([name, value]) => {
			if (/^(0|[1-9]\d*)$/.test(value)) return [name, Number(value)];
			if (value === 'true' || value === 'false') return [name, value === 'true'];
			return [name, value];
		}),
	);
}

/** What the good-call sequence remembers between steps (ids made by earlier calls). */
export interface Memory {
	broadcast?: string;
	listid?: number;
	itemid?: number;
	bulkIds?: number[];
	hookid?: string;
	keyid?: string;
	[name: string]: unknown;
}

export interface ChangeCase {
	path: string;
	body: (memory: Memory) => Record<string, unknown>;
	/** Response fields the documentation names (or the sandbox documents where it names none). */
	fields: string[];
	remember?: (body: unknown, memory: Memory) => void;
}

/** A change whose answer later steps need: `remember` reads it as the contract types the path's answer. */
function remembering<P extends string>(change: {
	path: P;
	body: (memory: Memory) => Record<string, unknown>;
	fields: string[];
	remember: (body: AnswerOf<P, 'post'>, memory: Memory) => void;
}): ChangeCase {
	return { ...change, remember: change.remember as (body: unknown, memory: Memory) => void };
}

const NEW_CARD = { botid: 'bot_tg', clientid: 555001 };

/**
 * A valid call of every method that changes data, in an order that works on a fresh seeded sandbox.
 * Numbers are sent as JSON numbers in some calls and as strings in others, booleans likewise.
 */
export const GOOD_CHANGES: ChangeCase[] = [
	{
		path: '/subscriber/create',
		body: () => ({ ...NEW_CARD, messenger: 'telegram', name: 'Zed', username: 'zed', note: 'n' }),
		fields: ['subscriber', 'created'],
	},
	{
		path: '/subscriber/update',
		body: () => ({ ...NEW_CARD, name: 'Zed Two', username: 'z2', note: 'n2' }),
		fields: ['subscriber'],
	},
	{ path: '/subscriber/tag/add', body: () => ({ ...NEW_CARD, tag: ['t1', 't2'] }), fields: ['tags', 'chains'] },
	{ path: '/subscriber/tag/remove', body: () => ({ ...NEW_CARD, tag: 't2' }), fields: ['tags'] },
	{
		path: '/subscriber/data/set',
		body: () => ({ ...NEW_CARD, data: { a: 1 }, chaincode: 1001 }),
		fields: ['ok', 'chains'],
	},
	{
		path: '/message/send',
		body: () => ({ ...NEW_CARD, text: 'hi', buttons: [{ name: 'Site', url: 'https://example.com' }] }),
		fields: ['ok', 'sent'],
	},
	{
		path: '/block/start',
		body: () => ({ ...NEW_CARD, chaincode: 1001, stepcode: 1, block: 2, data: { x: 'y' } }),
		fields: ['ok', 'block'],
	},
	{ path: '/chain/start', body: () => ({ ...NEW_CARD, chaincode: '1001', data: { promo: 'P' } }), fields: ['ok'] },
	{ path: '/message/next/clear', body: () => NEW_CARD, fields: ['result'] },
	{ path: '/chain/stop', body: () => ({ ...NEW_CARD, chaincode: '' }), fields: ['ok', 'stopped'] },
	{ path: '/subscriber/block', body: () => NEW_CARD, fields: ['subscriber'] },
	{ path: '/subscriber/unblock', body: () => ({ ...NEW_CARD, messenger: 'telegram' }), fields: ['subscriber'] },
	remembering({
		path: '/broadcast/send',
		body: () => ({ text: 'b', botid: 'bot_tg', tag: ['vip', 't1'], dialog: 'false', name: 'promo', buttons: [] }),
		fields: ['ok', 'planned', 'code'],
		remember: (body, memory) => (memory.broadcast = body.code),
	}),
	{ path: '/broadcast/stop', body: (memory) => ({ code: memory.broadcast }), fields: ['ok', 'cleared'] },
	{ path: '/crm/stage/set', body: () => ({ ...NEW_CARD, stage: 'Won' }), fields: ['ok'] },
	{ path: '/subscriber/delete', body: () => ({ ...NEW_CARD, messenger: 'telegram' }), fields: ['result'] },
	remembering({
		path: '/list/create',
		body: () => ({
			name: 'Contract',
			headers: ['CreationDate', 'ClientID', 'Messenger', 'BotID', 'Имя'],
			group: 'grp_sales',
		}),
		fields: ['list'],
		remember: (body, memory) => (memory.listid = body.list.id),
	}),
	{
		path: '/list/row/add',
		body: (memory) => ({
			listid: String(memory.listid),
			row: { Имя: 'a' },
			clientid: 1,
			messenger: 'telegram',
			botid: 'bot_tg',
		}),
		fields: ['row', 'trimmed'],
	},
	{
		path: '/list/rows/add',
		body: (memory) => ({ listid: memory.listid, rows: [{ Имя: 'b' }, ['', '', '', '', 'c']] }),
		fields: ['rows'],
	},
	{ path: '/list/row/edit', body: () => ({ list: 'Contract', rowid: '1', row: { Имя: 'x' } }), fields: ['row'] },
	{ path: '/list/row/delete', body: (memory) => ({ listid: memory.listid, rowids: [2, 3] }), fields: ['ok'] },
	{ path: '/list/clear', body: (memory) => ({ listid: memory.listid }), fields: ['ok'] },
	remembering({
		path: '/catalog/item/create',
		body: () => ({ webappid: 1, title: 't', price: '10', hide: 'false', order: 3 }),
		fields: ['id', 'result'],
		remember: (body, memory) => (memory.itemid = body.id),
	}),
	{
		path: '/catalog/item/edit',
		body: (memory) => ({ webappid: '1', itemid: String(memory.itemid), price: 12 }),
		fields: ['result'],
	},
	remembering({
		path: '/catalog/item/bulk/create',
		body: () => ({ webappid: 1, items: [{ title: 'a' }, { title: 'b', hide: true }] }),
		fields: ['id', 'result'],
		remember: (body, memory) => (memory.bulkIds = body.id),
	}),
	{
		path: '/catalog/item/bulk/edit',
		body: (memory) => ({ webappid: 1, items: [{ itemid: memory.bulkIds?.[0], hide: 'true' }] }),
		fields: ['result'],
	},
	{
		path: '/catalog/item/bulk/delete',
		body: (memory) => ({ items: [{ itemid: String(memory.bulkIds?.[1]) }] }),
		fields: ['result'],
	},
	{ path: '/catalog/item/delete', body: (memory) => ({ itemid: memory.itemid }), fields: ['result'] },
	{ path: '/catalog/items/delete', body: () => ({ webappid: '1' }), fields: ['result'] },
	{ path: '/webapp/delete', body: () => ({ id: 1 }), fields: ['result'] },
	remembering({
		path: '/hook/create',
		body: () => ({ name: 'h', url: 'http://127.0.0.1:9/hook', events: 'subscriber.new' }),
		fields: ['hook', 'secret'],
		remember: (body, memory) => (memory.hookid = body.hook.id),
	}),
	{ path: '/hook/delete', body: (memory) => ({ id: memory.hookid }), fields: ['ok'] },
	remembering({
		path: '/key/create',
		body: () => ({ name: 'k', scopes: 'lists:read', bots: 'bot_tg', days: '2' }),
		fields: ['key'],
		remember: (body, memory) => (memory.keyid = body.key.id),
	}),
	{ path: '/key/revoke', body: (memory) => ({ id: memory.keyid }), fields: ['ok'] },
];

/**
 * One almost-valid request per method that changes data, wrong in exactly one parameter (often the
 * last one read), so that a handler writing before it validates would leave a trace.
 */
export const BAD_CHANGES: { path: string; body: Record<string, unknown>; param: string }[] = [
	{ path: '/subscriber/create', body: { ...TG, name: 'Changed', note: { no: 1 } }, param: 'note' },
	{ path: '/subscriber/update', body: { ...TG, name: 'Changed', note: [] }, param: 'note' },
	{ path: '/subscriber/tag/add', body: { ...TG, tag: ['fresh', ''] }, param: 'tag' },
	{ path: '/subscriber/tag/remove', body: { ...TG, tag: ['vip', 5] }, param: 'tag' },
	{ path: '/subscriber/data/set', body: { ...TG, data: { promo: 'NEW', bad: {} } }, param: 'data' },
	{ path: '/subscriber/block', body: { botid: 'bot_tg', clientid: 'nobody' }, param: 'clientid' },
	{
		path: '/subscriber/unblock',
		body: { botid: 'bot_tg', clientid: '100004', messenger: 'whatsapp' },
		param: 'messenger',
	},
	{ path: '/subscriber/delete', body: { ...TG, messenger: 'whatsapp' }, param: 'messenger' },
	{
		path: '/message/send',
		body: { ...TG, text: 'hi', buttons: [{ name: 'x', url: 'ftp://example.com' }] },
		param: 'buttons',
	},
	{ path: '/message/next/clear', body: { botid: 'bot_tg', clientid: 'nobody' }, param: 'clientid' },
	{
		path: '/block/start',
		body: { ...TG, chaincode: '1001', stepcode: '1', block: 9, data: { promo: 'NEW' } },
		param: 'block',
	},
	{ path: '/chain/start', body: { ...TG, chaincode: '1001', data: { promo: 'NEW', bad: [1] } }, param: 'data' },
	{ path: '/chain/stop', body: { ...TG, chaincode: '9999' }, param: 'chaincode' },
	{ path: '/broadcast/send', body: { text: 'x', botid: 'bot_tg', tag: ['vip', 1] }, param: 'tag' },
	{ path: '/broadcast/stop', body: { code: 'brd_nope' }, param: 'code' },
	{ path: '/crm/stage/set', body: { ...TG, stage: 'Nope' }, param: 'stage' },
	{ path: '/list/create', body: { name: 'Leads', headers: ['A'] }, param: 'name' },
	{ path: '/list/clear', body: { listid: 999 }, param: 'listid' },
	{ path: '/list/row/add', body: { list: 'Leads', row: { Name: 'x', Nope: 'x' } }, param: 'row' },
	{ path: '/list/rows/add', body: { list: 'Leads', rows: [{ Name: 'ok' }, { Nope: 1 }] }, param: 'rows[1]' },
	{ path: '/list/row/edit', body: { list: 'Leads', rowid: 1, values: ['only one'] }, param: 'values' },
	{ path: '/list/row/delete', body: { list: 'Leads', rowids: [1, 999] }, param: 'rowids' },
	{ path: '/catalog/item/create', body: { webappid: 1, title: 'x', price: {} }, param: 'price' },
	{ path: '/catalog/item/edit', body: { webappid: 1, itemid: 1, title: 'changed', hide: 'maybe' }, param: 'hide' },
	{ path: '/catalog/item/delete', body: { itemid: 9999 }, param: 'itemid' },
	{
		path: '/catalog/item/bulk/create',
		body: { webappid: 1, items: [{ title: 'a' }, { colour: 'red' }] },
		param: 'items[1].colour',
	},
	{
		path: '/catalog/item/bulk/edit',
		body: { webappid: 1, items: [{ itemid: 1, title: 'x' }, { itemid: 9999 }] },
		param: 'items[1].itemid',
	},
	{ path: '/catalog/item/bulk/delete', body: { items: [{ itemid: 1 }, { itemid: 9999 }] }, param: 'items[1].itemid' },
	{ path: '/catalog/items/delete', body: { webappid: 42 }, param: 'webappid' },
	{ path: '/webapp/delete', body: { id: 42 }, param: 'id' },
	{
		path: '/hook/create',
		body: { name: 'h', url: 'http://127.0.0.1:9/x', events: ['subscriber.new', 'order.paid'] },
		param: 'events',
	},
	{ path: '/hook/delete', body: { id: 'hook_nope' }, param: 'id' },
	{ path: '/key/create', body: { name: 'k', scopes: ['lists:read'], days: 0 }, param: 'days' },
	{ path: '/key/revoke', body: { id: 'key_nope' }, param: 'id' },
];

/**
 * Every method that names a bot (or a subscriber, a broadcast or a key of bots), called for bot_tg's
 * objects: a key restricted to bot_wa must get 403 bot_forbidden on each.
 */
export const BOT_CALLS: { path: string; body: (memory: Memory) => Record<string, unknown> }[] = [
	{ path: '/subscriber/get', body: () => TG },
	{ path: '/subscriber/get', body: (memory) => ({ subscriber: memory.aliceId }) },
	{ path: '/subscriber/find', body: () => ({ query: 'a', botid: 'bot_tg' }) },
	{ path: '/subscriber/list', body: () => ({ botid: 'bot_tg' }) },
	{ path: '/subscriber/tag/list', body: () => TG },
	{ path: '/subscriber/data/get', body: () => TG },
	{ path: '/subscriber/chat/get', body: () => TG },
	{ path: '/subscriber/chains/get', body: () => TG },
	{ path: '/subscriber/create', body: () => ({ botid: 'bot_tg', clientid: '777', name: 'Intruder' }) },
	{ path: '/subscriber/update', body: () => ({ ...TG, name: 'Intruder' }) },
	{ path: '/subscriber/tag/add', body: () => ({ ...TG, tag: 'x' }) },
	{ path: '/subscriber/tag/remove', body: () => ({ ...TG, tag: 'vip' }) },
	{ path: '/subscriber/data/set', body: () => ({ ...TG, data: { a: 1 } }) },
	{ path: '/subscriber/block', body: () => TG },
	{ path: '/subscriber/unblock', body: () => TG },
	{ path: '/subscriber/delete', body: () => ({ ...TG, messenger: 'telegram' }) },
	{ path: '/message/send', body: () => ({ ...TG, text: 'x' }) },
	{ path: '/message/next/clear', body: () => TG },
	{ path: '/block/start', body: () => ({ ...TG, chaincode: '1001', stepcode: '1' }) },
	{ path: '/chain/start', body: () => ({ ...TG, chaincode: '1001' }) },
	{ path: '/chain/stop', body: () => TG },
	{ path: '/broadcast/send', body: () => ({ text: 'x', botid: 'bot_tg' }) },
	{ path: '/broadcast/stop', body: (memory) => ({ code: memory.tgBroadcast }) },
	{ path: '/crm/stage/set', body: () => ({ ...TG, stage: 'Won' }) },
	{ path: '/crm/board', body: () => ({ botid: 'bot_tg' }) },
	{ path: '/stat/get', body: () => ({ from: today, to: today, botid: 'bot_tg' }) },
	{ path: '/list/row/add', body: () => ({ list: 'Leads', row: { Name: 'x' }, botid: 'bot_tg' }) },
	{ path: '/list/rows/add', body: () => ({ list: 'Leads', rows: [{ Name: 'x' }], botid: 'bot_tg' }) },
	{ path: '/key/create', body: () => ({ name: 'k', scopes: ['lists:read'], bots: ['bot_tg'] }) },
	{ path: '/key/revoke', body: (memory) => ({ id: memory.tgKeyId }) },
	{ path: '/hook/delete', body: (memory) => ({ id: memory.accountHookId }) },
	{ path: '/hook/deliveries', body: (memory) => ({ hook: memory.accountHookId }) },
];

/** Methods that name no bot: account-wide objects (lists, catalogs, the log) or listings filtered by the key's bots. */
export const BOTLESS_METHODS = [
	'/account/balance/get',
	'/account/get',
	'/account/summary',
	'/log/get',
	'/bot/list',
	'/group/list',
	'/list/all',
	'/list/create',
	'/list/clear',
	'/list/rows/get',
	'/list/rows/find',
	'/list/row/edit',
	'/list/row/delete',
	'/catalog/item/create',
	'/catalog/item/edit',
	'/catalog/item/delete',
	'/catalog/item/bulk/create',
	'/catalog/item/bulk/edit',
	'/catalog/item/bulk/delete',
	'/catalog/items/delete',
	'/catalog/get',
	'/webapp/delete',
	'/hook/create',
	'/hook/list',
];
