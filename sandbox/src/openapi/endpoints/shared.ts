import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../http/params';
import { LIMITS } from '../limits';
import {
	dictionary,
	integer,
	lengthPattern,
	nonBlank,
	oneOrMany,
	optional,
	required,
	requiredBySandbox,
	sandboxLimit,
	text,
} from '../params';
import { arrayOf, bool, int, object, sandbox, sandboxObject, type Schema, str } from '../schema';

// Parameters, errors and answer shapes that several resource groups share.

/** Every list method's paging: `limit` is bounded by the sandbox (the documentation names no maximum). */
export const PAGE_PARAMS = {
	limit: optional(
		integer(1, MAX_PAGE_SIZE),
		'Page size.',
		`Default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE} (more is a 422): the service's own default and maximum are not documented.`,
	),
	offset: optional(integer(0), 'Items to skip.'),
};

export const ID = text();

export const CARD = {
	botid: required(ID, 'Bot identifier (from /bot/list).'),
	clientid: required(ID, 'Subscriber identifier inside the messenger.'),
};

/** The same for a method whose row of the documentation names them without marking them required. */
export const CARD_REQUIRED_BY_SANDBOX = {
	botid: requiredBySandbox(ID, CARD.botid.description),
	clientid: requiredBySandbox(ID, CARD.clientid.description),
};

/** A check that a parameter agrees with the rest of the request or with what is stored (`rule`), the sandbox's own. */
export const agreement = (rule: string): string =>
	`${rule} (otherwise 422 param_conflict): the documentation does not say what the service does otherwise.`;

/** A request that changes several rows or items changes all of them or none. */
export const ALL_OR_NOTHING =
	'All or nothing: when one entry is refused (or names one that does not exist), nothing is changed; the documentation does not say whether the service applies the others.';

/** `chaincode` as the methods that start, stop or read a subscriber's chain check it. */
export const CHAIN_OF_THE_BOT = agreement("Must name a chain of the subscriber's bot");

const TAG = nonBlank(LIMITS.tag);

export const TAGS = sandboxLimit(
	oneOrMany(TAG, `must be a tag or a non-empty array of tags (not blank, at most ${LIMITS.tag} characters each)`),
	`At most ${LIMITS.tag} characters a tag`,
);

export const VARIABLES = sandboxLimit(
	dictionary(
		{
			type: ['string', 'number', 'boolean', 'null'],
			maxLength: LIMITS.text,
			pattern: lengthPattern(false, LIMITS.text),
		},
		`must be an object of variable name (not blank, at most ${LIMITS.tag} characters) to a string (at most ${LIMITS.text} characters), number, boolean or null`,
		{ keys: TAG },
	),
	`A variable name holds at most ${LIMITS.tag} characters and a text value at most ${LIMITS.text}`,
);

export const CARD_ERRORS = { 403: ['bot_forbidden'], 422: ['not_found'] };

export const LIST_ERRORS = { 422: ['not_found'] };

export const total = sandbox(
	int,
	'The documentation does not name `total` for this method; the sandbox returns the number of matches.',
);

export const page = (items: Schema) => object({ items: arrayOf(items) }, { total });

export const documentedPage = (items: Schema) => object({ items: arrayOf(items), total: int });

export const ok = (extra: Record<string, Schema> = {}) => sandboxObject({ ok: bool, ...extra });

export const result = (extra: Record<string, Schema> = {}) => object({ result: str }, extra);
