import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { subscriberKey, text } from '../../common/params';
import { apiRequest } from '../../../transport/request';
import type { Subscriber } from './question';

/** Whom Send and Wait for Response asks: one subscriber, the subscribers of a list of Client IDs, or of a tag. */
export type AskWhom = 'one' | 'list' | 'tag';
export const ASK_WHOM: AskWhom[] = ['one', 'list', 'tag'];

/**
 * The most subscribers one question goes to: each gets a message of their own, sent one after another within the
 * service's rate limit, while the execution has not yet begun to wait.
 */
export const MAX_ASKED = 50;

function fail(context: IExecuteFunctions, message: string, description: string): never {
	throw new NodeOperationError(context.getNode(), message, { description });
}

export function askWhomOf(this: IExecuteFunctions): AskWhom {
	const value = this.getNodeParameter('askWhom', 0, 'one') as string;
	if (!(ASK_WHOM as string[]).includes(value))
		fail(this, `The field "Ask" must be one of ${ASK_WHOM.join(', ')}, not "${value}"`, 'Pick whom to ask.');
	return value as AskWhom;
}

/** A subscriber as the service's card names them. */
function fromCard(botId: string, card: IDataObject | undefined, clientId: string): Subscriber {
	return {
		botId,
		clientId,
		messenger: typeof card?.messenger === 'string' ? card.messenger : undefined,
	};
}

async function cardOf(this: IExecuteFunctions, botId: string, clientId: string): Promise<Subscriber> {
	const { subscriber } = await apiRequest.call(this, {
		method: 'GET',
		path: '/subscriber/get',
		params: { botid: botId, clientid: clientId },
		itemIndex: 0,
	});
	return fromCard(botId, subscriber as IDataObject | undefined, clientId);
}

/**
 * Client IDs as a field gives them: a list from an expression, or a text separated by commas, spaces or lines; each
 * once, in the order given, blanks left out.
 */
export function clientIdList(raw: unknown): string[] {
	const values = Array.isArray(raw) ? raw.map((value) => String(value ?? '')) : String(raw ?? '').split(/[\s,;]+/);
	return [...new Set(values.map((value) => value.trim()).filter((value) => value !== ''))];
}

/** The Client IDs of "Client IDs": a list from an expression, or a text separated by commas, spaces or lines. */
function clientIdsOf(this: IExecuteFunctions): string[] {
	const ids = clientIdList(this.getNodeParameter('clientIds', 0, '') as unknown);
	if (ids.length === 0)
		fail(
			this,
			'The field "Client IDs" is empty',
			'Give the Client IDs of the subscribers to ask, separated by commas, or an expression that gives a list.',
		);
	if (ids.length > MAX_ASKED)
		fail(
			this,
			`The field "Client IDs" names ${ids.length} subscribers; one question goes to at most ${MAX_ASKED}`,
			'Ask fewer subscribers, or split them over several questions.',
		);
	return ids;
}

/** The active, unblocked subscribers of the bot with the tag: at most MAX_ASKED, refused when there are more. */
async function taggedSubscribers(this: IExecuteFunctions, botId: string): Promise<Subscriber[]> {
	const tag = text.call(this, 'tag', 0, true);
	const answer = await apiRequest.call(this, {
		method: 'GET',
		path: '/subscriber/list',
		params: { botid: botId, tag, active: true, blocked: false, limit: MAX_ASKED + 1 },
		itemIndex: 0,
	});
	const items = (Array.isArray(answer.items) ? answer.items : []) as IDataObject[];
	const total = typeof answer.total === 'number' ? answer.total : items.length;
	if (total > MAX_ASKED || items.length > MAX_ASKED)
		fail(
			this,
			`The tag "${tag}" has ${Math.max(total, items.length)} active subscribers in bot ${botId}; one question goes to at most ${MAX_ASKED}`,
			'Use a tag that fewer subscribers have, or give their Client IDs.',
		);
	if (items.length === 0)
		fail(
			this,
			`No active subscriber of bot ${botId} has the tag "${tag}"`,
			'Nothing was sent. Check the tag (tags are matched exactly) and the bot.',
		);
	return items.map((card) => fromCard(botId, card, String(card.clientid ?? '')));
}

/** Who is asked, each with the messenger of their card (the output names it). */
export async function askedSubscribersOf(this: IExecuteFunctions, askWhom: AskWhom): Promise<Subscriber[]> {
	if (askWhom === 'one') {
		const key = subscriberKey.call(this, 0);
		return [await cardOf.call(this, String(key.botid), String(key.clientid))];
	}
	const botId = text.call(this, 'botId', 0, true);
	if (askWhom === 'tag') return await taggedSubscribers.call(this, botId);
	return await subscribersByClientId.call(this, botId, clientIdsOf.call(this));
}

/** The subscribers of the bot with these Client IDs, each with the messenger of their card, in the order given. */
export async function subscribersByClientId(
	this: IExecuteFunctions,
	botId: string,
	clientIds: string[],
): Promise<Subscriber[]> {
	const found: Subscriber[] = [];
	for (const clientId of clientIds) found.push(await cardOf.call(this, botId, clientId));
	return found;
}
