import type { DeliveryEvent } from '../../nodes/shared/delivery';
import type { BeginOutcome, DedupeStore } from './dedupe/store';
import { HeldList, type HeldLinks } from './heldList';
import { LeaseLostError, type Listeners, type RunContext } from './listeners';
import { isThenable } from './thenable';

/** The codes of a lease this run no longer holds. */
type LostCode = 'lease.renew_refused' | 'lease.lapsed' | 'lease.max_run_exceeded';

/** An event whose lease this receiver holds while its listeners run. */
export interface Lease extends HeldLinks<Lease> {
	event: DeliveryEvent;
	token: string;
	run: RunContext;
	/** When the lease lapses unless renewed, as far as this process can tell: the last renewal's sending + leaseMs. */
	expiresAt: number;
	/** Not renewed past this (arrival + maxRunMs). */
	renewUntil: number;
	/** No longer held: lapsed, refused, or released at maxRunMs. */
	lost: boolean;
	/** Set while a renewal has failed: fires when the lease lapses. */
	lapseTimer?: NodeJS.Timeout;
}

/**
 * The leases a receiver takes in its deduplication store: taken when a delivery begins, renewed together every third
 * of `leaseMs` while any is held, given up when the run ends, lapses or outlives `maxRunMs`.
 */
export class LeaseKeeper {
	readonly #store: DedupeStore;
	readonly #leaseMs: number;
	readonly #maxRunMs: number;
	readonly #listeners: Listeners;
	readonly #leases = new HeldList<Lease>();
	#renewTimer: NodeJS.Timeout | undefined;

	constructor(store: DedupeStore, leaseMs: number, maxRunMs: number, listeners: Listeners) {
		this.#store = store;
		this.#leaseMs = leaseMs;
		this.#maxRunMs = maxRunMs;
		this.#listeners = listeners;
	}

	/** Asks the store for the event's lease (or whether it is done, or leased by someone else). */
	begin(eventId: string): BeginOutcome | Promise<BeginOutcome> {
		return this.#store.begin(eventId, this.#leaseMs);
	}

	/**
	 * Holds the lease `begin` acquired for a run, renewed until the run ends. `sentAt`: when `begin` was sent (the
	 * lease lasts from then); `arrivedAt`: the request's arrival (`maxRunMs` counts from it).
	 */
	hold(event: DeliveryEvent, token: string, run: RunContext, sentAt: number, arrivedAt: number): Lease {
		const lease: Lease = {
			event,
			token,
			run,
			expiresAt: sentAt + this.#leaseMs,
			renewUntil: arrivedAt + this.#maxRunMs,
			lost: false,
			previous: undefined,
			next: undefined,
			held: false,
		};
		this.#leases.add(lease);
		if (this.#renewTimer === undefined) {
			this.#renewTimer = setInterval(this.#renewAll, Math.max(1, Math.floor(this.#leaseMs / 3)));
			this.#renewTimer.unref();
		}
		return lease;
	}

	/**
	 * Ends a run's lease: the event is recorded as done when the listeners succeeded, the lease released when one
	 * failed (its next delivery is processed again). A store that fails here is logged: the lease then expires by
	 * itself. A completion the store refuses (another delivery held or completed the event: this run's lease was lost)
	 * goes to the error handlers as a {@link LeaseLostError}: the listeners may have run twice. Then calls
	 * `after(arg)`: an argument rather than a closure, since most deliveries end here in the same turn.
	 */
	settle<A>(lease: Lease, failed: boolean, after: (arg: A) => void, arg: A): void {
		this.#unhold(lease);
		const eventId = lease.event.id;
		let result: unknown;
		try {
			result = failed ? this.#store.release(eventId, lease.token) : this.#store.complete(eventId, lease.token);
		} catch (error) {
			this.#recordFailed(lease, failed, error);
			after(arg);
			return;
		}
		// Closures only for a store that answers later.
		if (isThenable(result)) {
			Promise.resolve(result).then(
				(recorded) => {
					this.#recorded(lease, failed, recorded);
					after(arg);
				},
				(error: unknown) => {
					this.#recordFailed(lease, failed, error);
					after(arg);
				},
			);
		} else {
			this.#recorded(lease, failed, result);
			after(arg);
		}
	}

	/** The store answered `release` or `complete`; a completion it refused means this run's lease was lost. */
	#recorded(lease: Lease, failed: boolean, recorded: unknown): void {
		if (!failed && recorded === false) {
			const { event } = lease;
			const message = `the lease on ${event.type} ${event.id} was lost while its listeners ran, and another delivery held or completed the event: its listeners may have run twice (not recorded as done by this run)`;
			this.#listeners.reportError(new LeaseLostError(message), event, 'lease.completion_refused');
		}
	}

	#recordFailed(lease: Lease, failed: boolean, error: unknown): void {
		const { event } = lease;
		this.#listeners.logger.error(
			`could not ${failed ? 'release' : 'record as done'} event ${event.id}; its lease expires by itself`,
			{ code: 'lease.record_failed', error, eventId: event.id, eventType: event.type },
		);
	}

	/**
	 * Stops renewing `lease` (its run ended, or it is lost). The renewal timer stops at its next tick that finds no
	 * lease, not here: under load the leases empty and refill between every two batches of deliveries.
	 */
	#unhold(lease: Lease): void {
		if (lease.lapseTimer !== undefined) {
			clearTimeout(lease.lapseTimer);
			lease.lapseTimer = undefined;
		}
		this.#leases.delete(lease);
	}

	/** This run no longer holds its event: stop renewing, abort the listeners' signal, say so once. */
	#lose(lease: Lease, why: string, code: LostCode): void {
		if (lease.lost) return;
		lease.lost = true;
		this.#unhold(lease);
		const { event } = lease;
		const message = `${why}: another delivery of ${event.type} ${event.id} may run it meanwhile; the listeners' signal is aborted`;
		this.#listeners.logger.warn(message, { code, eventId: event.id, eventType: event.type });
		lease.run.abort(new LeaseLostError(message));
	}

	/** A renewal failed (the store did not answer): the lease may still be live; it is lost once its time is up. */
	#renewFailed(lease: Lease, error: unknown): void {
		if (lease.lost || lease.lapseTimer !== undefined) return;
		const { event } = lease;
		const lapsesInMs = Math.max(0, lease.expiresAt - Date.now());
		this.#listeners.logger.warn(
			`could not renew the lease on event ${event.id} (it lapses in ${lapsesInMs} ms unless a renewal succeeds)`,
			{ code: 'lease.renew_failed', error, eventId: event.id, eventType: event.type, lapsesInMs },
		);
		const check = () => {
			lease.lapseTimer = undefined;
			if (lease.lost || !this.#leases.has(lease) || Date.now() < lease.expiresAt) return;
			this.#lose(lease, `the lease on event ${event.id} lapsed (no renewal succeeded)`, 'lease.lapsed');
			// A renewal that timed out here may still reach the store late and extend the lease that this run gave up:
			// release it (token-checked; queued after those renewals), so that the event's next delivery is not refused.
			this.#release(lease, 'after its lease lapsed');
		};
		lease.lapseTimer = setTimeout(check, Math.max(0, lease.expiresAt - Date.now()));
		lease.lapseTimer.unref();
	}

	/** `maxRunMs` is over: the lease is released, so that the event's next delivery runs it again. */
	#overrun(lease: Lease): void {
		const { event } = lease;
		this.#lose(
			lease,
			`the listeners of event ${event.id} ran longer than maxRunMs (${this.#maxRunMs} ms): its lease is released, so its next delivery runs it again`,
			'lease.max_run_exceeded',
		);
		this.#release(lease, 'at maxRunMs');
	}

	/** Gives back a lease this run no longer holds; when the store does not answer, the lease expires by itself. */
	#release(lease: Lease, when: string): void {
		const { event, token } = lease;
		const report = (error: unknown) =>
			this.#listeners.logger.error(`could not release event ${event.id} ${when}; its lease expires by itself`, {
				code: 'lease.release_failed',
				error,
				eventId: event.id,
				eventType: event.type,
			});
		try {
			const released = this.#store.release(event.id, token);
			if (isThenable(released)) Promise.resolve(released).then(undefined, report);
		} catch (error) {
			report(error);
		}
	}

	readonly #renewAll = () => {
		if (this.#leases.size === 0) {
			clearInterval(this.#renewTimer);
			this.#renewTimer = undefined;
			return;
		}
		const now = Date.now();
		// A copy: a renewal that the store answers at once may lose its lease, and an overrun releases one.
		for (const lease of [...this.#leases]) {
			if (!lease.held) continue;
			if (now >= lease.renewUntil) this.#overrun(lease);
			else this.#renew(lease, now);
		}
	};

	#renew(lease: Lease, now: number): void {
		const renewed = (ok: unknown) => {
			if (lease.lost) return;
			if (ok) lease.expiresAt = Math.max(lease.expiresAt, now + this.#leaseMs);
			else
				this.#lose(
					lease,
					`the store refused to renew the lease on event ${lease.event.id} (it lapsed, or another delivery took it)`,
					'lease.renew_refused',
				);
		};
		const failed = (error: unknown) => this.#renewFailed(lease, error);
		try {
			const result = this.#store.renew(lease.event.id, lease.token, this.#leaseMs);
			if (isThenable(result)) Promise.resolve(result).then(renewed, failed);
			else renewed(result);
		} catch (error) {
			failed(error);
		}
	}
}
