import { LIMITS } from '../limits';
import { choice, dayOrTime, flag, integer, optional, required, text } from '../params';
import { arrayOf, bool, int, nullable, object, ref, sandboxObject, scalar, str, strings } from '../schema';
import type { EndpointContract } from './contract';
import {
	agreement,
	CARD,
	CARD_ERRORS,
	CHAIN_OF_THE_BOT,
	documentedPage,
	ID,
	page,
	PAGE_PARAMS,
	result,
	TAGS,
	VARIABLES,
} from './shared';

const CARD_FIELD = text({ max: LIMITS.field, blank: true });

const CARD_FIELDS = {
	name: optional(CARD_FIELD, 'Name; an empty string clears it.'),
	username: optional(CARD_FIELD, 'Nickname; an empty string clears it.'),
	note: optional(CARD_FIELD, 'Note; an empty string clears it.'),
};

const variables = { type: 'object', additionalProperties: scalar };

/** The contracts of the methods for subscribers: cards, tags, variables, chats and chains, in the order the document lists them. */
export const subscribersContracts: Record<string, EndpointContract> = {
	'/subscriber/get': {
		tag: 'Subscribers',
		summary: 'One subscriber card',
		description:
			'One card, by its internal number (`subscriber`) or by `botid` and `clientid` (and `messenger`). One of the two forms is required.',
		params: {
			botid: optional(ID, 'Bot identifier; required unless `subscriber` is given.'),
			clientid: optional(ID, 'Subscriber identifier; required unless `subscriber` is given.'),
			messenger: optional(ID, 'Messenger of the subscriber.'),
			subscriber: optional(
				integer(1),
				'Internal card number, instead of the other three.',
				agreement('Given with `botid`, `clientid` or `messenger`, they must name the same card'),
			),
		},
		needs: [[['botid', 'clientid'], ['subscriber']]],
		errors: CARD_ERRORS,
		rules:
			'When `subscriber` is given with `botid`, `clientid` or `messenger`, they must name the same card (otherwise 422 param_conflict).',
		answer: object({ subscriber: ref('Subscriber') }),
	},
	'/subscriber/find': {
		tag: 'Subscribers',
		summary: 'Search subscribers by name, nickname, code or note',
		description: 'Cards whose name, nickname, clientid, card number or note contain `query` (case-insensitive).',
		params: {
			query: required(text(), 'What to search.'),
			tag: optional(text(), 'Exact tag.'),
			botid: optional(ID, 'Search in one bot.'),
			...PAGE_PARAMS,
		},
		errors: CARD_ERRORS,
		answer: page(ref('Subscriber')),
	},
	'/subscriber/list': {
		tag: 'Subscribers',
		summary: 'Subscribers, filtered and paged',
		description: 'Cards by subscription time, filtered by bot, messenger, tag, flags and subscription dates.',
		params: {
			botid: optional(ID, 'One bot.'),
			messenger: optional(ID, 'One messenger.'),
			tag: optional(text(), 'Exact tag.'),
			active: optional(flag, 'Active or not.'),
			blocked: optional(flag, 'Blocked or not.'),
			dialog: optional(flag, 'Started a dialog or not.'),
			from: optional(
				dayOrTime,
				'Subscription date from (included).',
				'A day YYYY-MM-DD of the account time zone, or an ISO 8601 time.',
			),
			to: optional(
				dayOrTime,
				'Subscription date to (included).',
				'A day YYYY-MM-DD of the account time zone, or an ISO 8601 time.',
			),
			sort: optional(choice(['new', 'old']), '`new` or `old`.', 'Default `old`.'),
			...PAGE_PARAMS,
		},
		errors: CARD_ERRORS,
		answer: documentedPage(ref('Subscriber')),
	},
	'/subscriber/tag/list': {
		tag: 'Subscribers',
		summary: 'Tags of a subscriber',
		description: 'The tags of one card.',
		params: CARD,
		errors: CARD_ERRORS,
		answer: object({ tags: strings }),
	},
	'/subscriber/data/get': {
		tag: 'Subscribers',
		summary: 'Variables of a subscriber by chain',
		description: 'The variables of one card, grouped by chain.',
		params: { ...CARD, chaincode: optional(ID, 'Only one chain.', CHAIN_OF_THE_BOT) },
		errors: CARD_ERRORS,
		rules: "`chaincode`, when given, must name a chain of the subscriber's bot (otherwise 422 param_conflict).",
		answer: object({ chains: arrayOf(sandboxObject({ chaincode: str, name: nullable(str), variables })) }),
	},
	'/subscriber/chat/get': {
		tag: 'Subscribers',
		summary: 'Chat history, newest first',
		description: 'The messages exchanged with one subscriber, newest first.',
		params: { ...CARD, ...PAGE_PARAMS },
		errors: CARD_ERRORS,
		answer: page(ref('ChatMessage')),
	},
	'/subscriber/chains/get': {
		tag: 'Subscribers',
		summary: 'Chains running for a subscriber',
		description: 'The chains running for one subscriber, with their current step and the next one due.',
		params: CARD,
		errors: CARD_ERRORS,
		answer: object({ chains: arrayOf(ref('ChainRun')) }),
	},
	'/subscriber/create': {
		tag: 'Subscribers',
		summary: 'Create or update a subscriber',
		description:
			'Creates the card for botid + clientid, or updates the fields given when it exists (`created` tells which). A new card emits `subscriber.new`.',
		params: {
			botid: CARD.botid,
			clientid: required(
				text({ max: LIMITS.clientid }),
				'Subscriber identifier inside the messenger.',
				`At most ${LIMITS.clientid} characters.`,
			),
			messenger: optional(ID, 'Messenger.', agreement("Must be the bot's messenger")),
			...CARD_FIELDS,
		},
		errors: CARD_ERRORS,
		rules: "`messenger`, when given, must be the bot's messenger (otherwise 422 param_conflict).",
		answer: object({ subscriber: ref('Subscriber'), created: bool }),
	},
	'/subscriber/update': {
		tag: 'Subscribers',
		summary: "Update a subscriber's fields",
		description: 'Changes the name, nickname or note of a card.',
		params: { ...CARD, ...CARD_FIELDS },
		errors: CARD_ERRORS,
		answer: object({ subscriber: ref('Subscriber') }),
	},
	'/subscriber/tag/add': {
		tag: 'Subscribers',
		summary: 'Add tags (a chain triggered by a tag starts)',
		description: 'Adds tags to a card; a chain whose trigger is one of the new tags starts (`chains` is true).',
		params: { ...CARD, tag: required(TAGS, 'A tag or an array of tags.') },
		errors: CARD_ERRORS,
		answer: object({ tags: strings, chains: bool }),
	},
	'/subscriber/tag/remove': {
		tag: 'Subscribers',
		summary: 'Remove tags',
		description: 'Removes tags from a card.',
		params: { ...CARD, tag: required(TAGS, 'A tag or an array of tags.') },
		errors: CARD_ERRORS,
		answer: object({ tags: strings }),
	},
	'/subscriber/data/set': {
		tag: 'Subscribers',
		summary: 'Write variables',
		description: "Writes variables into every chain of the card's bot, or into one chain; null removes a variable.",
		params: {
			...CARD,
			data: required(
				{ ...VARIABLES, schema: { ...VARIABLES.schema, minProperties: 1 } },
				'Variable name to value (null removes it); at least one.',
			),
			chaincode: optional(ID, 'Write into one chain only.', CHAIN_OF_THE_BOT),
		},
		errors: CARD_ERRORS,
		rules: "`chaincode` must name a chain of the subscriber's bot (otherwise 422 param_conflict).",
		answer: object({ ok: bool, chains: int }),
	},
	'/subscriber/block': {
		tag: 'Subscribers',
		summary: 'Block a subscriber',
		description: 'Blocks a card: the bot sends it nothing until unblocked.',
		params: CARD,
		errors: CARD_ERRORS,
		answer: object({ subscriber: ref('Subscriber') }),
	},
	'/subscriber/unblock': {
		tag: 'Subscribers',
		summary: 'Unblock a subscriber',
		description: 'Unblocks a card.',
		params: CARD,
		errors: CARD_ERRORS,
		answer: object({ subscriber: ref('Subscriber') }),
	},
	'/subscriber/delete': {
		tag: 'Subscribers',
		summary: 'Delete a subscriber',
		description: 'Removes a card from the database, with its chat and running chains.',
		params: { ...CARD, messenger: required(ID, 'Messenger.') },
		errors: CARD_ERRORS,
		answer: result(),
	},
};
