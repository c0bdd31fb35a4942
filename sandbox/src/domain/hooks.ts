import { randomBytes } from 'node:crypto';
import type { EventKind } from '@messenger-bot-builder/receiver';
import type { Store } from '../store/store';
import { withinBots } from './keys';

/** An event subscription. `secret` signs its deliveries and is shown only by /hook/create. */
export interface Hook {
	id: string;
	name: string;
	url: string;
	events: EventKind[];
	created: string;
	secret: string;
	/** Bots of the key that created the hook: it only receives their events. Empty means all bots. */
	bots: string[];
	/** Set when the receiver answered 410 Gone: no more deliveries. */
	disabledAt: string | null;
	disabledReason: string | null;
}

interface HooksState {
	hooks: Hook[];
}

export function hooksState(store: Store): HooksState {
	return store.document<HooksState>('hooks', () => ({ hooks: [] }));
}

export const newHookId = () => `hook_${randomBytes(8).toString('hex')}`;

export function findHook(store: Store, id: string): Hook | undefined {
	return hooksState(store).hooks.find((hook) => hook.id === id);
}

/** The hook as /hook/create describes it (never with its secret). */
export function publicHook(hook: Hook) {
	return { id: hook.id, name: hook.name, url: hook.url, events: hook.events, created: hook.created };
}

/** The bot an event is about (the subscriber's or the payment's), when it names one. */
export function botOfEvent(data: Record<string, unknown>): string | undefined {
	for (const holder of [data.subscriber, data.payment]) {
		if (holder && typeof holder === 'object' && typeof (holder as { botid?: unknown }).botid === 'string') {
			return (holder as { botid: string }).botid;
		}
	}
	return undefined;
}

/** Enabled hooks that want this event: subscribed to its kind and allowed to see its bot. */
export function hooksFor(store: Store, type: EventKind, data: Record<string, unknown>): Hook[] {
	const botid = botOfEvent(data);
	return hooksState(store).hooks.filter(
		(hook) =>
			hook.disabledAt === null &&
			hook.events.includes(type) &&
			(hook.bots.length === 0 || (botid !== undefined && hook.bots.includes(botid))),
	);
}

/** True when a key restricted to `keyBots` may see and remove the hook. */
export function hookVisibleTo(hook: Hook, keyBots: string[]): boolean {
	return withinBots(hook.bots, keyBots);
}
