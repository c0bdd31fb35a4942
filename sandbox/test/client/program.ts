/**
 * A program written against a client generated from the sandbox's OpenAPI document (openapi-typescript types,
 * openapi-fetch), the way a developer with nothing but the document would write it. It must compile with no
 * error (test/clientGeneration.test.ts runs tsc on it) and work against a running sandbox; `mistakes` sends
 * requests the document forbids, each of which the generated types refuse (@ts-expect-error fails the compile
 * the day a type lets one through).
 */
import createClient from 'openapi-fetch';
import type { paths } from './openapi';

export type SandboxClient = ReturnType<typeof createClient<paths>>;

export function sandboxClient(baseUrl: string, key: string): SandboxClient {
	return createClient<paths>({ baseUrl, headers: { authorization: key } });
}

/** Reads in GET and POST form, a row added with its Idempotency-Key, a bulk catalog write. */
export async function run(client: SandboxClient, idempotencyKey: string) {
	const balance = await client.GET('/account/balance/get');
	const page = await client.GET('/subscriber/list', { params: { query: { botid: 'bot_tg', sort: 'new', limit: 2 } } });
	const first = page.data?.items[0];
	const card = await client.POST('/subscriber/get', { body: { botid: 'bot_tg', clientid: first?.clientid ?? '' } });
	const variables = await client.POST('/subscriber/data/get', {
		body: { botid: 'bot_tg', clientid: card.data?.subscriber.clientid ?? '' },
	});
	const added = await client.POST('/list/row/add', {
		params: { header: { 'Idempotency-Key': idempotencyKey } },
		body: { list: 'Leads', row: { Name: 'Generated client', Phone: '+15550999' } },
	});
	const rows = await client.POST('/list/rows/get', { body: { list: 'Leads', sort: 'new', limit: 1 } });
	const newest = rows.data?.items[0];
	const created = await client.POST('/catalog/item/bulk/create', {
		body: {
			webappid: '1',
			items: [
				{ title: 'Generated mug', price: 7.5, hide: false },
				{ title: 'Generated cap', price: '12.00', sizes: 'S,M' },
			],
		},
	});
	const stats = await client.GET('/stat/get', { params: { query: { from: '2026-01-01', to: '2026-01-31' } } });
	return {
		balance: balance.data?.balance,
		firstClientid: first?.clientid,
		cardName: card.data?.subscriber.name,
		chains: variables.data?.chains.map((chain) => ({ chaincode: chain.chaincode, variables: chain.variables })),
		addedRow: added.data?.row.row,
		newestName: newest?.row.Name,
		itemIds: created.data?.id,
		statDays: stats.data?.items.length,
	};
}

/** Requests the spec forbids: the generated types refuse each one; sent anyway, the sandbox refuses each one. */
export function mistakes(client: SandboxClient) {
	return [
		// @ts-expect-error a button is an object {name, url}, not a number
		client.POST('/message/send', { body: { botid: 'bot_tg', clientid: '100001', text: 'hi', buttons: [5] } }),
		// @ts-expect-error row numbers are integers
		client.POST('/list/row/delete', { body: { list: 'Leads', rowids: ['x'] } }),
		// @ts-expect-error an event kind the service does not have
		client.POST('/hook/create', { body: { name: 'h', url: 'https://example.com/hook', events: ['order.paid'] } }),
		// @ts-expect-error rows are sorted old or new
		client.POST('/list/rows/get', { body: { list: 'Leads', sort: 'sideways' } }),
		// @ts-expect-error /subscriber/get needs botid with clientid, or subscriber
		client.POST('/subscriber/get', { body: {} }),
		// @ts-expect-error /list/rows/get needs listid or list
		client.POST('/list/rows/get', { body: { limit: 5 } }),
		// @ts-expect-error a title is text, not a flag
		client.POST('/catalog/item/create', { body: { webappid: '1', title: true } }),
		// @ts-expect-error hide is true or false
		client.POST('/catalog/item/bulk/create', { body: { webappid: '1', items: [{ title: 'x', hide: 'maybe' }] } }),
		// @ts-expect-error a scope the service does not have
		client.POST('/key/create', { body: { name: 'k', scopes: ['everything'] } }),
		// @ts-expect-error /message/send needs a text
		client.POST('/message/send', { body: { botid: 'bot_tg', clientid: '100001' } }),
		// @ts-expect-error rows is an array of rows
		client.POST('/list/rows/add', { body: { list: 'Leads', rows: 'Name=x' } }),
		// @ts-expect-error active is true or false
		client.GET('/subscriber/list', { params: { query: { active: 'yes' } } }),
	];
}
