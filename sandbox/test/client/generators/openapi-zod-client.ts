/**
 * A program against the client openapi-zod-client generates from the sandbox's OpenAPI document (zod schemas and a
 * Zodios client): it must compile, and each typical mistake below must be a type error (test/contractGenerators.test.ts
 * compiles it with and without the @ts-expect-error lines). The generated code sits in ./openapi-zod-client at test time.
 */
import { createApiClient } from './openapi-zod-client/client';

export async function run(baseUrl: string, key: string) {
	const api = createApiClient(baseUrl, { axiosConfig: { headers: { authorization: key } } });
	const page = await api.subscriberListViaGet({ queries: { botid: 'bot_tg', active: true, limit: 2 } });
	const first = page.items[0];
	const sent = await api.messageSend({
		botid: 'bot_tg',
		clientid: first?.clientid ?? '',
		text: 'hi',
		buttons: [{ name: 'Site', url: 'https://example.com' }],
	});
	const added = await api.listRowsAdd({ list: 'Leads', rows: [{ Name: 'A' }, ['B']] });
	return { sent: sent.sent, added: added.count };
}

/** The five typical mistakes: each refused by the generated types. */
export function mistakes(api: ReturnType<typeof createApiClient>) {
	return [
		// @ts-expect-error /message/send needs a text
		api.messageSend({ botid: 'bot_tg', clientid: '100001' }),
		// @ts-expect-error row numbers are integers
		api.listRowDelete({ list: 'Leads', rowids: ['x'] }),
		// @ts-expect-error an event kind the service does not have
		api.hookCreate({ name: 'h', url: 'https://example.com/hook', events: ['order.paid'] }),
		// @ts-expect-error rows is an array of rows
		api.listRowsAdd({ list: 'Leads', rows: 'Name=x' }),
		// @ts-expect-error active is true or false
		api.subscriberListViaGet({ queries: { active: 'yes' } }),
	];
}
