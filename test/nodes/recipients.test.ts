import type { IDataObject, INodeParameters, INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/**
 * Every operation of the node's description is classified here, by hand: whether it sends, starts or
 * changes something for one subscriber, for a segment (a broadcast), or for nobody. A new operation
 * fails the walk until it is classified. Each one that reaches a subscriber runs through n8n-core's
 * engine against the sandbox for two input items addressed to different subscribers, and each output
 * item must name its own recipient (bot, client ID and the messenger the sandbox keeps for that
 * subscriber) and what was sent.
 */

const TG = { botid: 'bot_tg', clientid: '100001' };
const TG_OTHER = { botid: 'bot_tg', clientid: '100003' };
const WA = { botid: 'bot_wa', clientid: '15550101' };

/** The subscriber from the item, as picker values by ID. */
const addressedByItem: INodeParameters = {
	botId: { __rl: true, mode: 'id', value: '={{ $json.botid }}' },
	clientId: { __rl: true, mode: 'id', value: '={{ $json.clientid }}' },
};

interface ToOneSubscriber {
	parameters: INodeParameters;
	/** The two subscribers the two input items address (default: one in Telegram, one in WhatsApp). */
	items?: Array<{ botid: string; clientid: string }>;
	/** What the output's `request` must be (undefined: nothing besides the recipient was sent). */
	request?: IDataObject;
}

const chain = { __rl: true, mode: 'id', value: '1001' };

/** Operations that send, start or change something for one subscriber. */
const TO_ONE_SUBSCRIBER: Record<string, ToOneSubscriber> = {
	'message/send': {
		parameters: { text: 'Your order is ready', buttons: { values: [{ name: 'Track', url: 'https://example.com/t' }] } },
		request: { text: 'Your order is ready', buttons: [{ name: 'Track', url: 'https://example.com/t' }] },
	},
	'message/clearNext': { parameters: {} },
	'chain/start': {
		parameters: { chainCode: chain, variables: { values: [{ name: 'promo', value: 'N8N' }] } },
		items: [TG, TG_OTHER],
		request: { chaincode: '1001', data: { promo: 'N8N' } },
	},
	'chain/stop': { parameters: { scope: 'all' }, items: [TG, TG_OTHER] },
	'block/start': {
		parameters: { chainCode: chain, stepCode: '1', block: '2' },
		items: [TG, TG_OTHER],
		request: { chaincode: '1001', stepcode: '1', block: '2' },
	},
	'crm/setStage': {
		parameters: { stage: { __rl: true, mode: 'id', value: 'Qualified' } },
		request: { stage: 'Qualified' },
	},
	'subscriber/createOrUpdate': {
		parameters: { additionalFields: { note: 'From the form' } },
		request: { note: 'From the form' },
	},
	'subscriber/update': { parameters: { updateFields: { name: 'Renamed' } }, request: { name: 'Renamed' } },
	'subscriber/addTags': { parameters: { tags: 'vip, newsletter' }, request: { tag: ['vip', 'newsletter'] } },
	'subscriber/removeTag': { parameters: { tag: 'vip' }, request: { tag: 'vip' } },
	'subscriber/setVariables': {
		parameters: { variables: { values: [{ name: 'city', value: 'Lisbon' }] }, scope: 'all' },
		request: { data: { city: 'Lisbon' } },
	},
	'subscriber/block': { parameters: {} },
	'subscriber/unblock': { parameters: {} },
	// Last: it removes the subscribers (created again by Create or Update in a later round).
	'subscriber/delete': { parameters: { messenger: '={{ $json.botid === "bot_wa" ? "whatsapp" : "telegram" }}' } },
};

/** Operations that reach subscribers, but not one: their output names the audience instead. */
const TO_A_SEGMENT = ['broadcast/send'];

/** Send and Wait for Response is reworked on its own branch; its own tests check what its output says. */
const CHECKED_ELSEWHERE: Record<string, string> = {
	'message/sendAndWait': 'its output (after the wait) says who answered; test/nodes/sendAndWait.test.ts',
};

/** Everything else reads, or changes the account (lists, rows, catalogs, hooks, keys), not a subscriber. */
const TO_NOBODY = [
	'account/get',
	'account/getApiLog',
	'account/getBalance',
	'account/getSummary',
	'apiKey/create',
	'apiKey/revoke',
	'bot/getMany',
	'broadcast/stop',
	'catalog/download',
	'catalog/getDownloadLink',
	'catalogItem/create',
	'catalogItem/delete',
	'catalogItem/deleteAll',
	'catalogItem/update',
	'crm/getBoard',
	'list/clear',
	'list/create',
	'list/getMany',
	'listRow/add',
	'listRow/delete',
	'listRow/find',
	'listRow/getMany',
	'listRow/update',
	'project/getMany',
	'statistics/get',
	'subscriber/find',
	'subscriber/get',
	'subscriber/getChatHistory',
	'subscriber/getMany',
	'subscriber/getRunningChains',
	'subscriber/getTags',
	'subscriber/getVariables',
	'webApp/delete',
	'webhook/create',
	'webhook/delete',
	'webhook/getMany',
];

/** Every resource/operation the description offers. */
function operationsOf(properties: INodeProperties[]): string[] {
	const resources = (
		properties.find((property) => property.name === 'resource')!.options as INodePropertyOptions[]
	).map((option) => String(option.value));
	return resources.flatMap((resource) => {
		const operation = properties.find(
			(property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resource),
		);
		return (operation!.options as INodePropertyOptions[]).map((option) => `${resource}/${String(option.value)}`);
	});
}

describe('every operation that reaches a subscriber says to whom and what', () => {
	const operations = operationsOf(new MessengerBotBuilder().description.properties);
	let bed: NodeTestBed;
	/** The messenger the sandbox keeps on each subscriber's card, read through its own API. */
	const messengerOf = async ({ botid, clientid }: IDataObject) =>
		(await bed.api.call('/subscriber/get', { botid, clientid })).subscriber.messenger as string;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0, broadcastIntervalMs: 60_000 });
	});
	afterAll(async () => bed.close());

	it('every operation of the description is classified, once', () => {
		const classified = [
			...Object.keys(TO_ONE_SUBSCRIBER),
			...TO_A_SEGMENT,
			...Object.keys(CHECKED_ELSEWHERE),
			...TO_NOBODY,
		];
		expect(operations.length).toBeGreaterThan(40);
		expect([...classified].sort()).toEqual([...operations].sort());
	});

	it.each(Object.keys(TO_ONE_SUBSCRIBER))('%s: each output item names its recipient and what was sent', async (key) => {
		const [resource, operation] = key.split('/');
		const spec = TO_ONE_SUBSCRIBER[key];
		const items = spec.items ?? [TG, WA];
		// Subscriber → Delete removes them: each operation starts with both present.
		for (const item of items) await bed.api.call('/subscriber/create', { ...item });
		const expected = await Promise.all(items.map(async (item) => ({ ...item, messenger: await messengerOf(item) })));
		expect(new Set(expected.map((recipient) => recipient.clientid)).size).toBe(2);

		const output = await bed.node.json({ resource, operation, ...addressedByItem, ...spec.parameters }, { items });
		expect(output).toHaveLength(2);
		expect(output.map((item) => item.recipient)).toEqual(expected);
		for (const item of output) expect(item.request).toEqual(spec.request);
	});

	it('broadcast/send names its audience (the segment as sent, or everyone) and what was sent', async () => {
		const segmentSend = {
			resource: 'broadcast',
			operation: 'send',
			text: 'Sale today',
			audience: 'segment',
			options: {
				botid: { __rl: true, mode: 'id', value: 'bot_tg' },
				tags: 'newsletter, vip',
				dialog: true,
				name: 'Sale',
			},
		};
		const [segment] = await bed.node.json(segmentSend);
		expect(segment).toMatchObject({
			audience: { botid: 'bot_tg', tag: ['newsletter', 'vip'], dialog: true },
			request: { text: 'Sale today', name: 'Sale' },
		});
		const [everyone] = await bed.node.json({
			resource: 'broadcast',
			operation: 'send',
			text: 'Hello all',
			audience: 'everyone',
		});
		expect(everyone).toMatchObject({ audience: { everyone: true }, request: { text: 'Hello all' } });
		expect(Object.keys(segment.audience as IDataObject).sort()).toEqual(['botid', 'dialog', 'tag']);
	});

	it('a key that may not list bots still gets its output, with the messenger unknown', async () => {
		await bed.api.call('/subscriber/create', { ...TG });
		const key = await bed.api.keyWith(['messages:write']);
		bed.node.useKey('narrow', key, bed.baseUrl);
		const output = await bed.node.json(
			{ resource: 'message', operation: 'send', ...addressedByItem, text: 'Hi' },
			{ items: [TG], credential: 'narrow' },
		);
		expect(output).toEqual([{ ok: true, sent: 1, recipient: { ...TG, messenger: null }, request: { text: 'Hi' } }]);
	});
});
