import { EVENT_KIND_VALUES, hookProperties } from '../components';
import { LIMITS } from '../limits';
import {
	choice,
	HTTP_URL_PATTERN,
	httpUrlNote,
	oneOrMany,
	optional,
	required,
	requiredBySandbox,
	text,
} from '../params';
import { bool, int, isoTime, nullable, object, oneOf, ref, sandbox, sandboxObject, str } from '../schema';
import type { EndpointContract } from './contract';
import { CARD_ERRORS, documentedPage, ID, ok, PAGE_PARAMS } from './shared';

/** The contracts of the methods for event subscriptions and their deliveries, in the order the document lists them. */
export const hooksContracts: Record<string, EndpointContract> = {
	'/hook/create': {
		tag: 'Hooks',
		summary: 'Subscribe a URL to events (the secret is shown only here)',
		description:
			'Subscribes a receiver URL to event kinds; deliveries are signed, and the answer is the only place the secret (or, under `--signing v1a`, the public key) appears: keep it, and treat an answer without it as a failure.',
		params: {
			name: requiredBySandbox(text({ max: LIMITS.hookName }), 'Name.'),
			url: requiredBySandbox(
				text({
					numbers: false,
					max: LIMITS.url,
					pattern: HTTP_URL_PATTERN,
					what: 'an absolute http or https URL without a user name or password',
				}),
				'Receiver URL: absolute http or https, without a user name or password (deliveries are plain POSTs that would not send them).',
				httpUrlNote('url'),
			),
			events: requiredBySandbox(
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
		params: PAGE_PARAMS,
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
			...PAGE_PARAMS,
		},
		errors: CARD_ERRORS,
		answer: documentedPage(ref('Delivery')),
	},
};
