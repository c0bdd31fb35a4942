import { ITEM_FIELD_KINDS } from '../domain/catalog';
import { ALL_SCOPES } from '../domain/keys';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/params';
import { apiKeyProperties, EVENT_KIND_VALUES, hookProperties } from './components';
import { LIMITS } from './limits';
import {
	CELL,
	choice,
	FLAG_SCHEMA,
	day,
	dayOrTime,
	dictionary,
	flag,
	integer,
	list,
	nonBlank,
	oneOrMany,
	optional,
	required,
	sandboxLimit,
	text,
	UNDOCUMENTED_LIMIT,
	type ParamSpec,
} from './params';
import {
	arrayOf,
	bool,
	describe,
	int,
	isoTime,
	nullable,
	num,
	object,
	oneOf,
	ref,
	sandbox,
	sandboxObject,
	scalar,
	str,
	strings,
	type Schema,
} from './schema';

/** What the contract says about one method of the API (its path, HTTP methods and scope come from the registry). */
export interface EndpointContract {
	tag: string;
	summary: string;
	/** What the method does, for the operation's description. */
	description: string;
	params: Record<string, ParamSpec>;
	/** Each entry: at least one of its groups must be given whole (e.g. `listid`, or `list`). */
	needs?: string[][][];
	/** Parameters that cannot be given together. */
	exclusive?: [string, string][];
	/** A parameter that needs others (e.g. `column` needs `value`). */
	dependent?: Record<string, string[]>;
	/** Request headers (e.g. Idempotency-Key). */
	headers?: Record<string, ParamSpec>;
	/** Error codes beyond the common ones, by status. */
	errors?: { 403?: string[]; 409?: string[]; 422?: string[] };
	/** The 200 answer. */
	answer: Schema;
	/** Set for the sandbox's extensions, which the service's documentation does not have. */
	extension?: string;
	/** The HTTP method the sandbox takes on its own reading of the documentation (marked `x-sandbox` on that operation). */
	methodsNote?: { method: 'get' | 'post'; note: string };
	/** Rules that JSON Schema cannot state (against stored state, across entries): said in the description, with the code of their refusal (`422 <code>`). */
	rules?: string;
}

/** Every list method's paging: `limit` is bounded by the sandbox (the documentation names no maximum). */
export const PAGE_PARAMS = {
	limit: optional(
		integer(1, MAX_PAGE_SIZE),
		'Page size.',
		`Default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE} (more is a 422): the service's own default and maximum are not documented.`,
	),
	offset: optional(integer(0), 'Items to skip.'),
};
const PAGE = PAGE_PARAMS;

const ID = text();
const CARD = {
	botid: required(ID, 'Bot identifier (from /bot/list).'),
	clientid: required(ID, 'Subscriber identifier inside the messenger.'),
};
const CARD_FIELD = text({ max: LIMITS.field, blank: true });
const CARD_FIELDS = {
	name: optional(CARD_FIELD, 'Name; an empty string clears it.'),
	username: optional(CARD_FIELD, 'Nickname; an empty string clears it.'),
	note: optional(CARD_FIELD, 'Note; an empty string clears it.'),
};
/** Values for the service columns ClientID, Messenger and BotID when the row leaves them out. */
const SERVICE_VALUES = {
	clientid: optional(ID, 'Fills ClientID.'),
	messenger: optional(ID, 'Fills Messenger.'),
	botid: optional(ID, 'Fills BotID.'),
};
/** The same for many rows at once: the documentation names them for /list/row/add only. */
const SERVICE_VALUES_OF_ROWS = Object.fromEntries(
	Object.entries(SERVICE_VALUES).map(([name, spec]) => [
		name,
		{
			...spec,
			sandbox: `The documentation names \`${name}\` for /list/row/add only; the sandbox also takes it here, for every row.`,
		},
	]),
) as typeof SERVICE_VALUES;
const LIST_TARGET = {
	listid: optional(integer(1), 'List number; give it or `list`.'),
	list: optional(ID, 'List name, instead of `listid`.'),
};
/** A method for which the documentation names only `listid`: the sandbox takes the list's name as well. */
const LIST_TARGET_BY_NUMBER = {
	...LIST_TARGET,
	list: {
		...LIST_TARGET.list,
		sandbox: "The documentation names only `listid` for this method; the sandbox also takes the list's name.",
	},
};
const LIST_TARGET_RULE: string[][] = [['listid'], ['list']];
const SAME_LIST =
	'When both `listid` and `list` are given they must name the same list (otherwise 422 param_conflict).';
/** The rules of a method that names a list, and its own. */
const listRules = (own?: string) => [SAME_LIST, own].filter(Boolean).join(' ');
const TAG = nonBlank(LIMITS.tag);
const TAGS = sandboxLimit(
	oneOrMany(TAG, `must be a tag or a non-empty array of tags (not blank, at most ${LIMITS.tag} characters each)`),
	`At most ${LIMITS.tag} characters a tag`,
);
const VARIABLES = sandboxLimit(
	dictionary(
		{ type: ['string', 'number', 'boolean', 'null'], maxLength: LIMITS.text },
		`must be an object of variable name (not blank, at most ${LIMITS.tag} characters) to a string (at most ${LIMITS.text} characters), number, boolean or null`,
		{ keys: TAG },
	),
	`A variable name holds at most ${LIMITS.tag} characters and a text value at most ${LIMITS.text}`,
);
const BUTTONS = sandboxLimit(
	list(
		{
			type: 'object',
			properties: {
				name: nonBlank(LIMITS.tag),
				url: { type: 'string', format: 'uri', pattern: '^https?://[^\\s/?#@]+(?:[/?#]\\S*)?$' },
			},
			required: ['name', 'url'],
			additionalProperties: false,
		},
		`must be an array of at most ${LIMITS.buttons} link buttons {name, url} with an http or https url`,
		{ max: LIMITS.buttons },
	),
	`At most ${LIMITS.buttons} buttons, a button name at most ${LIMITS.tag} characters`,
);
const ROW_OBJECT: Schema = { type: 'object', additionalProperties: CELL };
const ROW_VALUES: Schema = { type: 'array', items: CELL };
const ROW_ORDER = choice(['old', 'new']);

/** Catalog item fields as the service types them (src/domain/catalog.ts names each field's kind); null means "not given". */
const ITEM_TEXT: Schema = { type: ['string', 'number', 'null'] };
const ITEM_KIND_SCHEMAS: Record<(typeof ITEM_FIELD_KINDS)[keyof typeof ITEM_FIELD_KINDS], Schema> = {
	text: ITEM_TEXT,
	numberOrText: ITEM_TEXT,
	boolean: { anyOf: [...(FLAG_SCHEMA.anyOf as Schema[]), { type: 'null' }] },
	sizeStock: describe(
		{
			type: ['string', 'null'],
			pattern: '^(?:\\s*|\\s*[^:,\\s][^:,]*:\\s*[0-9]+\\s*(?:,\\s*[^:,\\s][^:,]*:\\s*[0-9]+\\s*)*)$',
		},
		'Stock by size: size:quantity pairs separated by commas, e.g. "S:3,M:5".',
	),
};
const ITEM_FIELD_SCHEMAS: Record<string, Schema> = Object.fromEntries(
	Object.entries(ITEM_FIELD_KINDS).map(([field, kind]) => [field, ITEM_KIND_SCHEMAS[kind]]),
);
const ITEM_EXPECT: Record<string, string> = {
	hide: 'must be true or false',
	szpieces: 'must be size:quantity pairs separated by commas, e.g. "S:3,M:5"',
};
const ITEM_FIELDS: Record<string, ParamSpec> = Object.fromEntries(
	Object.entries(ITEM_FIELD_SCHEMAS).map(([field, schema]) => [
		field,
		optional(
			{ schema, expect: ITEM_EXPECT[field] ?? 'must be a string or a number' },
			`Catalog item field \`${field}\`.`,
		),
	]),
);
const ITEM_NUMBER = integer(1).schema;
const ITEMS_PER_REQUEST = `At most ${LIMITS.itemsPerRequest} items a request (more is refused whole with \`too_many_items\`)`;
const bulkItems = (extra: Record<string, Schema>, requiredFields: string[], expect: string) =>
	sandboxLimit(
		list(
			{
				type: 'object',
				properties: { ...extra, ...ITEM_FIELD_SCHEMAS },
				...(requiredFields.length > 0 ? { required: requiredFields } : {}),
				additionalProperties: false,
			},
			expect,
			{ min: 1, max: LIMITS.itemsPerRequest, tooManyCode: 'too_many_items' },
		),
		ITEMS_PER_REQUEST,
	);

const CARD_ERRORS = { 403: ['bot_forbidden'], 422: ['not_found'] };
const LIST_ERRORS = { 422: ['not_found'] };

const total = sandbox(
	int,
	'The documentation does not name `total` for this method; the sandbox returns the number of matches.',
);
const page = (items: Schema) => object({ items: arrayOf(items) }, { total });
const documentedPage = (items: Schema) => object({ items: arrayOf(items), total: int });
const ok = (extra: Record<string, Schema> = {}) => sandboxObject({ ok: bool, ...extra });
const result = (extra: Record<string, Schema> = {}) => object({ result: str }, extra);
/** A brief card in the CRM board. */
const briefCard = object({ id: int, botid: str, clientid: str, messenger: str, name: str });
const variables = { type: 'object', additionalProperties: scalar };

/** Every method of the API, by path. A registry endpoint missing here (or a path here missing from it) fails the build of the document. */
export const endpointContracts: Record<string, EndpointContract> = {
	'/account/balance/get': {
		tag: 'Account',
		summary: 'Balance of the account',
		description: "The account's balance, a whole number.",
		params: {},
		answer: object({ balance: int }),
	},
	'/account/get': {
		tag: 'Account',
		summary: 'Account, tariff and usage',
		description: 'The account, its tariff (with the row cap and the rate limit) and what it uses.',
		params: {},
		answer: object({
			account: sandboxObject(
				{ id: str, name: str, email: str, timezone: describe(str, 'IANA time zone of the account.'), created: isoTime },
				'Inner fields are not documented.',
			),
			tariff: sandboxObject(
				{ name: str, rowCap: int, rateLimit: num, bots: int, paidUntil: str },
				'Inner fields are not documented.',
			),
			used: sandboxObject({ bots: int, lists: int, rows: int, keys: int }, 'Inner fields are not documented.'),
		}),
	},
	'/account/summary': {
		tag: 'Account',
		summary: 'Bots, projects, chains and lists at a glance',
		description: 'The bots (those the key may touch), projects, chains and lists of the account in one answer.',
		params: {},
		answer: object({
			bots: arrayOf(ref('Bot')),
			groups: arrayOf(ref('Group')),
			chains: arrayOf(ref('Chain')),
			lists: arrayOf(ref('List')),
		}),
	},
	'/log/get': {
		tag: 'Account',
		summary: 'Log of API calls, newest first',
		description: 'The calls made under /api, newest first, filtered by path, status, failure and time.',
		params: {
			path: optional(text({ blank: true }), "Part of a method's path."),
			status: optional(integer(100, 599), 'Response status.'),
			failed: optional(flag, 'Only errors.'),
			from: optional(dayOrTime, 'Start date.', 'A day YYYY-MM-DD of the account time zone, or an ISO 8601 time.'),
			...PAGE,
		},
		answer: sandbox(
			documentedPage(ref('LogEntry')),
			'Which calls a key sees: a key restricted to bots, only its own and those of the keys it created (directly or through them); any other key with `log:read`, every call. Kept: the 10,000 latest calls made with a valid key, and apart from them the 1,000 latest without one, so calls without a key cannot push out the others; paths longer than 256 characters are stored cut, ending in `…`.',
		),
	},
	'/bot/list': {
		tag: 'Account',
		summary: 'Bots with their BotIDs',
		description: 'The bots the key may touch.',
		methodsNote: {
			method: 'get',
			note: 'The documentation lists /bot/list as POST; being a read, the sandbox also takes GET like every read.',
		},
		params: {},
		answer: sandboxObject({ items: arrayOf(ref('Bot')) }),
	},
	'/group/list': {
		tag: 'Account',
		summary: 'Projects with their codes',
		description: 'The projects (groups) of the account.',
		params: {},
		answer: sandboxObject({ items: arrayOf(ref('Group')) }),
	},

	'/key/create': {
		tag: 'Keys',
		summary: 'Create an API key (its value is shown only here)',
		description:
			"Creates a key with some of the calling key's scopes, optionally restricted to some bots and to a lifetime in days. The answer is the only place its value appears.",
		params: {
			name: required(text(), 'Key name.'),
			scopes: required(
				oneOrMany(
					{ type: 'string', enum: ALL_SCOPES },
					`must be a scope or a non-empty array of scopes (${ALL_SCOPES.join(', ')})`,
				),
				'Scopes the key gets.',
				`The sandbox takes only these ${ALL_SCOPES.length} scopes; the documentation names \`lists:read\`, \`lists:write\` and \`subscribers:read\` and does not show the others, so the service's list may differ.`,
			),
			bots: optional(
				oneOrMany(nonBlank(), 'must be a botid or an array of botids', { empty: true }),
				'Bots the key may touch (none, or an empty array: every bot the calling key may touch).',
			),
			days: optional(
				sandboxLimit(integer(1, LIMITS.keyDays), `At most ${LIMITS.keyDays} days`),
				'Lifetime in days.',
				`A key never outlives the key that creates it: when that key expires before \`days\` (or absent: never) would end, the new key expires with it, and the answer says so in \`notice\`.`,
			),
		},
		errors: { 403: ['bot_forbidden'], 422: ['not_found'] },
		answer: {
			...sandboxObject(
				{
					key: object({ ...apiKeyProperties, key: describe(str, "The key's value: shown only here.") }),
					notice: describe(
						str,
						"Only when the key's expiry was cut to its creator's: what was asked and when the key expires.",
					),
				},
				"The service shows no answer. The sandbox's rules: a key never outlives or outranks the key that creates it (expiry at most its creator's, scopes and bots within its creator's).",
			),
			required: ['key'],
		},
	},
	'/key/revoke': {
		tag: 'Keys',
		summary: 'Revoke an API key',
		description:
			'Revokes a key by its id; it answers 401 from then on, and so do the keys it created, directly or through them.',
		rules:
			"The sandbox's rule: a key never turns on its creator. The account key may revoke any key (but not itself); any other key only itself and the keys it created, directly or through them: another key's id is 403 not_creator (`param: id`) and nothing is revoked. A bot-restricted key naming a key not restricted to its own bots gets 403 bot_forbidden.",
		params: { id: required(text(), 'Key id.') },
		errors: { 403: ['bot_forbidden', 'not_creator'], 422: ['not_found'] },
		answer: ok({
			key: ref('ApiKey'),
			revokedWith: sandbox(
				strings,
				'Revoking a key revokes every key it created, directly or through them: the ids of those revoked now.',
			),
		}),
	},

	'/subscriber/get': {
		tag: 'Subscribers',
		summary: 'One subscriber card',
		description:
			'One card, by its internal number (`subscriber`) or by `botid` and `clientid` (and `messenger`). One of the two forms is required.',
		params: {
			botid: optional(ID, 'Bot identifier; required unless `subscriber` is given.'),
			clientid: optional(ID, 'Subscriber identifier; required unless `subscriber` is given.'),
			messenger: optional(ID, 'Messenger of the subscriber.'),
			subscriber: optional(integer(1), 'Internal card number, instead of the other three.'),
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
			...PAGE,
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
			...PAGE,
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
		params: { ...CARD, chaincode: optional(ID, 'Only one chain.') },
		errors: CARD_ERRORS,
		rules: "`chaincode`, when given, must name a chain of the subscriber's bot (otherwise 422 param_conflict).",
		answer: object({ chains: arrayOf(sandboxObject({ chaincode: str, name: nullable(str), variables })) }),
	},
	'/subscriber/chat/get': {
		tag: 'Subscribers',
		summary: 'Chat history, newest first',
		description: 'The messages exchanged with one subscriber, newest first.',
		params: { ...CARD, ...PAGE },
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
			messenger: optional(ID, 'Messenger.', "Must be the bot's messenger."),
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
			chaincode: optional(ID, 'Write into one chain only.'),
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

	'/message/send': {
		tag: 'Messaging',
		summary: 'Send a message to a subscriber',
		description:
			'Sends a text, with optional link buttons, to one subscriber (not to a blocked one). `ok` says whether the service carried it out and `sent` how many messages went out: treat `ok: false` as a failure.',
		params: {
			...CARD,
			text: required(text({ max: LIMITS.text }), 'Text.'),
			buttons: optional(BUTTONS, 'Link buttons, each {name, url}.'),
		},
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'subscriber_blocked'] },
		answer: object({ ok: bool, sent: int }),
	},
	'/message/next/clear': {
		tag: 'Messaging',
		summary: 'Clear the deferred next message',
		description: "Clears the subscriber's deferred next message (the due steps of its chains).",
		params: CARD,
		errors: CARD_ERRORS,
		answer: result({ cleared: int }),
	},
	'/block/start': {
		tag: 'Messaging',
		summary: 'Start a block of a chain step',
		description:
			"Starts a block of a step of a chain for one subscriber; `data` is written into the chain's variables first.",
		params: {
			...CARD,
			chaincode: required(ID, 'Chain code.'),
			stepcode: required(ID, 'Step code.'),
			block: optional(ID, 'Block number from 1, or block ID.'),
			data: optional(VARIABLES, 'Variables for the scenario.'),
		},
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'subscriber_blocked'] },
		rules:
			"`chaincode` must name a chain of the subscriber's bot, and the step must have blocks (otherwise 422 param_conflict).",
		answer: object({ ok: bool, block: str }),
	},
	'/chain/start': {
		tag: 'Messaging',
		summary: 'Start a chain from its first step',
		description:
			"Starts a chain from its first step for one subscriber; `data` is written into the chain's variables first.",
		params: {
			...CARD,
			chaincode: required(ID, 'Chain code.'),
			data: optional(VARIABLES, 'Variables for the scenario.'),
		},
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'subscriber_blocked'] },
		rules: "`chaincode` must name a chain of the subscriber's bot that has steps (otherwise 422 param_conflict).",
		answer: object({ ok: bool }),
	},
	'/chain/stop': {
		tag: 'Messaging',
		summary: 'Stop one chain, or all',
		description: 'Stops one chain for a subscriber, or all of them when `chaincode` is empty or absent.',
		params: { ...CARD, chaincode: optional(text({ blank: true }), 'Chain code; empty stops all.') },
		errors: CARD_ERRORS,
		rules: "`chaincode` must name a chain of the subscriber's bot (otherwise 422 param_conflict).",
		answer: object({ ok: bool, stopped: int }),
	},
	'/broadcast/send': {
		tag: 'Messaging',
		summary: 'Plan a broadcast to a segment',
		description: 'Plans a message to every subscriber of a segment (bot, tags, dialog); the send queue delivers it.',
		params: {
			text: required(text({ max: LIMITS.text }), 'Text.'),
			buttons: optional(BUTTONS, 'Link buttons.'),
			botid: optional(ID, 'One bot.'),
			tag: optional(TAGS, 'A tag or an array of tags.'),
			dialog: optional(flag, 'Only those who started a dialog.'),
			name: optional(text({ max: LIMITS.broadcastName, blank: true }), 'Broadcast name.'),
		},
		errors: CARD_ERRORS,
		answer: object({ ok: bool, planned: int, code: str }),
	},
	'/broadcast/stop': {
		tag: 'Messaging',
		summary: 'Cancel a planned broadcast',
		description: 'Cancels the messages of a broadcast not sent yet.',
		params: { code: required(ID, 'Broadcast code.') },
		errors: CARD_ERRORS,
		answer: object({ ok: bool, cleared: int }),
	},

	'/crm/stage/set': {
		tag: 'CRM',
		summary: "Set a subscriber's funnel stage",
		description:
			"Moves a subscriber to a stage of the funnel; emits `subscriber.stage`, and a chain triggered by the stage's tag starts.",
		params: { ...CARD, stage: required(text(), 'Stage name.') },
		errors: CARD_ERRORS,
		answer: sandboxObject({
			ok: bool,
			subscriber: ref('Subscriber'),
			stage: str,
			previous: nullable(str),
			chains: bool,
		}),
	},
	'/crm/board': {
		tag: 'CRM',
		summary: 'Subscribers across the funnel',
		description: 'The subscribers of each stage, in funnel order, and those in none.',
		methodsNote: {
			method: 'post',
			note: 'The documentation lists /crm/board as GET; the sandbox also takes POST like every read.',
		},
		params: {
			botid: optional(
				ID,
				'One bot.',
				'The documentation names no parameters for /crm/board; the sandbox takes `botid` to show one bot.',
			),
		},
		errors: CARD_ERRORS,
		answer: sandboxObject({
			stages: arrayOf(object({ name: str, tag: str, order: int, count: int, subscribers: arrayOf(briefCard) })),
			none: object({ count: int, subscribers: arrayOf(briefCard) }),
			total: int,
		}),
	},
	'/stat/get': {
		tag: 'Statistics',
		summary: 'Subscribers and sent messages by day',
		description:
			"New subscribers and sent messages for every day from `from` to `to` (both included), in the account's time zone.",
		methodsNote: {
			method: 'post',
			note: 'The documentation lists /stat/get as GET; the sandbox also takes POST like every read.',
		},
		params: {
			from: required(day, 'First day, YYYY-MM-DD.'),
			to: required(
				day,
				'Last day, YYYY-MM-DD.',
				`At most ${LIMITS.statDays} days from \`from\` (otherwise 422 invalid_range): ${UNDOCUMENTED_LIMIT}.`,
			),
			botid: optional(ID, 'One bot.', 'A sandbox addition.'),
		},
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'invalid_range'] },
		rules: `\`to\` must not be before \`from\`, and the range holds at most ${LIMITS.statDays} days (otherwise 422 invalid_range, on \`to\`; Sandbox: the range's limit is the sandbox's, ${UNDOCUMENTED_LIMIT}).`,
		answer: sandboxObject({
			from: str,
			to: str,
			timezone: str,
			items: arrayOf(object({ date: str, subscribers: int, messages: int })),
			total: object({ subscribers: int, messages: int }),
		}),
	},

	'/list/all': {
		tag: 'Lists',
		summary: 'Every list',
		description: 'Every list of the account, or of one project.',
		params: { group: optional(ID, 'Project code.') },
		errors: LIST_ERRORS,
		answer: object({ items: arrayOf(ref('List')) }),
	},
	'/list/create': {
		tag: 'Lists',
		summary: 'Create a list',
		description: 'Creates an empty list with its columns; a name already taken is refused with `list_exists`.',
		params: {
			name: required(text(), 'Unused name.'),
			headers: required(
				list(nonBlank(), 'must be a non-empty array of distinct, non-blank column names', { min: 1, unique: true }),
				'Column names.',
			),
			group: optional(ID, 'Project code.'),
		},
		errors: { 422: ['not_found', 'list_exists'] },
		answer: sandboxObject({ list: ref('List') }),
	},
	'/list/clear': {
		tag: 'Lists',
		summary: 'Remove every row of a list',
		description: 'Removes every row; the list stays.',
		params: LIST_TARGET_BY_NUMBER,
		needs: [LIST_TARGET_RULE],
		errors: LIST_ERRORS,
		rules: listRules(),
		answer: ok({ cleared: int, list: ref('List') }),
	},
	'/list/rows/get': {
		tag: 'Lists',
		summary: 'Rows of a list',
		description: "A page of a list's rows, oldest or newest first. `listid` or `list` is required.",
		params: { ...LIST_TARGET, ...PAGE, sort: optional(ROW_ORDER, '`old` (default) or `new`.') },
		needs: [LIST_TARGET_RULE],
		errors: LIST_ERRORS,
		rules: listRules(),
		answer: documentedPage(ref('Row')),
	},
	'/list/rows/find': {
		tag: 'Lists',
		summary: 'Rows matching conditions (a scan of the whole list)',
		description:
			'The rows matching `where` (columns combine with AND) or one `column` + `value`, compared in memory across the whole list. Sandbox: the sandbox answers them a page at a time (`limit`, default 20, and `offset`; the documentation names no paging for this method, so a service may answer every match at once): read on until `offset` reaches `total`, or a page comes back empty.',
		methodsNote: {
			method: 'get',
			note: 'The documentation lists /list/rows/find as POST but speaks of its GET form; being a read, the sandbox takes both. The GET form takes `column` and `value` (`where`, an object, goes in the JSON body of POST).',
		},
		params: {
			...LIST_TARGET,
			where: optional(
				dictionary(CELL, 'must be an object of column name to value, with at least one column', { min: 1 }),
				'Column to value; conditions combine with AND.',
			),
			column: optional(ID, 'One condition: column.'),
			value: optional(
				{ schema: CELL, expect: 'must be a string, number, boolean or null' },
				'One condition: value (with `column`).',
			),
			exact: optional(flag, 'False: case-insensitive substring match.', 'Default false.'),
			sort: optional(
				ROW_ORDER,
				'`old` or `new`.',
				'The documentation names no order for /list/rows/find; the sandbox takes `old` (the default) or `new`.',
			),
			limit: PAGE.limit,
			offset: optional(
				integer(0),
				'Items to skip.',
				'The documentation names no paging for /list/rows/find; the sandbox answers a page of `limit` rows (20 by default) from `offset`.',
			),
		},
		exclusive: [['where', 'column']],
		needs: [LIST_TARGET_RULE, [['where'], ['column', 'value']]],
		dependent: { column: ['value'] },
		errors: { 422: ['not_found', 'unknown_column'] },
		rules: listRules('Give `where` or `column` (one of them); a column the list does not have is 422 unknown_column.'),
		answer: sandbox(
			oneOf(arrayOf(ref('Row')), page(ref('Row'))),
			'The documentation says "rows": the rows as a bare array, or under `items`. The sandbox answers them under `items`, with `total`.',
		),
	},
	'/list/row/add': {
		tag: 'Lists',
		summary: 'Add a row (honours Idempotency-Key)',
		description:
			'Adds one row, given by column name (`row`) or in column order (`values`); at the row cap the oldest row is removed (`trimmed`). Repeating a request with the same Idempotency-Key answers the first answer again and adds nothing.',
		params: {
			...LIST_TARGET_BY_NUMBER,
			row: optional(
				{ schema: ROW_OBJECT, expect: 'must be an object of column name to a string, number, boolean or null' },
				'Column name to value.',
			),
			values: optional(
				{ schema: ROW_VALUES, expect: 'must be an array of strings, numbers, booleans or nulls' },
				'Values in column order.',
			),
			...SERVICE_VALUES,
		},
		headers: {
			'Idempotency-Key': optional(
				sandboxLimit(
					{
						schema: { type: 'string', minLength: 1, maxLength: LIMITS.idempotencyKey, pattern: '\\S' },
						expect: `must be a non-empty string of at most ${LIMITS.idempotencyKey} characters`,
					},
					`At most ${LIMITS.idempotencyKey} characters`,
				),
				'A client-chosen unique value: a repeat with the same value (after a network failure) adds no second row.',
				'The sandbox remembers a value for 24 hours of business time, per API key; the same value with another body is 422 idempotency_mismatch.',
			),
		},
		needs: [LIST_TARGET_RULE, [['row'], ['values']]],
		exclusive: [['row', 'values']],
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'unknown_column', 'idempotency_mismatch'] },
		rules: listRules('`values` holds at most one value per column of the list (otherwise 422 param_conflict).'),
		answer: object({ row: ref('Row'), trimmed: bool }),
	},
	'/list/rows/add': {
		tag: 'Lists',
		summary: 'Add up to 500 rows at once (all or nothing)',
		description: `Adds 1 to ${LIMITS.rowsPerRequest} rows, each an object (column name to value) or an array (column order); more is refused whole with \`too_many_rows\`.`,
		params: {
			...LIST_TARGET_BY_NUMBER,
			rows: required(
				list(
					{ anyOf: [ROW_OBJECT, ROW_VALUES] },
					`must be an array of 1 to ${LIMITS.rowsPerRequest} rows, each an object of column name to value or an array of values`,
					{
						min: 1,
						max: LIMITS.rowsPerRequest,
						tooManyCode: 'too_many_rows',
					},
				),
				'Objects or arrays.',
				`More than ${LIMITS.rowsPerRequest} rows are refused whole (422 too_many_rows, nothing added): the documentation states the limit but not what happens beyond it.`,
			),
			...SERVICE_VALUES_OF_ROWS,
		},
		needs: [LIST_TARGET_RULE],
		errors: { 403: ['bot_forbidden'], 422: ['not_found', 'unknown_column', 'too_many_rows'] },
		rules: listRules(
			'A row in column order holds at most one value per column of the list (otherwise 422 param_conflict).',
		),
		answer: sandboxObject({ rows: arrayOf(ref('Row')), count: int, trimmed: bool, removed: int }),
	},
	'/list/row/edit': {
		tag: 'Lists',
		summary: 'Change a row',
		description: 'Changes the columns given in `row`, or replaces the whole row with `values`.',
		params: {
			...LIST_TARGET_BY_NUMBER,
			rowid: required(integer(1), 'Row number.'),
			row: optional(
				{ schema: ROW_OBJECT, expect: 'must be an object of column name to a string, number, boolean or null' },
				'Only these columns change.',
			),
			values: optional(
				{ schema: ROW_VALUES, expect: 'must be an array of strings, numbers, booleans or nulls' },
				'The whole row.',
			),
		},
		needs: [LIST_TARGET_RULE, [['row'], ['values']]],
		exclusive: [['row', 'values']],
		errors: { 422: ['not_found', 'unknown_column'] },
		rules: listRules('`values` holds exactly one value per column of the list (otherwise 422 param_conflict).'),
		answer: sandboxObject({ row: ref('Row') }),
	},
	'/list/row/delete': {
		tag: 'Lists',
		summary: 'Delete rows',
		description: 'Deletes one row (`rowid`) or several (`rowids`); every row must exist, or nothing is deleted.',
		params: {
			...LIST_TARGET_BY_NUMBER,
			rowid: optional(integer(1), 'One row.'),
			rowids: optional(
				list({ type: 'integer', minimum: 1 }, 'must be a non-empty array of row numbers (positive integers)', {
					min: 1,
				}),
				'Several rows: JSON integers.',
			),
		},
		needs: [LIST_TARGET_RULE, [['rowid'], ['rowids']]],
		exclusive: [['rowid', 'rowids']],
		errors: LIST_ERRORS,
		rules: listRules(),
		answer: ok({ deleted: int, rowids: arrayOf(int) }),
	},

	'/catalog/item/create': {
		tag: 'Catalog',
		summary: 'Create a catalog item',
		description: "Adds an item to a web app's catalog.",
		params: { webappid: required(ID, 'Web app.'), ...ITEM_FIELDS },
		errors: LIST_ERRORS,
		answer: object({ id: num, result: str }),
	},
	'/catalog/item/edit': {
		tag: 'Catalog',
		summary: 'Change a catalog item',
		description: 'Changes the fields given of one item.',
		params: { webappid: required(ID, 'Web app.'), itemid: required(integer(1), 'Item.'), ...ITEM_FIELDS },
		errors: LIST_ERRORS,
		answer: result(),
	},
	'/catalog/item/delete': {
		tag: 'Catalog',
		summary: 'Delete a catalog item',
		description: 'Deletes one item.',
		params: { itemid: required(integer(1), 'Item.') },
		errors: LIST_ERRORS,
		answer: result(),
	},
	'/catalog/item/bulk/create': {
		tag: 'Catalog',
		summary: 'Create several items (all or nothing)',
		description: `Adds 1 to ${LIMITS.itemsPerRequest} items at once; one refused item refuses them all.`,
		params: {
			webappid: required(ID, 'Web app.'),
			items: required(
				bulkItems({}, [], `must be an array of 1 to ${LIMITS.itemsPerRequest} objects with item fields only`),
				'Objects with item fields.',
			),
		},
		errors: { 422: ['not_found', 'too_many_items'] },
		answer: object({ id: arrayOf(num), result: str }),
	},
	'/catalog/item/bulk/edit': {
		tag: 'Catalog',
		summary: 'Change several items (all or nothing)',
		description: `Changes 1 to ${LIMITS.itemsPerRequest} items at once; one refused item refuses them all.`,
		params: {
			webappid: required(ID, 'Web app.'),
			items: required(
				bulkItems(
					{ itemid: ITEM_NUMBER },
					['itemid'],
					`must be an array of 1 to ${LIMITS.itemsPerRequest} objects, each with itemid and item fields only`,
				),
				'Objects with itemid and item fields.',
			),
		},
		errors: { 422: ['not_found', 'too_many_items'] },
		rules: 'An item appears once (otherwise 422 param_conflict).',
		answer: result({ updated: int }),
	},
	'/catalog/item/bulk/delete': {
		tag: 'Catalog',
		summary: 'Delete several items',
		description: `Deletes 1 to ${LIMITS.itemsPerRequest} items at once; every item must exist, or nothing is deleted.`,
		params: {
			items: required(
				sandboxLimit(
					list(
						{ type: 'object', properties: { itemid: ITEM_NUMBER }, required: ['itemid'], additionalProperties: false },
						`must be an array of 1 to ${LIMITS.itemsPerRequest} objects {itemid}`,
						{
							min: 1,
							max: LIMITS.itemsPerRequest,
							tooManyCode: 'too_many_items',
						},
					),
					ITEMS_PER_REQUEST,
				),
				'Objects with itemid.',
			),
		},
		errors: { 422: ['not_found', 'too_many_items'] },
		rules: 'An item appears once (otherwise 422 param_conflict).',
		answer: result({ deleted: int }),
	},
	'/catalog/items/delete': {
		tag: 'Catalog',
		summary: 'Delete every item of a web app',
		description: "Empties a web app's catalog.",
		params: { webappid: required(ID, 'Web app.') },
		errors: LIST_ERRORS,
		answer: result({ deleted: int }),
	},
	'/catalog/get': {
		tag: 'Catalog',
		summary: 'A download link to the catalog file (valid 2 minutes)',
		description: 'A link to the catalog file of a web app, valid for 2 minutes.',
		params: { webappid: required(ID, 'Web app.') },
		errors: LIST_ERRORS,
		answer: object({ link: str, notice: str }, { expires: isoTime }),
	},
	'/webapp/delete': {
		tag: 'Catalog',
		summary: 'Delete a web app',
		description: 'Deletes a web app with its catalog. The service cannot create one again.',
		methodsNote: {
			method: 'get',
			note: 'The documentation lists /webapp/delete as GET or POST, against its own rule that changes take POST only; the sandbox follows the table and takes GET too.',
		},
		params: { id: required(ID, 'Web app id.') },
		errors: LIST_ERRORS,
		answer: result({ deleted: int }),
	},

	'/hook/create': {
		tag: 'Hooks',
		summary: 'Subscribe a URL to events (the secret is shown only here)',
		description:
			'Subscribes a receiver URL to event kinds; deliveries are signed, and the answer is the only place the secret (or, under `--signing v1a`, the public key) appears: keep it, and treat an answer without it as a failure.',
		params: {
			name: required(text({ max: LIMITS.hookName }), 'Name.'),
			url: required(
				text({
					numbers: false,
					max: LIMITS.url,
					format: 'uri',
					pattern: '^https?://[^\\s/?#@]+(?:[/?#]\\S*)?$',
					what: 'an absolute http or https URL without a user name or password',
				}),
				'Receiver URL: absolute http or https, without a user name or password (deliveries are plain POSTs that would not send them).',
			),
			events: required(
				oneOrMany(
					{ type: 'string', enum: EVENT_KIND_VALUES },
					`must be an event kind or a non-empty array of them (${EVENT_KIND_VALUES.join(', ')})`,
				),
				'Event kinds.',
				`The sandbox takes only the ${EVENT_KIND_VALUES.length} kinds the documentation names; it says the full list of kinds is not shown, so the service may take others.`,
			),
		},
		answer: sandbox(
			oneOf(
				sandboxObject({ hook: ref('Hook'), secret: str }),
				sandboxObject(
					{ hook: ref('Hook'), publicKey: str },
					'Under `--signing v1a` the hook signs Standard Webhooks `v1a` (Ed25519) with its own key: the answer gives its public key `whpk_…` instead of a secret.',
				),
			),
			'The documentation says only "subscription created": the hook record and its secret or public key are the sandbox\'s shape.',
		),
	},
	'/hook/list': {
		tag: 'Hooks',
		summary: 'Event subscriptions with delivery counts',
		description: 'The hooks the key may see, with their delivery counts and last attempt.',
		extension: "Listing subscriptions is not in the service's documentation.",
		params: PAGE,
		answer: documentedPage(
			object({
				...hookProperties,
				disabled: bool,
				disabledAt: nullable(isoTime),
				disabledReason: nullable(str),
				deliveries: object({
					pending: int,
					delivered: int,
					failed: int,
					cancelled: int,
					lastAttempt: nullable(ref('DeliveryAttempt')),
				}),
			}),
		),
	},
	'/hook/delete': {
		tag: 'Hooks',
		summary: 'Remove an event subscription',
		description: 'Removes a hook; its pending deliveries are cancelled.',
		extension: "Removing subscriptions is not in the service's documentation.",
		params: { id: required(ID, 'Hook id.') },
		errors: CARD_ERRORS,
		answer: ok({ id: str }),
	},
	'/hook/deliveries': {
		tag: 'Hooks',
		summary: 'Delivery history, newest first, with every attempt',
		description: 'Deliveries of the hooks the key may see, newest first, with every attempt.',
		extension: "Delivery history is not in the service's documentation.",
		params: {
			hook: optional(ID, 'One hook.'),
			status: optional(
				choice(['pending', 'delivered', 'failed', 'cancelled']),
				'pending, delivered, failed or cancelled.',
			),
			event: optional(ID, 'One event id.'),
			...PAGE,
		},
		errors: CARD_ERRORS,
		answer: documentedPage(ref('Delivery')),
	},
};
