import type { ApiCall } from '../api/endpoint';
import { ApiError, conflictingParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import { findBot, findChain, type Bot, type Chain } from './directory';
import type { LinkButton } from './messagingChat';
import { dayKey } from './statsCounters';
import { findSubscriber, type Subscriber, type Variables } from './subscribers';

/**
 * Reading and checking the parameters shared by the subscriber, messaging and CRM methods.
 * Each reader throws a 4xx naming the parameter before any state is touched.
 */

/** `botid` (required): the key must be allowed the bot, and the bot must exist. */
export function requireBot(call: ApiCall): Bot {
	const botid = call.params.requiredString('botid');
	call.assertBot(botid);
	const bot = findBot(call.store, botid);
	if (!bot) throw notFound(`Bot ${botid}`, 'botid');
	return bot;
}

/** `botid` when given, checked like requireBot. */
export function optionalBot(call: ApiCall): Bot | undefined {
	return call.params.has('botid') ? requireBot(call) : undefined;
}

/** The card named by botid + clientid (+ messenger, which must be the bot's when given). */
export function requireSubscriber(call: ApiCall): Subscriber {
	const bot = requireBot(call);
	const clientid = call.params.requiredString('clientid');
	const messenger = call.params.string('messenger');
	const card = findSubscriber(call.store, bot.id, clientid);
	if (!card) throw notFound(`Subscriber ${clientid} of bot ${bot.id}`, 'clientid');
	if (messenger !== undefined && messenger !== card.messenger) {
		throw notFound(`Subscriber ${clientid} of bot ${bot.id} in messenger ${messenger}`, 'messenger');
	}
	return card;
}

/** The bot sends nothing to a blocked subscriber: messages and scenarios are refused. */
export function assertNotBlocked(card: Subscriber): void {
	if (card.blocked) {
		throw new ApiError(
			422,
			'subscriber_blocked',
			`Subscriber ${card.clientid} of bot ${card.botid} is blocked; unblock it with /subscriber/unblock first`,
			{ param: 'clientid' },
		);
	}
}

/*
 * The readers below take values the request validation has let through: the shapes, sizes and formats are the
 * schemas' in src/openapi/endpoints/subscribers.ts (one definition for the document and the check); these only convert.
 */

/** An optional text field (a JSON number is taken as its text); an empty string is kept (it clears the field). */
export function optionalText(params: Params, name: string): string | undefined {
	const value = params.raw(name);
	return value === undefined || value === null ? undefined : String(value);
}

export function requireText(params: Params, name = 'text'): string {
	return params.requiredString(name);
}

/** `buttons`: link buttons {name, url}. */
export function readButtons(params: Params): LinkButton[] {
	return ((params.array('buttons') ?? []) as LinkButton[]).map(({ name, url }) => ({ name, url }));
}

/** A tag or an array of tags: trimmed, without duplicates. */
export function readTags(params: Params, name: string, required: boolean): string[] | undefined {
	const raw = required ? params.requiredStringList(name) : params.stringList(name);
	return raw === undefined ? undefined : [...new Set(raw.map((tag) => tag.trim()))];
}

/** `chaincode`: a chain of the given bot. */
export function readChain(params: Params, store: ApiCall['store'], botid: string, required: true): Chain;
export function readChain(params: Params, store: ApiCall['store'], botid: string, required: false): Chain | undefined;
export function readChain(
	params: Params,
	store: ApiCall['store'],
	botid: string,
	required: boolean,
): Chain | undefined {
	const chaincode = required ? params.requiredString('chaincode') : params.string('chaincode');
	if (chaincode === undefined) return undefined;
	const chain = findChain(store, chaincode);
	if (!chain) throw notFound(`Chain ${chaincode}`, 'chaincode');
	if (chain.botid !== botid)
		throw conflictingParam('chaincode', `names chain ${chaincode} of bot ${chain.botid}, not of bot ${botid}`);
	return chain;
}

/** An object of variables: name -> string, number or boolean (null removes the variable). */
export function readVariables(
	params: Params,
	name: string,
	required: boolean,
): Record<string, Variables[string] | null> | undefined {
	return (required ? params.requiredObject(name) : params.object(name)) as
		Record<string, Variables[string] | null> | undefined;
}

const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar day YYYY-MM-DD. */
export function readDay(params: Params, name: string, required: boolean): string | undefined {
	return required ? params.requiredString(name) : params.string(name);
}

/**
 * `from` / `to` bounds on an ISO time: a calendar day compares by the account time zone's day
 * (both ends inclusive), a full ISO timestamp compares instants.
 */
export function readTimeBound(call: ApiCall, name: 'from' | 'to'): ((iso: string) => boolean) | undefined {
	const value = call.params.string(name);
	if (value === undefined) return undefined;
	const after = name === 'from';
	if (CALENDAR_DAY.test(value)) {
		return (iso) => {
			const day = dayKey(Date.parse(iso), call.options.timezone);
			return after ? day >= value : day <= value;
		};
	}
	const instant = Date.parse(value);
	return (iso) => (after ? Date.parse(iso) >= instant : Date.parse(iso) <= instant);
}
