import type { Router } from 'express';
import type { SandboxContext } from '../api/endpoint';
import { chatOf, type ChatMessage, type LinkButton } from '../domain/messagingChat';
import { findSubscriber } from '../domain/subscribers';
import { ApiError, conflictingParam, invalidParam, notFound } from '../http/errors';
import type { Params } from '../http/params';
import { sandboxAction } from '../http/sandboxRoute';
import { LinkUnreachableError } from './linkBrowser';
import { MAX_PLAY_WAIT_MS, PLAYERS, type Player } from './players';
import { answerAsSubscriber, playPreview, playScanner, type Play, type SubscriberAnswer } from './plays';

/** A scanner's pause before each press when none is given: what the clicking scanners of the e2e use. */
const DEFAULT_SCANNER_PAUSE_MS = 2_000;

const isWebUrl = (url: string) => {
	try {
		return ['http:', 'https:'].includes(new URL(url).protocol);
	} catch {
		return false;
	}
};

/** The message whose links are played: the one named, or the newest bot message with link buttons. */
function messageOf(context: SandboxContext, params: Params): ChatMessage {
	const botid = params.requiredString('botid');
	const clientid = params.requiredString('clientid');
	const subscriber = findSubscriber(context.store, botid, clientid);
	if (!subscriber) throw notFound(`Subscriber ${botid}/${clientid}`, 'clientid');
	const chat = chatOf(context.store, subscriber);
	const id = params.int('message', { min: 1 });
	if (id !== undefined) {
		const message = chat.find((candidate) => candidate.id === id);
		if (!message) throw notFound(`Message ${id} in the chat of ${botid}/${clientid}`, 'message');
		if (message.direction !== 'out' || message.buttons.length === 0)
			throw conflictingParam('message', `names message ${id}, which has no link buttons`);
		return message;
	}
	const newest = chat.findLast((candidate) => candidate.direction === 'out' && candidate.buttons.length > 0);
	if (!newest)
		throw conflictingParam('clientid', `names ${botid}/${clientid}, whose chat has no message with link buttons`);
	return newest;
}

/** The buttons played: the one named, else all of them (the subscriber needs one: the message's only button). */
function buttonsOf(message: ChatMessage, params: Params, player: Player): LinkButton[] {
	const name = params.string('button');
	const names = message.buttons.map((button) => `"${button.name}"`).join(', ');
	let buttons = message.buttons;
	if (name !== undefined) {
		buttons = message.buttons.filter((button) => button.name === name);
		if (buttons.length === 0)
			throw invalidParam('button', `"${name}" is not a button of message ${message.id}: ${names}`);
		buttons = buttons.slice(0, 1);
	} else if (player === 'subscriber' && buttons.length > 1)
		throw invalidParam('button', `is required: message ${message.id} has ${buttons.length} buttons (${names})`);
	for (const button of buttons)
		if (!isWebUrl(button.url))
			throw conflictingParam('button', `"${button.name}" carries ${button.url}, which is not an http(s) link`);
	return buttons;
}

function answerOf(params: Params): SubscriberAnswer {
	const fields = params.object('fields');
	for (const [label, value] of Object.entries(fields ?? {}))
		if (value !== null && typeof value !== 'string' && typeof value !== 'number')
			throw invalidParam('fields', `gives "${label}" a ${typeof value}: give a text, a number or null`);
	return {
		text: params.string('text'),
		fields: fields as SubscriberAnswer['fields'],
		afterMs: params.int('afterMs', { min: 0, max: MAX_PLAY_WAIT_MS }),
	};
}

/** Plays a message's link buttons as asked; reads the store once, then waits only on the links. */
export async function playMessage(context: SandboxContext, params: Params) {
	const player = params.choice('as', PLAYERS) ?? 'subscriber';
	const message = messageOf(context, params);
	const buttons = buttonsOf(message, params, player);
	const urls = buttons.map((button) => button.url);
	let play: Play;
	try {
		if (player === 'subscriber') play = await answerAsSubscriber(urls[0], answerOf(params));
		else if (player === 'preview') play = await playPreview(urls);
		else
			play = await playScanner(
				urls,
				params.int('pauseMs', { min: 0, max: MAX_PLAY_WAIT_MS }) ?? DEFAULT_SCANNER_PAUSE_MS,
			);
	} catch (error) {
		if (error instanceof LinkUnreachableError)
			throw new ApiError(502, 'link_unreachable', error.message, { url: error.url, reason: error.reason });
		throw error;
	}
	return { as: player, message: message.id, buttons, steps: play.steps };
}

/** POST /sandbox/answer: see docs/extensions.md. */
export function mountAnswer(app: Router, context: SandboxContext): void {
	app.post('/sandbox/answer', ...sandboxAction(context, (params) => playMessage(context, params)));
}
