import { ALL_SCOPES } from '../../domain/keys';
import { apiKeyProperties } from '../components';
import { LIMITS } from '../limits';
import { integer, nonBlank, oneOrMany, optional, requiredBySandbox, sandboxLimit, text } from '../params';
import { describe, object, ref, sandbox, sandboxObject, str, strings } from '../schema';
import type { EndpointContract } from './contract';
import { ok } from './shared';

/** Who may revoke a key: the sandbox's rule, answered 403 not_creator. */
export const REVOCATION_RULE =
	"A key never turns on its creator: the account key may revoke any key (but not itself); any other key only itself and the keys it created, directly or through them: another key's id is 403 not_creator (`param: id`) and nothing is revoked.";
const REVOCATION_UNDOCUMENTED = 'The documentation does not say which keys a key may revoke.';

/** The contracts of the methods for API keys, in the order the document lists them. */
export const keysContracts: Record<string, EndpointContract> = {
	'/key/create': {
		tag: 'Keys',
		summary: 'Create an API key (its value is shown only here)',
		description:
			"Creates a key with some of the calling key's scopes, optionally restricted to some bots and to a lifetime in days. The answer is the only place its value appears.",
		params: {
			name: requiredBySandbox(text(), 'Key name.'),
			scopes: requiredBySandbox(
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
		rules: `${REVOCATION_RULE} A bot-restricted key naming a key not restricted to its own bots gets 403 bot_forbidden.`,
		params: { id: requiredBySandbox(text(), 'Key id.', `${REVOCATION_RULE} ${REVOCATION_UNDOCUMENTED}`) },
		errors: { 403: ['bot_forbidden', 'not_creator'], 422: ['not_found'] },
		answer: ok({
			key: ref('ApiKey'),
			revokedWith: sandbox(
				strings,
				'Revoking a key revokes every key it created, directly or through them: the ids of those revoked now.',
			),
		}),
	},
};
