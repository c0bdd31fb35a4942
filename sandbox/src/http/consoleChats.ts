import { chatState, type ChatMessage } from '../domain/messagingChat';
import { subscribersState } from '../domain/subscribers';
import type { Store } from '../store/store';
import { paginate, type Params } from './params';

/** Characters of the latest message the list shows; the chat itself shows every message whole. */
export const CHAT_PREVIEW_LENGTH = 100;

function preview(message: ChatMessage) {
	const text =
		message.text.length > CHAT_PREVIEW_LENGTH ? `${message.text.slice(0, CHAT_PREVIEW_LENGTH)}…` : message.text;
	return { direction: message.direction, preview: text, buttons: message.buttons.length, time: message.time };
}

/**
 * The console's list of chats: every subscriber with how many messages its chat holds and the latest
 * one, the chat written to last first (by the order messages were recorded, not their dates: a deferred
 * chain step is dated when it fell due); subscribers without messages after them, newest card first.
 */
export function chatList(store: Store, params: Params) {
	const chats = chatState(store).chats;
	const rows = subscribersState(store).subscribers.map((card) => {
		const messages = chats.get(card.id) ?? [];
		return { card, messages: messages.length, last: messages.at(-1) };
	});
	rows.sort((a, b) => (b.last?.id ?? 0) - (a.last?.id ?? 0) || b.card.id - a.card.id);
	return paginate(
		rows.map(({ card, messages, last }) => ({
			botid: card.botid,
			clientid: card.clientid,
			messenger: card.messenger,
			name: card.name,
			active: card.active,
			blocked: card.blocked,
			messages,
			last: last ? preview(last) : null,
		})),
		params,
	);
}
