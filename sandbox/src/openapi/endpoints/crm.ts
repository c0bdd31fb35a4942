import { optional, requiredBySandbox, text } from '../params';
import { arrayOf, bool, int, nullable, object, ref, sandboxObject, str } from '../schema';
import type { EndpointContract } from './contract';
import { CARD_ERRORS, CARD_REQUIRED_BY_SANDBOX, ID } from './shared';

/** A brief card in the CRM board. */
const briefCard = object({ id: int, botid: str, clientid: str, messenger: str, name: str });

/** The contracts of the methods for the CRM funnel, in the order the document lists them. */
export const crmContracts: Record<string, EndpointContract> = {
	'/crm/stage/set': {
		tag: 'CRM',
		summary: "Set a subscriber's funnel stage",
		description:
			"Moves a subscriber to a stage of the funnel; emits `subscriber.stage`, and a chain triggered by the stage's tag starts.",
		params: { ...CARD_REQUIRED_BY_SANDBOX, stage: requiredBySandbox(text(), 'Stage name.') },
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
};
