import type { VerifiedDelivery } from '../../nodes/shared/delivery';
import type { Lease, LeaseKeeper } from './leases';
import type { Listeners, RunContext } from './listeners';
import type { DeliveryTracing } from './observability/telemetry';

/** Lets serverless platforms keep running the listeners after the answer (`waitUntil`, Next.js `after`). */
export interface HandleContext {
	waitUntil?(promise: Promise<unknown>): void;
}

/** A verified delivery waiting for its listeners (`onReceipt`), and what to tell a serverless platform when they are done. */
export interface Dispatch {
	verified: VerifiedDelivery;
	run: RunContext;
	lease: Lease | undefined;
	trace: DeliveryTracing;
	finished?: () => void;
}

const NOTHING = () => undefined;

/**
 * Runs accepted deliveries through the listeners and ends each run with its lease. Counts the runs started and not
 * yet ended, for `idle()`.
 */
export class Dispatcher {
	readonly #listeners: Listeners;
	readonly #leases: LeaseKeeper | undefined;
	/** Runs started and not yet ended, and who waits for that number to reach zero. */
	#pendingDispatches = 0;
	#idleWaiters: (() => void)[] = [];
	/** Accepted deliveries whose listeners start at the next `setImmediate`. */
	#queued: Dispatch[] = [];

	constructor(listeners: Listeners, leases: LeaseKeeper | undefined) {
		this.#listeners = listeners;
		this.#leases = leases;
	}

	/** A run starts now or soon: `idle()` waits for it to end ({@link finish}). */
	started(): void {
		this.#pendingDispatches += 1;
	}

	/** Resolves when every run started so far has ended and its event is recorded. */
	idle(): Promise<void> {
		if (this.#pendingDispatches === 0) return Promise.resolve();
		return new Promise((resolve) => this.#idleWaiters.push(resolve));
	}

	/**
	 * `onReceipt`: starts the listeners on a later turn of the event loop, after the answer has been produced.
	 * Deliveries accepted in the same turn share one `setImmediate`.
	 */
	schedule(dispatch: Dispatch, context: HandleContext): void {
		this.#queued.push(dispatch);
		if (this.#queued.length === 1) setImmediate(this.#startQueued);
		if (!context.waitUntil) return;
		// The event is leased already: a platform hook that fails must not keep the listeners from running.
		try {
			context.waitUntil(new Promise<void>((resolve) => (dispatch.finished = resolve)));
		} catch (error) {
			const { event } = dispatch.verified;
			this.#listeners.logger.error(`waitUntil failed for ${event.type} ${event.id}; the listeners run anyway`, {
				code: 'dispatch.wait_until_failed',
				error,
				eventId: event.id,
				eventType: event.type,
			});
		}
	}

	readonly #startQueued = () => {
		const batch = this.#queued;
		this.#queued = [];
		for (const dispatch of batch) this.#dispatch(dispatch);
	};

	#dispatch(dispatch: Dispatch): void {
		// `finished` is known by now: schedule set it in the turn that accepted the delivery.
		const finished = dispatch.finished ?? NOTHING;
		const { trace } = dispatch;
		trace.runListeners(() =>
			this.#listeners.run(dispatch.verified.event, dispatch.run, (failed) => {
				trace.listenersEnded(failed);
				this.finish(dispatch.lease, failed, finished);
			}),
		);
	}

	/** Ends a run: its lease is settled with the store (see {@link LeaseKeeper.settle}), then `then` is called. */
	finish(lease: Lease | undefined, failed: boolean, then: () => void): void {
		if (!lease || !this.#leases) return this.#ended(then);
		this.#leases.settle(lease, failed, this.#ended, then);
	}

	/** A run is over: one dispatch fewer; `idle()` resolves at zero. */
	readonly #ended = (then: () => void): void => {
		this.#pendingDispatches -= 1;
		if (this.#pendingDispatches === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
		then();
	};
}
