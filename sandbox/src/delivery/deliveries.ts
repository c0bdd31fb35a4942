import { randomBytes } from 'node:crypto';
import type { EventKind } from '@messenger-bot-builder/receiver';
import type { Store } from '../store/store';
import type { ChaosPlan } from './chaos';

/** One HTTP attempt of a delivery. Times are wall-clock (retries run in real time). */
export interface DeliveryAttempt {
	/** 1 for the first attempt. */
	n: number;
	/** The attempt id: the `jti` claim of this attempt's JWT. */
	id: string;
	at: string;
	/** HTTP status the receiver answered; null when it did not answer (timeout, refused connection). */
	status: number | null;
	error: string | null;
	durationMs: number;
	/** The request's headers as sent (signatures included); absent in attempts recorded before they were kept. */
	headers?: Record<string, string>;
	/** The start of the receiver's answer body. */
	responseBody?: string | null;
	/** Set on the second POST of a round that chaos duplicated: the `n` of the attempt it was sent beside. */
	copyOf?: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** One event on its way to one hook. */
export interface Delivery {
	id: string;
	hookId: string;
	eventId: string;
	type: EventKind;
	/** Business time the event happened (the envelope's `created`). */
	created: string;
	/** The exact raw body every attempt sends. */
	body: string;
	status: DeliveryStatus;
	/** Epoch ms (wall clock) of the next attempt while pending; null once finished. */
	nextAttemptAt: number | null;
	attempts: DeliveryAttempt[];
	/** Why the delivery finished; null while pending. */
	outcome: string | null;
	/** Set by a redelivery of a finished delivery: one attempt, then it finishes again whatever the answer. */
	once?: boolean;
	/** What delivery chaos did to it, in words (`duplicated`, `delayed 1500 ms`, ...); absent when nothing. */
	chaos?: string[];
	/** Chaos still to come to its first attempt; removed once that attempt is made. */
	plan?: ChaosPlan;
}

interface DeliveriesState {
	deliveries: Delivery[];
}

/** Finished deliveries kept for /hook/deliveries; older ones are dropped first. Pending ones are never dropped. */
const FINISHED_CAPACITY = 2000;

/** Deliveries in memory, oldest first, each kept as a `delivery` record written whenever it changes. */
export function deliveriesState(store: Store): DeliveriesState {
	return store.working<DeliveriesState>('deliveries', () => ({
		deliveries: store.records<Delivery>('delivery').map(([, delivery]) => delivery),
	}));
}

export function saveDelivery(store: Store, delivery: Delivery): void {
	store.put('delivery', delivery.id, delivery);
}

export function findDelivery(store: Store, id: string): Delivery | undefined {
	return deliveriesState(store).deliveries.find((delivery) => delivery.id === id);
}

export function queueDelivery(
	store: Store,
	input: Pick<Delivery, 'hookId' | 'eventId' | 'type' | 'created' | 'body'>,
	firstAttemptAt: number,
): Delivery {
	const delivery: Delivery = {
		id: `dlv_${randomBytes(8).toString('hex')}`,
		...input,
		status: 'pending',
		nextAttemptAt: firstAttemptAt,
		attempts: [],
		outcome: null,
	};
	const state = deliveriesState(store);
	state.deliveries.push(delivery);
	saveDelivery(store, delivery);
	dropOldFinished(store, state);
	return delivery;
}

export function finishDelivery(
	store: Store,
	delivery: Delivery,
	status: Exclude<DeliveryStatus, 'pending'>,
	outcome: string,
): void {
	delivery.status = status;
	delivery.outcome = outcome;
	delivery.nextAttemptAt = null;
	saveDelivery(store, delivery);
}

/** Cancels every pending delivery of a hook (deleted, or disabled by a 410). */
export function cancelHookDeliveries(store: Store, hookId: string, outcome: string): void {
	for (const delivery of deliveriesState(store).deliveries) {
		if (delivery.hookId === hookId && delivery.status === 'pending')
			finishDelivery(store, delivery, 'cancelled', outcome);
	}
}

/** Rounds of attempts made: a duplicated round's second POST does not count (the retry schedule follows rounds). */
export function roundsMade(delivery: Delivery): number {
	return delivery.attempts.filter((attempt) => attempt.copyOf === undefined).length;
}

export function pendingDeliveries(store: Store): Delivery[] {
	return deliveriesState(store).deliveries.filter((delivery) => delivery.status === 'pending');
}

/** An attempt as the API shows it (/hook/deliveries, /hook/list): no headers (signatures) and no receiver's answer. */
export type PublicAttempt = Pick<DeliveryAttempt, 'n' | 'id' | 'at' | 'status' | 'error' | 'durationMs'>;

export function publicAttempt({ n, id, at, status, error, durationMs }: DeliveryAttempt): PublicAttempt {
	return { n, id, at, status, error, durationMs };
}

export interface DeliveryStats {
	pending: number;
	delivered: number;
	failed: number;
	cancelled: number;
	lastAttempt: PublicAttempt | null;
}

export function deliveryStats(store: Store, hookId: string): DeliveryStats {
	const stats: DeliveryStats = { pending: 0, delivered: 0, failed: 0, cancelled: 0, lastAttempt: null };
	let lastAttempt: DeliveryAttempt | undefined;
	for (const delivery of deliveriesState(store).deliveries) {
		if (delivery.hookId !== hookId) continue;
		stats[delivery.status] += 1;
		const last = delivery.attempts.at(-1);
		if (last && (!lastAttempt || last.at >= lastAttempt.at)) lastAttempt = last;
	}
	if (lastAttempt) stats.lastAttempt = publicAttempt(lastAttempt);
	return stats;
}

/** A delivery as /hook/deliveries shows it: the event it carries, its state and every attempt. */
export function deliveryView(delivery: Delivery) {
	return {
		id: delivery.id,
		hook: delivery.hookId,
		status: delivery.status,
		event: JSON.parse(delivery.body) as unknown,
		nextAttempt: delivery.nextAttemptAt === null ? null : new Date(delivery.nextAttemptAt).toISOString(),
		attempts: delivery.attempts.map(publicAttempt),
		outcome: delivery.outcome,
	};
}

/**
 * A delivery as GET /sandbox/deliveries shows it (account key only): also the raw body and, per
 * attempt, the headers sent, the signature schemes they carry, the latency and the receiver's answer.
 */
export function fullDeliveryView(delivery: Delivery) {
	return {
		...deliveryView(delivery),
		type: delivery.type,
		created: delivery.created,
		body: delivery.body,
		chaos: delivery.chaos ?? [],
		attempts: delivery.attempts.map((attempt) => ({
			...publicAttempt(attempt),
			latencyMs: attempt.durationMs,
			headers: attempt.headers ?? null,
			schemes: attempt.headers ? signatureSchemes(attempt.headers) : [],
			responseBody: attempt.responseBody ?? null,
		})),
	};
}

/** The signature schemes an attempt's headers carry: `jwt-<alg>` (x-signature) and `standard-webhooks-v1`. */
export function signatureSchemes(headers: Record<string, string>): string[] {
	const schemes: string[] = [];
	const jwt = headers['x-signature'];
	if (jwt) {
		let alg = 'unknown';
		try {
			alg = String(
				(JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString('utf8')) as { alg?: unknown }).alg ?? alg,
			);
		} catch {
			// Not a JWT: named as unknown.
		}
		schemes.push(`jwt-${alg}`);
	}
	for (const signature of (headers['webhook-signature'] ?? '').split(' ').filter(Boolean)) {
		const version = signature.split(',')[0];
		if (!schemes.includes(`standard-webhooks-${version}`)) schemes.push(`standard-webhooks-${version}`);
	}
	return schemes;
}

function dropOldFinished(store: Store, state: DeliveriesState): void {
	let finished = state.deliveries.filter((delivery) => delivery.status !== 'pending').length;
	if (finished <= FINISHED_CAPACITY) return;
	state.deliveries = state.deliveries.filter((delivery) => {
		if (delivery.status === 'pending' || finished <= FINISHED_CAPACITY) return true;
		finished -= 1;
		store.remove('delivery', delivery.id);
		return false;
	});
}
