import { randomUUID } from 'node:crypto';
import { signDelivery, type AsymmetricJwtKey } from '@messenger-bot-builder/receiver';
import type { EventType, SandboxContext } from '../api/endpoint';
import { findHook, hooksFor, type Hook } from '../domain/hooks';
import { sendAttempt, type AttemptOutcome } from './attempt';
import { retryDelayMs } from './backoff';
import { cancelHookDeliveries, finishDelivery, pendingDeliveries, queueDelivery, type Delivery } from './deliveries';
import { envelopeBody, newEventId } from './envelope';
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
  private readonly stopping = new AbortController();

  constructor(private readonly context: SandboxContext) {}

  /** Queues the event for every enabled hook subscribed to it. */
  publish(type: EventType, data: Record<string, unknown>): void {
    if (this.stopping.signal.aborted) return;
    const { store, clock } = this.context;
    const created = clock.iso();
    for (const hook of hooksFor(store, type, data)) {
      const eventId = newEventId();
      const body = envelopeBody({ id: eventId, type, created, hook: hook.id, data });
      this.schedule(queueDelivery(store, { hookId: hook.id, eventId, type, created, body }, Date.now()));
    }
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
    const timer = setTimeout(() => {
      this.timers.delete(delivery.id);
      if (delivery.nextAttemptAt !== null && delivery.nextAttemptAt > Date.now()) return this.schedule(delivery);
      const running = this.attempt(delivery)
        .catch((error) => console.error(`sandbox: delivery ${delivery.id} failed unexpectedly`, error))
        .finally(() => this.inFlight.delete(running));
      this.inFlight.add(running);
    }, Math.min(wait, MAX_TIMER_MS));
    timer.unref();
    this.timers.set(delivery.id, timer);
  }

  private async attempt(delivery: Delivery): Promise<void> {
    const { store } = this.context;
    if (delivery.status !== 'pending' || this.stopping.signal.aborted) return;
    const hook = findHook(store, delivery.hookId);
    if (!hook) return finishDelivery(store, delivery, 'cancelled', 'hook deleted');
    if (hook.disabledAt !== null) return finishDelivery(store, delivery, 'cancelled', 'hook disabled');

    const attemptId = `att_${randomUUID()}`;
    const at = new Date().toISOString();
    let outcome: AttemptOutcome;
    try {
      const headers = await signDelivery({
        body: delivery.body,
        eventId: delivery.eventId,
        hookId: hook.id,
        secret: hook.secret,
        attemptId,
        timestamp: Math.floor(Date.now() / 1000),
        jwtKey: this.jwtKey(),
      });
      outcome = await sendAttempt({
        url: hook.url,
        body: delivery.body,
        headers,
        timeoutMs: this.context.options.deliveryTimeoutMs,
        stopSignal: this.stopping.signal,
      });
    } catch (error) {
      outcome = { status: null, error: `signing failed: ${(error as Error).message}`, durationMs: 0, abandoned: false };
    }
    if (outcome.abandoned) return;

    delivery.attempts.push({ n: delivery.attempts.length + 1, id: attemptId, at, status: outcome.status, error: outcome.error, durationMs: outcome.durationMs });
    store.changed();
    // The hook may have been deleted while the request was out: the attempt is recorded, nothing follows.
    if (delivery.status === 'pending') this.settle(delivery, hook, outcome.status);
  }

  /** Decides what follows an attempt: done, hook disabled, another attempt later, or give up. */
  private settle(delivery: Delivery, hook: Hook, status: number | null): void {
    const { store, clock, options } = this.context;
    if (status !== null && status >= 200 && status < 300) {
      return finishDelivery(store, delivery, 'delivered', `receiver answered ${status}`);
    }
    if (status === 410) {
      hook.disabledAt = clock.iso();
      hook.disabledReason = 'the receiver answered 410 Gone';
      finishDelivery(store, delivery, 'failed', 'receiver answered 410 Gone: hook disabled');
      return cancelHookDeliveries(store, hook.id, 'hook disabled');
    }
    const delay = retryDelayMs(options.retrySchedule, delivery.attempts.length);
    if (delay === undefined) {
      return finishDelivery(store, delivery, 'failed', `gave up after ${delivery.attempts.length} attempts`);
    }
    delivery.nextAttemptAt = Date.now() + delay;
    store.changed();
    this.schedule(delivery);
  }

  private jwtKey(): AsymmetricJwtKey | undefined {
    const { store, clock, options } = this.context;
    const alg = options.signingAlgorithm;
    return alg === 'HS256' ? undefined : jwtSigningKey(store, alg, clock.iso());
  }
}
