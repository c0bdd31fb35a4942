import type { SandboxContext } from '../api/endpoint';
import type { Store } from '../store';
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
  chats: Record<string, ChatMessage[]>;
  nextId: number;
}

export function chatState(store: Store): ChatState {
  return store.slice<ChatState>('chats', () => ({ chats: {}, nextId: 1 }));
}

export function chatOf(store: Store, subscriber: Subscriber): ChatMessage[] {
  return chatState(store).chats[String(subscriber.id)] ?? [];
}

export function forgetChat(store: Store, subscriber: Subscriber): void {
  delete chatState(store).chats[String(subscriber.id)];
  store.changed();
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
export function sendToChat({ store, clock, options }: SandboxContext, subscriber: Subscriber, message: Outgoing): ChatMessage {
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
  const state = chatState(store);
  const recorded: ChatMessage = { id: state.nextId++, ...message };
  (state.chats[String(subscriber.id)] ??= []).push(recorded);
  store.changed();
  return recorded;
}
