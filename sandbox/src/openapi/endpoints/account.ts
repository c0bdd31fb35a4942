import { dayOrTime, flag, integer, optional, text } from '../params';
import { arrayOf, describe, int, isoTime, num, object, ref, sandbox, sandboxObject, str } from '../schema';
import type { EndpointContract } from './contract';
import { documentedPage, PAGE_PARAMS } from './shared';

/** The contracts of the methods for the account, its log, bots and groups, in the order the document lists them. */
export const accountContracts: Record<string, EndpointContract> = {
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
			...PAGE_PARAMS,
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
};
