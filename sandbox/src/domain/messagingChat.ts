import type { SandboxContext } from '../api/endpoint';
import type { Store } from '../store/store';
import { countDay } from './statsCounters';
import type { Subscriber } from './subscribers';

export interface LinkButton {
	name: string;
	url: string;
}

/** What put a message into a chat. */
export type MessageSource = 'api' | 'broadcast' | 'chain' | 'subscriber';

export interface ChatMessage {
	id: number;
	/** `out`: the bot wrote to the subscriber; `in`: the subscriber wrote to the bot. */
	direction: 'out' | 'in';
	text: string;
	buttons: LinkButton[];
	source: MessageSource;
	/** Broadcast code or chain code, when the message came from one. */
	origin: string | null;
	time: string;
}

interface ChatState {
	/** Subscriber id -> messages, oldest first. */
	chats: Map<number, ChatMessage[]>;
}

/** Chats in memory, read from the `chat` records (one per message, naming its subscriber). */
export function chatState(store: Store): ChatState {
	return store.working<ChatState>('chats', () => {
		const chats = new Map<number, ChatMessage[]>();
		for (const [, { subscriber, ...message }] of store.records<ChatMessage & { subscriber: number }>('chat')) {
			let chat = chats.get(subscriber);
			if (!chat) chats.set(subscriber, (chat = []));
			chat.push(message);
			store.reserveIds('chat', message.id);
		}
		return { chats };
	});
}

export function chatOf(store: Store, subscriber: Subscriber): ChatMessage[] {
	return chatState(store).chats.get(subscriber.id) ?? [];
}

export function forgetChat(store: Store, subscriber: Subscriber): void {
	const chats = chatState(store).chats;
	for (const message of chats.get(subscriber.id) ?? []) store.remove('chat', message.id);
	chats.delete(subscriber.id);
}

export interface Outgoing {
	text: string;
	buttons?: LinkButton[];
	source: Exclude<MessageSource, 'subscriber'>;
	origin?: string | null;
	/** Epoch ms; now by default (deferred chain steps are dated when they fell due). */
	at?: number;
}

/** The one way a bot message reaches a chat: recorded in the history and counted in the day's statistics. */
export function sendToChat(
	{ store, clock, options }: SandboxContext,
	subscriber: Subscriber,
	message: Outgoing,
): ChatMessage {
	const at = message.at ?? clock.now();
	const recorded = appendToChat(store, subscriber, {
		direction: 'out',
		text: message.text,
		buttons: message.buttons ?? [],
		source: message.source,
		origin: message.origin ?? null,
		time: new Date(at).toISOString(),
	});
	countDay(store, options.timezone, at, subscriber.botid, 'messages');
	return recorded;
}

/** Records a message as is (also used for what subscribers wrote, in demo data). */
export function appendToChat(store: Store, subscriber: Subscriber, message: Omit<ChatMessage, 'id'>): ChatMessage {
	const chats = chatState(store).chats;
	const recorded: ChatMessage = { id: store.nextId('chat'), ...message };
	let chat = chats.get(subscriber.id);
	if (!chat) chats.set(subscriber.id, (chat = []));
	chat.push(recorded);
	store.put('chat', recorded.id, { ...recorded, subscriber: subscriber.id });
	return recorded;
}
