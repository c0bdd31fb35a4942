import { randomBytes } from 'node:crypto';
import type { SandboxContext } from '../api/endpoint';
import type { Store } from '../store/store';
import { sendToChat, type LinkButton } from './messagingChat';
import { findSubscriberById, type Subscriber } from './subscribers';

export interface Broadcast {
	code: string;
	name: string | null;
	text: string;
	buttons: LinkButton[];
	created: string;
	/** Bots of the segment (a bot-restricted key may stop only broadcasts of its bots). */
	bots: string[];
	planned: number;
	/** Subscriber ids still waiting, in sending order. */
	queue: number[];
	sent: number;
	/** Recipients deleted or blocked before their turn. */
	skipped: number;
	status: 'sending' | 'done' | 'stopped';
}

interface BroadcastsState {
	broadcasts: Broadcast[];
}

/** Finished broadcasts kept; older finished ones are dropped first. */
const FINISHED_KEPT = 1000;

export function broadcastsState(store: Store): BroadcastsState {
	return store.working<BroadcastsState>('broadcasts', () => ({
		broadcasts: store.records<Broadcast>('broadcast').map(([, broadcast]) => broadcast),
	}));
}

function saveBroadcast(store: Store, broadcast: Broadcast): void {
	store.put('broadcast', broadcast.code, broadcast);
}

export function findBroadcast(store: Store, code: string): Broadcast | undefined {
	return broadcastsState(store).broadcasts.find((broadcast) => broadcast.code === code);
}

/** Queues one message per recipient; the timer sends them one at a time. */
export function planBroadcast(
	{ store, clock }: SandboxContext,
	fields: { name: string | null; text: string; buttons: LinkButton[]; bots: string[] },
	recipients: Subscriber[],
): Broadcast {
	const broadcast: Broadcast = {
		code: `brd_${randomBytes(6).toString('hex')}`,
		...fields,
		created: clock.iso(),
		planned: recipients.length,
		queue: recipients.map((subscriber) => subscriber.id),
		sent: 0,
		skipped: 0,
		status: recipients.length > 0 ? 'sending' : 'done',
	};
	const state = broadcastsState(store);
	state.broadcasts.push(broadcast);
	saveBroadcast(store, broadcast);
	const finished = state.broadcasts.filter((candidate) => candidate.status !== 'sending');
	if (finished.length > FINISHED_KEPT) {
		const dropped = new Set(finished.slice(0, finished.length - FINISHED_KEPT));
		state.broadcasts = state.broadcasts.filter((candidate) => !dropped.has(candidate));
		for (const old of dropped) store.remove('broadcast', old.code);
	}
	return broadcast;
}

/** Removes the messages still queued; returns how many. */
export function stopBroadcast(store: Store, broadcast: Broadcast): number {
	const cleared = broadcast.queue.length;
	broadcast.queue = [];
	if (broadcast.status === 'sending') broadcast.status = 'stopped';
	saveBroadcast(store, broadcast);
	return cleared;
}

/**
 * Sends the next queued message of the oldest broadcast still sending: the service's send queue
 * lets one message out per tick. Returns false when nothing was queued.
 */
export function sendNextBroadcastMessage(context: SandboxContext): boolean {
	const broadcast = broadcastsState(context.store).broadcasts.find((candidate) => candidate.queue.length > 0);
	if (!broadcast) return false;
	const subscriber = findSubscriberById(context.store, broadcast.queue.shift()!);
	if (subscriber && !subscriber.blocked) {
		sendToChat(context, subscriber, {
			text: broadcast.text,
			buttons: broadcast.buttons,
			source: 'broadcast',
			origin: broadcast.code,
		});
		broadcast.sent++;
	} else {
		broadcast.skipped++;
	}
	if (broadcast.queue.length === 0) broadcast.status = 'done';
	saveBroadcast(context.store, broadcast);
	return true;
}
