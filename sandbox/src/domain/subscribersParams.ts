import type { ApiCall } from '../api/endpoint';
import { ApiError, conflictingParam, invalidParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import { LIMITS } from '../openapi/limits';
import { findBot, findChain, type Bot, type Chain } from './directory';
import type { LinkButton } from './messagingChat';
import { dayKey } from './statsCounters';
import { findSubscriber, type Subscriber, type Variables } from './subscribers';

/**
 * Reading and checking the parameters shared by the subscriber, messaging and CRM methods.
 * Each reader throws a 4xx naming the parameter before any state is touched.
 */

export const MAX_TEXT_LENGTH = LIMITS.text;
export const MAX_FIELD_LENGTH = LIMITS.field;
export const MAX_TAG_LENGTH = LIMITS.tag;
export const MAX_BUTTONS = LIMITS.buttons;

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

/** An optional text field; an empty string is kept (it clears the field). */
export function optionalText(params: Params, name: string, maxLength: number = MAX_FIELD_LENGTH): string | undefined {
  const value = params.raw(name);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' && typeof value !== 'number') throw invalidParam(name, 'must be a string');
  const text = String(value);
  if (text.length > maxLength) throw invalidParam(name, `must be at most ${maxLength} characters`);
  return text;
}

export function requireText(params: Params, name = 'text'): string {
  const text = params.requiredString(name);
  if (text.length > MAX_TEXT_LENGTH) throw invalidParam(name, `must be at most ${MAX_TEXT_LENGTH} characters`);
  return text;
}

/** `buttons`: an array of link buttons {name, url} with an http(s) url. */
export function readButtons(params: Params): LinkButton[] {
  const list = params.array('buttons') ?? [];
  if (list.length > MAX_BUTTONS) throw invalidParam('buttons', `must hold at most ${MAX_BUTTONS} buttons`);
  return list.map((item, index) => {
    const where = `buttons[${index}]`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw invalidParam('buttons', `${where} must be an object {name, url}`);
    const { name, url } = item as Record<string, unknown>;
    if (typeof name !== 'string' || name.trim() === '') throw invalidParam('buttons', `${where}.name must be a non-empty string`);
    if (name.length > MAX_TAG_LENGTH) throw invalidParam('buttons', `${where}.name must be at most ${MAX_TAG_LENGTH} characters`);
    if (typeof url !== 'string' || !isWebUrl(url)) throw invalidParam('buttons', `${where}.url must be an http or https URL`);
    return { name, url };
  });
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** A tag or an array of tags: trimmed, non-empty, bounded, without duplicates. */
export function readTags(params: Params, name: string, required: boolean): string[] | undefined {
  const raw = required ? params.requiredStringList(name) : params.stringList(name);
  if (raw === undefined) return undefined;
  const tags = raw.map((tag) => tag.trim());
  if (tags.some((tag) => tag === '')) throw invalidParam(name, 'must not contain empty tags');
  if (tags.some((tag) => tag.length > MAX_TAG_LENGTH)) throw invalidParam(name, `tags must be at most ${MAX_TAG_LENGTH} characters`);
  return [...new Set(tags)];
}

/** `chaincode`: a chain of the given bot. */
export function readChain(params: Params, store: ApiCall['store'], botid: string, required: true): Chain;
export function readChain(params: Params, store: ApiCall['store'], botid: string, required: false): Chain | undefined;
export function readChain(params: Params, store: ApiCall['store'], botid: string, required: boolean): Chain | undefined {
  const chaincode = required ? params.requiredString('chaincode') : params.string('chaincode');
  if (chaincode === undefined) return undefined;
  const chain = findChain(store, chaincode);
  if (!chain) throw notFound(`Chain ${chaincode}`, 'chaincode');
  if (chain.botid !== botid) throw conflictingParam('chaincode', `names chain ${chaincode} of bot ${chain.botid}, not of bot ${botid}`);
  return chain;
}

/** An object of variables: name -> string, number or boolean (null removes the variable). */
export function readVariables(params: Params, name: string, required: boolean): Record<string, Variables[string] | null> | undefined {
  const data = required ? params.requiredObject(name) : params.object(name);
  if (data === undefined) return undefined;
  const names = Object.keys(data);
  if (required && names.length === 0) throw invalidParam(name, 'must name at least one variable');
  for (const variable of names) {
    const value = data[variable];
    if (variable.trim() === '' || variable.length > MAX_TAG_LENGTH) throw invalidParam(name, `has an invalid variable name "${variable.slice(0, 40)}"`);
    if (value !== null && !['string', 'number', 'boolean'].includes(typeof value)) {
      throw invalidParam(name, `variable "${variable}" must be a string, number, boolean or null`);
    }
    if (typeof value === 'string' && value.length > MAX_TEXT_LENGTH) throw invalidParam(name, `variable "${variable}" is longer than ${MAX_TEXT_LENGTH} characters`);
  }
  return data as Record<string, Variables[string] | null>;
}

const CALENDAR_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A strict calendar day YYYY-MM-DD that exists (no 2026-02-30). */
export function readDay(params: Params, name: string, required: boolean): string | undefined {
  const value = required ? params.requiredString(name) : params.string(name);
  if (value === undefined) return undefined;
  if (!isCalendarDay(value)) throw invalidParam(name, 'must be a date YYYY-MM-DD');
  return value;
}

export function isCalendarDay(value: string): boolean {
  if (!CALENDAR_DAY.test(value)) return false;
  const time = Date.parse(`${value}T00:00:00Z`);
  // Date.parse rolls 2026-02-30 over to March; a real day survives the round trip.
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(value);
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
    if (!isCalendarDay(value)) throw invalidParam(name, 'must be a date YYYY-MM-DD or an ISO 8601 time');
    return (iso) => {
      const day = dayKey(Date.parse(iso), call.options.timezone);
      return after ? day >= value : day <= value;
    };
  }
  const instant = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(instant)) throw invalidParam(name, 'must be a date YYYY-MM-DD or an ISO 8601 time');
  return (iso) => (after ? Date.parse(iso) >= instant : Date.parse(iso) <= instant);
}
