import { LIMITS } from '../limits';
import { flag, HTTP_URL_PATTERN, httpUrlNote, list, nonBlank, optional, required, sandboxLimit, text } from '../params';
import { bool, int, object, sandbox, str } from '../schema';
import type { EndpointContract } from './contract';
import { agreement, CARD, CARD_ERRORS, CHAIN_OF_THE_BOT, ID, result, TAGS, VARIABLES } from './shared';

const BUTTONS = sandboxLimit(
	list(
		sandbox(
			{
				type: 'object',
				properties: {
					name: nonBlank(LIMITS.tag),
					url: sandbox({ type: 'string', pattern: HTTP_URL_PATTERN }, httpUrlNote('url')),
				},
				required: ['name', 'url'],
				additionalProperties: false,
			},
			'A button is `{name, url}` and nothing else (another property is 422 invalid_param): the documentation says "each {name, url}" without saying whether others are taken.',
		),
		`must be an array of at most ${LIMITS.buttons} link buttons {name, url} with an http or https url`,
		{ max: LIMITS.buttons },
	),
	`At most ${LIMITS.buttons} buttons, a button name at most ${LIMITS.tag} characters`,
);

/** The contracts of the methods for messages, blocks, chains and broadcasts, in the order the document lists them. */
export const messagingContracts: Record<string, EndpointContract> = {
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
			chaincode: required(
				ID,
				'Chain code.',
				agreement("Must name a chain of the subscriber's bot, and the step must have blocks"),
			),
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
			chaincode: required(ID, 'Chain code.', agreement("Must name a chain of the subscriber's bot that has steps")),
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
		params: { ...CARD, chaincode: optional(text({ blank: true }), 'Chain code; empty stops all.', CHAIN_OF_THE_BOT) },
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
};
