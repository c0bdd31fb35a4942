/**
 * A program against the client @hey-api/openapi-ts generates from the sandbox's OpenAPI document (types, SDK and
 * fetch client): it must compile, and each typical mistake below must be a type error (test/contractGenerators.test.ts
 * compiles it with and without the @ts-expect-error lines). The generated code sits in ./hey-api at test time.
 */
import { createClient, createConfig } from './hey-api/client';
import { hookCreate, listRowDelete, listRowsAdd, messageSend, subscriberListViaGet } from './hey-api/sdk.gen';

export async function run(baseUrl: string, key: string) {
	const client = createClient(createConfig({ baseUrl, headers: { authorization: key } }));
	const page = await subscriberListViaGet({ client, query: { botid: 'bot_tg', active: true, limit: 2 } });
	const first = page.data?.items[0];
	const sent = await messageSend({
		client,
		body: {
			botid: 'bot_tg',
			clientid: first?.clientid ?? '',
			text: 'hi',
			buttons: [{ name: 'Site', url: 'https://example.com' }],
		},
	});
	const added = await listRowsAdd({ client, body: { list: 'Leads', rows: [{ Name: 'A' }, ['B']] } });
	return { sent: sent.data?.sent, added: added.data?.count };
}

/** The five typical mistakes: each refused by the generated types. */
export function mistakes(client: ReturnType<typeof createClient>) {
	return [
		// @ts-expect-error /message/send needs a text
		messageSend({ client, body: { botid: 'bot_tg', clientid: '100001' } }),
		// @ts-expect-error row numbers are integers
		listRowDelete({ client, body: { list: 'Leads', rowids: ['x'] } }),
		// @ts-expect-error an event kind the service does not have
		hookCreate({ client, body: { name: 'h', url: 'https://example.com/hook', events: ['order.paid'] } }),
		// @ts-expect-error rows is an array of rows
		listRowsAdd({ client, body: { list: 'Leads', rows: 'Name=x' } }),
		// @ts-expect-error active is true or false
		subscriberListViaGet({ client, query: { active: 'yes' } }),
	];
}
