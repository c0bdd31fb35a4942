/**
 * A program against the client swagger-typescript-api generates from the sandbox's OpenAPI document: it must
 * compile, and each typical mistake below must be a type error (test/contractGenerators.test.ts compiles it with and
 * without the @ts-expect-error lines). The generated code sits in ./swagger-typescript-api at test time.
 */
import { Api } from './swagger-typescript-api/api';

export async function run(baseUrl: string, key: string) {
	const api = new Api({ baseUrl, baseApiParams: { headers: { authorization: key } } });
	const page = await api.subscriber.subscriberListViaGet({ botid: 'bot_tg', active: true, limit: 2 });
	const first = page.data.items[0];
	const sent = await api.message.messageSend({
		botid: 'bot_tg',
		clientid: first?.clientid ?? '',
		text: 'hi',
		buttons: [{ name: 'Site', url: 'https://example.com' }],
	});
	const added = await api.list.listRowsAdd({ list: 'Leads', rows: [{ Name: 'A' }, ['B']] });
	return { sent: sent.data.sent, added: added.data.count };
}

/** The five typical mistakes: each refused by the generated types. */
export function mistakes(api: Api<unknown>) {
	return [
		// @ts-expect-error /message/send needs a text
		api.message.messageSend({ botid: 'bot_tg', clientid: '100001' }),
		// @ts-expect-error row numbers are integers
		api.list.listRowDelete({ list: 'Leads', rowids: ['x'] }),
		// @ts-expect-error an event kind the service does not have
		api.hook.hookCreate({ name: 'h', url: 'https://example.com/hook', events: ['order.paid'] }),
		// @ts-expect-error rows is an array of rows
		api.list.listRowsAdd({ list: 'Leads', rows: 'Name=x' }),
		// @ts-expect-error active is true or false
		api.subscriber.subscriberListViaGet({ active: 'yes' }),
	];
}
