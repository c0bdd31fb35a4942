import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { botIdOf, listBots, recordLabel } from './bots';

/** The messenger of each bot the key sees, read once per run of the node (one `/bot/list` for all its items). */
const botMessengers = new WeakMap<IExecuteFunctions, Promise<Map<string, string>>>();

function messengersOfBots(this: IExecuteFunctions): Promise<Map<string, string>> {
	let messengers = botMessengers.get(this);
	if (!messengers) {
		// The change was made already: a key that may not list bots still gets its output, with the messenger unknown (null).
		messengers = listBots
			.call(this)
			.then((bots) => new Map(bots.map((bot) => [botIdOf(bot), recordLabel(bot, 'messenger')] as const)))
			.catch(() => new Map<string, string>());
		botMessengers.set(this, messengers);
	}
	return messengers;
}

/**
 * Whom a change went to, as the service addresses a subscriber: bot, client ID and messenger. The
 * messenger is the one sent, else the one in the answer's card, else the bot's (a subscriber lives in
 * its bot's messenger); null when the service tells none of these.
 */
export async function recipientOf(
	this: IExecuteFunctions,
	sent: IDataObject,
	answer: IDataObject,
): Promise<IDataObject> {
	const card = (answer.subscriber as IDataObject | undefined) ?? answer;
	const botid = String(sent.botid);
	const messenger =
		recordLabel(sent, 'messenger') ||
		recordLabel(card, 'messenger') ||
		(await messengersOfBots.call(this)).get(botid) ||
		null;
	return { botid, clientid: String(sent.clientid), messenger };
}

/** What was sent besides the recipient: the request's other parameters, those left empty dropped. */
export function requestBesides(sent: IDataObject, recipientFields: readonly string[]): IDataObject {
	return Object.fromEntries(
		Object.entries(sent).filter(
			([name, value]) => !recipientFields.includes(name) && value !== undefined && value !== null && value !== '',
		),
	);
}
