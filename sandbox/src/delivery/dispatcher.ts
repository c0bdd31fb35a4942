import type { AsymmetricJwtKey, EventKind } from '@messenger-bot-builder/receiver';
import type { SandboxContext } from '../api/endpoint';
import { findHook, hooksFor, type Hook } from '../domain/hooks';
import { ApiError, notFound } from '../http/errors';
import { retryDelayMs } from './backoff';
import { planChaos, resolveChaos, type DeliveryChaos } from './chaos';
import {
	cancelHookDeliveries,
	findDelivery,
	finishDelivery,
	pendingDeliveries,
	queueDelivery,
	roundsMade,
	saveDelivery,
	type Delivery,
} from './deliveries';
import { envelopeBody, newEventId } from './envelope';
import { HeldDeliveries } from './held';
import { roundStatus, sendRound, type SentAttempt } from './round';
import { jwtSigningKey } from './signingKeys';

/** setTimeout's longest delay; longer waits are taken in several steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Turns events into deliveries (one per matching enabled hook) and runs their attempts:
 * signed POSTs, retried on the configured schedule with jitter until a 2xx, a 410 (which
 * disables the hook) or the end of the schedule. Delivery state lives in the store, so pending
 * deliveries resume after a restart with a data file.
 */
export class DeliveryDispatcher {
	private readonly timers = new Map<string, NodeJS.Timeout>();
	private readonly inFlight = new Set<Promise<void>>();
	/** Ids of deliveries with an attempt under way. */
	private readonly attempting = new Set<string>();
	private readonly stopping = new AbortController();
	/** Deliveries chaos holds back until a later one of their hook has been sent. */
	private readonly held = new HeldDeliveries();
	/** Deliveries queued under the current chaos settings: the place each new one takes, which its draws depend on. */
	private chaosOrdinal = 0;

	constructor(private readonly context: SandboxContext) {
		// After a reset, a restore or a rolled-back change the store holds new delivery objects: schedule those.
		context.store.onReload(() => {
			for (const timer of this.timers.values()) clearTimeout(timer);
			this.timers.clear();
			this.resume();
		});
	}

	/** Queues the event for every enabled hook subscribed to it. */
	publish(type: EventKind, data: Record<string, unknown>): void {
		if (this.stopping.signal.aborted) return;
		const { store, clock } = this.context;
		const created = clock.iso();
		for (const hook of hooksFor(store, type, data)) {
			const eventId = newEventId();
			const body = envelopeBody({ id: eventId, type, created, hook: hook.id, data });
			const plan = planChaos(this.context.options.deliveryChaos, this.chaosOrdinal++);
			const now = Date.now();
			const readyAt = now + (plan?.delayMs ?? 0);
			const firstAttemptAt = plan?.hold ? Math.max(readyAt, now + (plan.holdMs ?? 0)) : readyAt;
			const delivery = queueDelivery(store, { hookId: hook.id, eventId, type, created, body }, firstAttemptAt);
			if (plan) {
				delivery.plan = { ...plan, readyAt };
				if (plan.delayMs !== undefined) delivery.chaos = [`delayed ${plan.delayMs} ms`];
				saveDelivery(store, delivery);
			}
			this.held.queued(delivery);
			this.schedule(delivery);
		}
	}

	/** The chaos settings deliveries queued from now on meet; the seed's draws start again from the first delivery. */
	setChaos(settings: Partial<DeliveryChaos>): DeliveryChaos {
		this.context.options.deliveryChaos = resolveChaos(settings);
		this.chaosOrdinal = 0;
		return this.context.options.deliveryChaos;
	}

	/**
	 * Sends a delivery again now, given-up and delivered ones included: a finished delivery gets one
	 * more attempt and finishes again whatever its answer; a pending one is attempted now and keeps its
	 * retry schedule. Runs inside the caller's transaction.
	 */
	redeliver(id: string): Delivery {
		const { store } = this.context;
		const delivery = findDelivery(store, id);
		if (!delivery) throw notFound(`Delivery ${id}`, 'id');
		const hook = findHook(store, delivery.hookId);
		if (!hook)
			throw new ApiError(422, 'hook_deleted', `The hook of delivery ${id} was deleted; it cannot be sent again`, {
				param: 'id',
			});
		if (hook.disabledAt !== null) {
			throw new ApiError(
				422,
				'hook_disabled',
				`The hook of delivery ${id} is disabled (${hook.disabledReason ?? 'disabled'}); it cannot be sent again`,
				{ param: 'id' },
			);
		}
		if (this.stopping.signal.aborted) throw new ApiError(503, 'stopping', 'The sandbox is stopping');
		if (this.attempting.has(id)) {
			throw new ApiError(
				409,
				'attempt_under_way',
				`An attempt of delivery ${id} is under way; ask again once it has ended`,
				{ param: 'id' },
			);
		}
		if (delivery.status !== 'pending') {
			delivery.status = 'pending';
			delivery.outcome = null;
			delivery.once = true;
		}
		delivery.nextAttemptAt = Date.now();
		saveDelivery(store, delivery);
		this.schedule(delivery);
		return delivery;
	}

	/** Schedules every delivery left pending by an earlier run. */
	resume(): void {
		for (const delivery of pendingDeliveries(this.context.store)) this.schedule(delivery);
	}

	/** Cancels timers and in-flight requests; abandoned attempts stay pending for the next start. */
	async stop(): Promise<void> {
		this.stopping.abort();
		for (const timer of this.timers.values()) clearTimeout(timer);
		this.timers.clear();
		await Promise.allSettled([...this.inFlight]);
	}

	private schedule(delivery: Delivery): void {
		if (this.stopping.signal.aborted || delivery.nextAttemptAt === null) return;
		clearTimeout(this.timers.get(delivery.id));
		const wait = Math.max(0, delivery.nextAttemptAt - Date.now());
		const timer = setTimeout(
			() => {
				this.timers.delete(delivery.id);
				if (delivery.nextAttemptAt !== null && delivery.nextAttemptAt > Date.now()) return this.schedule(delivery);
				// An attempt is out already (the delivery was scheduled again by a reload): its outcome settles this one.
				if (this.attempting.has(delivery.id)) return;
				this.attempting.add(delivery.id);
				const running = this.attempt(delivery)
					.catch((error) => console.error(`sandbox: delivery ${delivery.id} failed unexpectedly`, error))
					.finally(() => {
						this.inFlight.delete(running);
						this.attempting.delete(delivery.id);
					});
				this.inFlight.add(running);
			},
			Math.min(wait, MAX_TIMER_MS),
		);
		timer.unref();
		this.timers.set(delivery.id, timer);
	}

	/** True while `delivery` is the store's current object for its id (not replaced by a reload). */
	private isCurrent(delivery: Delivery): boolean {
		return findDelivery(this.context.store, delivery.id) === delivery;
	}

	private async attempt(delivery: Delivery): Promise<void> {
		const { store } = this.context;
		if (delivery.status !== 'pending' || this.stopping.signal.aborted || !this.isCurrent(delivery)) return;
		const hook = findHook(store, delivery.hookId);
		if (!hook) return store.transaction(() => finishDelivery(store, delivery, 'cancelled', 'hook deleted'));
		if (hook.disabledAt !== null)
			return store.transaction(() => finishDelivery(store, delivery, 'cancelled', 'hook disabled'));
		const plan = delivery.attempts.length === 0 ? delivery.plan : undefined;
		const sent = await sendRound({
			store,
			delivery,
			hook,
			jwtKey: this.jwtKey(),
			timeoutMs: this.context.options.deliveryTimeoutMs,
			stopSignal: this.stopping.signal,
			plan,
		});
		if (sent.some((attempt) => attempt.outcome.abandoned)) return;
		// The working set may have been read again meanwhile (a rolled-back change, reset, restore): the attempt was
		// made, so it is recorded on the delivery's current object while that one still waits for it.
		const current = this.isCurrent(delivery) ? delivery : findDelivery(store, delivery.id);
		if (!current || current.status !== 'pending') return;

		store.transaction(() => {
			this.record(current, sent);
			saveDelivery(store, current);
			// The hook may have been deleted while the request was out: the attempt is recorded, nothing follows.
			if (current.status === 'pending') this.settle(current, findHook(store, hook.id) ?? hook, roundStatus(sent));
		});
		this.releaseHeld(current);
	}

	/** Adds a round's POSTs to the delivery's attempts, and what chaos did to them to its record. */
	private record(delivery: Delivery, sent: SentAttempt[]): void {
		const first = delivery.attempts.length + 1;
		const notes = [...(delivery.chaos ?? [])];
		if (delivery.plan?.hold) notes.push(`held back ${delivery.plan.holdMs ?? 0} ms: no later event was sent first`);
		if (sent.length > 1) notes.push(`duplicated: attempts ${first} and ${first + 1} sent at once`);
		sent.forEach((attempt, index) => {
			delivery.attempts.push({
				n: first + index,
				id: attempt.id,
				at: attempt.at,
				status: attempt.outcome.status,
				error: attempt.outcome.error,
				durationMs: attempt.outcome.durationMs,
				headers: attempt.headers,
				responseBody: attempt.outcome.responseBody,
				...(index > 0 ? { copyOf: first } : {}),
			});
			notes.push(...attempt.chaos.map((note) => `${note} (attempt ${first + index})`));
		});
		delete delivery.plan;
		if (notes.length > 0) delivery.chaos = notes;
	}

	/** Sends the deliveries held back for this one now that it has been attempted (their delay still applies). */
	private releaseHeld(delivery: Delivery): void {
		const { store } = this.context;
		for (const id of this.held.releasedBy(delivery.id)) {
			const waiting = findDelivery(store, id);
			if (!waiting?.plan?.hold || waiting.status !== 'pending' || waiting.attempts.length > 0) continue;
			store.transaction(() => {
				const plan = waiting.plan ?? {};
				delete plan.hold;
				waiting.chaos = [...(waiting.chaos ?? []), `held back until a later event (${delivery.eventId}) was sent`];
				waiting.nextAttemptAt = Math.max(Date.now(), plan.readyAt ?? 0);
				saveDelivery(store, waiting);
			});
			this.schedule(waiting);
		}
	}

	/** Decides what follows an attempt: done, hook disabled, another attempt later, or give up. */
	private settle(delivery: Delivery, hook: Hook, status: number | null): void {
		const { store, clock, options } = this.context;
		const once = delivery.once === true;
		delete delivery.once;
		if (status !== null && status >= 200 && status < 300) {
			return finishDelivery(store, delivery, 'delivered', `receiver answered ${status}`);
		}
		if (status === 410) {
			hook.disabledAt = clock.iso();
			hook.disabledReason = 'the receiver answered 410 Gone';
			finishDelivery(store, delivery, 'failed', 'receiver answered 410 Gone: hook disabled');
			return cancelHookDeliveries(store, hook.id, 'hook disabled');
		}
		if (once)
			return finishDelivery(
				store,
				delivery,
				'failed',
				`redelivery failed: ${delivery.attempts.at(-1)?.error ?? 'no answer'}`,
			);
		const rounds = roundsMade(delivery);
		const delay = retryDelayMs(options.retrySchedule, rounds);
		if (delay === undefined) return finishDelivery(store, delivery, 'failed', `gave up after ${rounds} attempts`);
		delivery.nextAttemptAt = Date.now() + delay;
		saveDelivery(store, delivery);
		this.schedule(delivery);
	}

	private jwtKey(): AsymmetricJwtKey | undefined {
		const { store, clock, options } = this.context;
		const alg = options.signingAlgorithm;
		return alg === 'HS256' || alg === 'v1a' ? undefined : jwtSigningKey(store, alg, clock.iso());
	}
}
