import {
	UnverifiedHintGate,
	type DeliveryError,
	type DeliveryEvent,
	type EventMap,
	type KnownEventType,
} from '../../nodes/shared/delivery';
import type { LogFields, ReceiverLogger } from './observability/logger';
import { refusalLine } from './refusalLog';
import { isThenable } from './thenable';
import type { SignatureScheme } from './options';

/** What a listener learns besides the event. */
export interface DeliveryContext {
	scheme: SignatureScheme;
	/** JWT `jti` of this delivery attempt (JWT scheme only). */
	attemptId?: string;
	/**
	 * Aborted when this run no longer holds its event: the lease could not be renewed and lapsed, the store refused a
	 * renewal (another delivery took the event), or the run outlived `maxRunMs` (its lease was released, or in a queue
	 * worker its job failed into a retry). From then on another run of the same event may overlap this one: stop early
	 * if you can, and keep the effect idempotent (see "Make listeners idempotent"). Never aborted without a lease
	 * (`dedupe: false`).
	 */
	readonly signal: AbortSignal;
}

/** The context of one run; its `signal` is only made when a listener reads it. */
export class RunContext implements DeliveryContext {
	readonly scheme: SignatureScheme;
	readonly attemptId?: string;
	#controller: AbortController | undefined;
	#aborted = false;
	#reason: unknown;

	constructor(scheme: SignatureScheme, attemptId?: string) {
		this.scheme = scheme;
		if (attemptId !== undefined) this.attemptId = attemptId;
	}

	get signal(): AbortSignal {
		if (!this.#controller) {
			this.#controller = new AbortController();
			if (this.#aborted) this.#controller.abort(this.#reason);
		}
		return this.#controller.signal;
	}

	get aborted(): boolean {
		return this.#aborted;
	}

	abort(reason: Error): void {
		if (this.#aborted) return;
		this.#aborted = true;
		this.#reason = reason;
		this.#controller?.abort(reason);
	}
}

/** Why a run's signal was aborted, or why its completion was refused: it no longer held its event's lease. */
export class LeaseLostError extends Error {
	override readonly name = 'LeaseLostError';
}

export type EventHandler<E> = (event: E, context: DeliveryContext) => unknown;
/**
 * Receives a listener's error with its event; and a refused delivery's {@link DeliveryError} that carries a
 * `diagnostic` (clocks apart, a re-serialized body), with no event.
 */
export type ErrorHandler = (error: unknown, event: DeliveryEvent | undefined) => unknown;

/** Called once when a run is over: `failed` when a listener threw or rejected (`error` is the first such error). */
export type RunDone = (failed: boolean, error: unknown) => void;

const NO_LISTENERS: readonly EventHandler<never>[] = [];

/** One event's way through its listeners: those registered when it started, typed ones first. */
interface ListenerRun {
	event: DeliveryEvent;
	context: DeliveryContext;
	typed: EventHandler<DeliveryEvent>[];
	typedCount: number;
	total: number;
	failed: boolean;
	error: unknown;
	done: RunDone;
}

/** The listeners of a receiver or a queue worker: by kind, for any kind, and for their errors. */
export class Listeners {
	readonly #handlers = new Map<string, EventHandler<never>[]>();
	readonly #anyHandlers: EventHandler<DeliveryEvent>[] = [];
	readonly #errorHandlers: ErrorHandler[] = [];
	readonly #unverifiedHints = new UnverifiedHintGate();

	/**
	 * `logger`: where the lines go when no error handler is registered (and an error handler's own failure);
	 * `logStackTraces`: a refusal's log line is followed by its stack trace (see ReceiverOptions).
	 */
	constructor(
		readonly logger: ReceiverLogger,
		readonly logStackTraces = false,
	) {}

	on<T extends KnownEventType>(type: T, handler: EventHandler<EventMap[T]>): void {
		if (typeof handler !== 'function') throw new TypeError('handler must be a function');
		const list = this.#handlers.get(type) ?? [];
		list.push(handler as EventHandler<never>);
		this.#handlers.set(type, list);
	}

	onAny(handler: EventHandler<DeliveryEvent>): void {
		if (typeof handler !== 'function') throw new TypeError('handler must be a function');
		this.#anyHandlers.push(handler);
	}

	onError(handler: ErrorHandler): void {
		if (typeof handler !== 'function') throw new TypeError('handler must be a function');
		this.#errorHandlers.push(handler);
	}

	get count(): number {
		let count = this.#anyHandlers.length;
		for (const list of this.#handlers.values()) count += list.length;
		return count;
	}

	/**
	 * Runs the listeners one after the other, waiting for those that return a promise. Every listener runs even when
	 * one before it failed; each error goes to the error handlers; `done` learns whether any failed. Never throws.
	 */
	run(event: DeliveryEvent, context: DeliveryContext, done: RunDone): void {
		const typed = (this.#handlers.get(event.type) ?? NO_LISTENERS) as EventHandler<DeliveryEvent>[];
		const total = typed.length + this.#anyHandlers.length;
		this.#continue(
			{ event, context, typed, typedCount: typed.length, total, failed: false, error: undefined, done },
			0,
		);
	}

	#continue(run: ListenerRun, start: number): void {
		for (let index = start; index < run.total; index += 1) {
			const listener = index < run.typedCount ? run.typed[index] : this.#anyHandlers[index - run.typedCount];
			let result: unknown;
			let pending = false;
			try {
				result = listener(run.event, run.context);
				// Reading `then` may throw too (a proxy, a getter): that is the listener's error as well.
				pending = isThenable(result);
			} catch (error) {
				void this.#failed(run, error).then(() => this.#continue(run, index + 1));
				return;
			}
			if (pending) {
				const next = () => this.#continue(run, index + 1);
				Promise.resolve(result).then(next, (error: unknown) => this.#failed(run, error).then(next));
				return;
			}
		}
		run.done(run.failed, run.error);
	}

	/** An error about an event that is no listener's failure (a lost lease): to every error handler, or the log. */
	reportError(error: unknown, event: DeliveryEvent, code: LogFields['code']): void {
		if (this.#errorHandlers.length === 0) {
			this.logger.error(`${event.type} ${event.id}`, { code, error, eventId: event.id, eventType: event.type });
			return;
		}
		void this.#toErrorHandlers(error, event, `${event.type} ${event.id}`);
	}

	/** A fault outside any event (the queue worker's connection, a job lock BullMQ lost): to every error handler, or the log. */
	reportFault(error: unknown, about: string, code: LogFields['code']): void {
		if (this.#errorHandlers.length === 0) {
			// The error's message only, in the line: these repeat while a connection is down.
			this.logger.error(`${about}: ${error instanceof Error ? error.message : String(error)}`, { code, cause: error });
			return;
		}
		void this.#toErrorHandlers(error, undefined, about);
	}

	/**
	 * A refused delivery whose error carries a diagnostic: to every error handler (no event: none was accepted), or the
	 * log. A diagnostic drawn from an unverified request (anyone can send one) is passed on at most once a minute.
	 */
	reportRefusal(error: DeliveryError, signedEventId: () => string | undefined = () => undefined): void {
		let heldBack = 0;
		if (error.diagnosticUnverified) {
			const passed = this.#unverifiedHints.pass();
			if (passed === undefined) return;
			heldBack = passed;
		}
		if (this.#errorHandlers.length === 0) {
			const eventId = signedEventId();
			this.logger.warn(refusalLine(error, eventId, heldBack, this.logStackTraces), {
				code: 'delivery.refused',
				reason: error.code,
				...(eventId === undefined ? {} : { eventId }),
			});
			return;
		}
		void this.#toErrorHandlers(error, undefined, `a refused delivery (${error.code})`);
	}

	/** Hands `error` to every error handler in turn; a handler's own failure is logged, never thrown. */
	async #toErrorHandlers(error: unknown, event: DeliveryEvent | undefined, about: string): Promise<void> {
		for (const handler of this.#errorHandlers) {
			try {
				await handler(error, event);
			} catch (secondary) {
				this.logger.error(`an onError handler failed for ${about}`, {
					code: 'listener.error_handler_failed',
					error: secondary,
				});
			}
		}
	}

	async #failed(run: ListenerRun, error: unknown): Promise<void> {
		if (!run.failed) {
			run.failed = true;
			run.error = error;
		}
		const { event } = run;
		if (this.#errorHandlers.length === 0) {
			this.logger.error(`a listener failed for ${event.type} ${event.id}`, {
				code: 'listener.failed',
				error,
				eventId: event.id,
				eventType: event.type,
			});
			return;
		}
		await this.#toErrorHandlers(error, event, `${event.type} ${event.id}`);
	}
}
