import { randomBytes } from 'node:crypto';
import type { EventType } from '../api/endpoint';
import type { Store } from '../store';

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
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'cancelled';

/** One event on its way to one hook. */
export interface Delivery {
  id: string;
  hookId: string;
  eventId: string;
  type: EventType;
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
}

interface DeliveriesState {
  deliveries: Delivery[];
}

/** Finished deliveries kept for /hook/deliveries; older ones are dropped first. Pending ones are never dropped. */
const FINISHED_CAPACITY = 2000;

export function deliveriesState(store: Store): DeliveriesState {
  return store.slice<DeliveriesState>('deliveries', () => ({ deliveries: [] }));
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
  dropOldFinished(state);
  store.changed();
  return delivery;
}

export function finishDelivery(store: Store, delivery: Delivery, status: Exclude<DeliveryStatus, 'pending'>, outcome: string): void {
  delivery.status = status;
  delivery.outcome = outcome;
  delivery.nextAttemptAt = null;
  store.changed();
}

/** Cancels every pending delivery of a hook (deleted, or disabled by a 410). */
export function cancelHookDeliveries(store: Store, hookId: string, outcome: string): void {
  for (const delivery of deliveriesState(store).deliveries) {
    if (delivery.hookId === hookId && delivery.status === 'pending') finishDelivery(store, delivery, 'cancelled', outcome);
  }
}

export function pendingDeliveries(store: Store): Delivery[] {
  return deliveriesState(store).deliveries.filter((delivery) => delivery.status === 'pending');
}

export interface DeliveryStats {
  pending: number;
  delivered: number;
  failed: number;
  cancelled: number;
  lastAttempt: DeliveryAttempt | null;
}

export function deliveryStats(store: Store, hookId: string): DeliveryStats {
  const stats: DeliveryStats = { pending: 0, delivered: 0, failed: 0, cancelled: 0, lastAttempt: null };
  for (const delivery of deliveriesState(store).deliveries) {
    if (delivery.hookId !== hookId) continue;
    stats[delivery.status] += 1;
    const last = delivery.attempts.at(-1);
    if (last && (!stats.lastAttempt || last.at >= stats.lastAttempt.at)) stats.lastAttempt = last;
  }
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
    attempts: delivery.attempts,
    outcome: delivery.outcome,
  };
}

function dropOldFinished(state: DeliveriesState): void {
  let finished = state.deliveries.filter((delivery) => delivery.status !== 'pending').length;
  if (finished <= FINISHED_CAPACITY) return;
  state.deliveries = state.deliveries.filter((delivery) => {
    if (delivery.status === 'pending' || finished <= FINISHED_CAPACITY) return true;
    finished -= 1;
    return false;
  });
}
