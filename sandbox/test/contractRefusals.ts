/**
 * Requests the document itself refuses (a parameter's schema, a required one, a closed list): the sandbox answers each
 * with 422 naming `param`, and a validator generated from the document should refuse each before sending it. The
 * generators test holds the generated zod schemas to these, and lists what each generator lets through.
 */

const TG = { botid: 'bot_tg', clientid: '100001' };
const BUTTON = { name: 'Open', url: 'https://example.com/' };
const HOOK = { name: 'h', url: 'https://example.com/hook', events: ['subscriber.new'] };

export interface Refusal {
	/** Names the case in failures and in the lists of what a generator lets through. */
	name: string;
	path: string;
	body: Record<string, unknown>;
	param: string;
}

export const SCHEMA_REFUSALS: Refusal[] = [
	{ name: 'limit 0', path: '/subscriber/list', body: { limit: 0 }, param: 'limit' },
	{ name: 'limit 1001', path: '/subscriber/list', body: { limit: 1001 }, param: 'limit' },
	{ name: 'limit "0"', path: '/subscriber/list', body: { limit: '0' }, param: 'limit' },
	{ name: 'limit 1.5', path: '/subscriber/list', body: { limit: 1.5 }, param: 'limit' },
	{ name: 'offset -1', path: '/subscriber/list', body: { offset: -1 }, param: 'offset' },
	{ name: 'active "yes"', path: '/subscriber/list', body: { active: 'yes' }, param: 'active' },
	{ name: 'sort "sideways"', path: '/subscriber/list', body: { sort: 'sideways' }, param: 'sort' },
	{ name: 'query blank', path: '/subscriber/find', body: { query: '  ' }, param: 'query' },
	{ name: 'no text', path: '/message/send', body: { ...TG }, param: 'text' },
	{ name: 'text true', path: '/message/send', body: { ...TG, text: true }, param: 'text' },
	{ name: 'text blank', path: '/message/send', body: { ...TG, text: ' ' }, param: 'text' },
	{ name: 'text 4097', path: '/message/send', body: { ...TG, text: 'x'.repeat(4097) }, param: 'text' },
	{
		name: '11 buttons',
		path: '/message/send',
		body: { ...TG, text: 'x', buttons: Array(11).fill(BUTTON) },
		param: 'buttons',
	},
	{
		name: 'button url ftp',
		path: '/message/send',
		body: { ...TG, text: 'x', buttons: [{ name: 'x', url: 'ftp://example.com/' }] },
		param: 'buttons',
	},
	{
		name: 'button name blank',
		path: '/message/send',
		body: { ...TG, text: 'x', buttons: [{ ...BUTTON, name: ' ' }] },
		param: 'buttons',
	},
	{ name: 'tag blank', path: '/subscriber/tag/add', body: { ...TG, tag: ['ok', ''] }, param: 'tag' },
	{ name: 'tags empty', path: '/subscriber/tag/add', body: { ...TG, tag: [] }, param: 'tag' },
	{ name: 'tag 101', path: '/subscriber/tag/add', body: { ...TG, tag: 'x'.repeat(101) }, param: 'tag' },
	{
		name: 'clientid 101',
		path: '/subscriber/create',
		body: { botid: 'bot_tg', clientid: 'x'.repeat(101) },
		param: 'clientid',
	},
	{ name: 'name 1001', path: '/subscriber/update', body: { ...TG, name: 'x'.repeat(1001) }, param: 'name' },
	{ name: 'note object', path: '/subscriber/update', body: { ...TG, note: { no: 1 } }, param: 'note' },
	{ name: 'hook url ftp', path: '/hook/create', body: { ...HOOK, url: 'ftp://example.com/x' }, param: 'url' },
	{
		name: 'hook url with user',
		path: '/hook/create',
		body: { ...HOOK, url: 'https://user:pw@example.com/x' },
		param: 'url',
	},
	{
		name: 'hook url 2049',
		path: '/hook/create',
		body: { ...HOOK, url: `https://example.com/${'a'.repeat(2030)}` },
		param: 'url',
	},
	{ name: 'hook name 201', path: '/hook/create', body: { ...HOOK, name: 'x'.repeat(201) }, param: 'name' },
	{ name: 'event kind unknown', path: '/hook/create', body: { ...HOOK, events: ['order.paid'] }, param: 'events' },
	{ name: 'no events', path: '/hook/create', body: { name: 'h', url: HOOK.url }, param: 'events' },
	{ name: 'days 0', path: '/key/create', body: { name: 'k', scopes: ['lists:read'], days: 0 }, param: 'days' },
	{ name: 'days 3651', path: '/key/create', body: { name: 'k', scopes: ['lists:read'], days: 3651 }, param: 'days' },
	{ name: 'scope unknown', path: '/key/create', body: { name: 'k', scopes: ['nope:read'] }, param: 'scopes' },
	{ name: 'headers empty', path: '/list/create', body: { name: 'Fresh', headers: [] }, param: 'headers' },
	{ name: 'headers twice', path: '/list/create', body: { name: 'Fresh', headers: ['A', 'A'] }, param: 'headers' },
	{ name: "rowids ['x']", path: '/list/row/delete', body: { list: 'Leads', rowids: ['x'] }, param: 'rowids' },
	{ name: 'rows a string', path: '/list/rows/add', body: { list: 'Leads', rows: 'x' }, param: 'rows' },
	{ name: 'items empty', path: '/catalog/item/bulk/create', body: { webappid: 1, items: [] }, param: 'items' },
	{ name: 'from not a date', path: '/stat/get', body: { from: '2026-13-01', to: '2026-01-02' }, param: 'from' },
];

/** Requests the document takes, next to those it refuses: a generated schema must not refuse them either. */
export const SCHEMA_ACCEPTS: { path: string; body: Record<string, unknown> }[] = [
	{ path: '/subscriber/list', body: { limit: '1000', offset: 0, active: 'true', sort: 'new' } },
	{
		path: '/message/send',
		body: { ...TG, text: 'x'.repeat(4096), buttons: [BUTTON, { name: 'b', url: 'http://a/b?c#d' }] },
	},
	{ path: '/hook/create', body: { ...HOOK, url: 'https://example.com:8443/hook?x=1' } },
	{ path: '/key/create', body: { name: 'k', scopes: 'lists:read', days: '3650' } },
	{ path: '/list/create', body: { name: 'Fresh', headers: ['A', 'B'] } },
	{ path: '/stat/get', body: { from: '2026-01-01', to: '2026-01-02' } },
];
