import { LIMITS } from '../limits';
import { day, optional, requiredBySandbox, UNDOCUMENTED_LIMIT } from '../params';
import { arrayOf, int, object, sandboxObject, str } from '../schema';
import type { EndpointContract } from './contract';
import { ID } from './shared';

/** The contracts of the methods for statistics, in the order the document lists them. */
export const statsContracts: Record<string, EndpointContract> = {
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
			from: requiredBySandbox(day, 'First day, YYYY-MM-DD.'),
			to: requiredBySandbox(
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
};
