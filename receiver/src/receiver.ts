import type { ServerResponse } from 'node:http';
import { BodyDeadlines, checkRequestLine, DEFAULT_BODY_TIMEOUT_MS, readNodeBody, readWebStream } from './body';
import { memoryDedupeStore } from './dedupe/memory';
import { DEFAULT_LEASE_MS, isDedupeStore, type BeginOutcome, type DedupeStore } from './dedupe/store';
import { HeldList, type HeldLinks } from './heldList';
import { LeaseLostError, Listeners, RunContext, type ErrorHandler, type EventHandler } from './listeners';
import type { DeliveryQueue } from './queue';
import {
	DeliveryError,
	readHeaders,
	readNodeHeaders,
	type DeliveryEvent,
	type EventMap,
	type HeaderReader,
	type HeaderSource,
	type KnownEventType,
} from '../../nodes/shared/delivery';
import { signedEventIdOf } from './refusalLog';
import {
	explainReserializedFailure,
	locateRawBody,
	writeNodeAnswer,
	type NodeRequest,
	type NodeRequestHandler,
} from './node';
import { nodeCrypto } from '../../nodes/shared/delivery/nodeCrypto';
import { positiveNumber, resolveVerifyOptions, type ResolvedVerifyOptions, type VerifyOptions } from './options';
import { verifyDeliveryNow, type MaybePromise, type RawBody, type VerifiedDelivery } from './nodeVerifier';

export type AcknowledgeMode = 'onReceipt' | 'afterListeners' | 'queue';

export interface ReceiverOptions extends VerifyOptions {
	/**
	 * When the sender gets its 2xx. `afterListeners` (default): once the listeners have succeeded, within
	 * `listenerDeadlineMs`; a failure or a timeout answers 5xx and the sender retries (at least once). `onReceipt`: as
	 * soon as the delivery is verified, listeners run afterwards (at most once). `queue`: once the event is durably
	 * enqueued in `queue`; queue workers run the listeners with retries (at least once).
	 */
	acknowledge?: AcknowledgeMode;
	/** The processing state of event ids: a store, or `false` to run duplicates again. Default: in memory. */
	dedupe?: DedupeStore | false;
	/** With `acknowledge: 'queue'`: where verified events go (`deliveryQueue(...)`). */
	queue?: DeliveryQueue;
	/**
	 * `afterListeners`: longest time from the request's arrival (before its body is read) to the answer; listeners
	 * still running then get 503 (default 8000 ms, below the sender's 10 s).
	 */
	listenerDeadlineMs?: number;
	/** How long an event's lease lasts unless renewed (default 30 000 ms); renewed every third of it while listeners run. */
	leaseMs?: number;
	/**
	 * Longest time, from the request's arrival, that a run keeps its event's lease: then the lease is released (the
	 * event's next delivery runs it again), the listeners' `signal` is aborted and a line is logged. Checked every
	 * third of `leaseMs`. Default: `listenerDeadlineMs + leaseMs` with `afterListeners` (38 s), 5 minutes with
	 * `onReceipt`.
	 */
	maxRunMs?: number;
	/** Longest time a request body may take to arrive (default 10 000 ms); then 408, within a tenth of it more. */
	bodyTimeoutMs?: number;
	/**
	 * Debugging aid: the receiver's own log line for a refused delivery (printed when no `onError` handler is
	 * registered) is followed by the refusal's stack trace. Default false: one line per refusal, its reason and the
	 * signed event id when the signature matched.
	 */
	logStackTraces?: boolean;
}

export type { DeliveryContext, EventHandler, ErrorHandler } from './listeners';

/** A delivery already in memory (Fastify with a buffer parser, AWS Lambda, tests). */
export interface IncomingDelivery {
	method?: string;
	headers: HeaderSource;
	body: RawBody;
}

/** The answer to give the sender. */
export interface DeliveryAnswer {
	status: number;
	headers: Record<string, string>;
	body: string;
	/** Set when the delivery was verified (also for duplicates). */
	event?: DeliveryEvent;
	duplicate?: boolean;
	/** Set when the delivery was refused. */
	error?: DeliveryError;
}

/** Lets serverless platforms keep running the listeners after the answer (`waitUntil`, Next.js `after`). */
export interface HandleContext {
	waitUntil?(promise: Promise<unknown>): void;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const CLOSING_CODES = new Set(['body_too_large', 'body_timeout']);

export const DEFAULT_LISTENER_DEADLINE_MS = 8000;

function refusal(error: DeliveryError): DeliveryAnswer {
	const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
	if (error.code === 'method_not_allowed') headers.allow = 'POST';
	if (CLOSING_CODES.has(error.code)) headers.connection = 'close';
	return { status: error.status, headers, body: JSON.stringify({ code: error.code, error: error.message }), error };
}

/** Ids that JSON writes as they are, between quotes (the service's `evt_...` ids). */
const PLAIN_ID = /^[\w.:-]*$/;

/** The answer to a verified delivery: `{ received: true, id, duplicate }`, or `{ received: true, id, queued: true }`. */
function acceptance(event: DeliveryEvent, duplicate: boolean | 'queued'): DeliveryAnswer {
	const id = PLAIN_ID.test(event.id) ? `"${event.id}"` : JSON.stringify(event.id);
	return {
		status: 200,
		headers: { 'content-type': JSON_CONTENT_TYPE },
		body:
			duplicate === 'queued'
				? `{"received":true,"id":${id},"queued":true}`
				: `{"received":true,"id":${id},"duplicate":${duplicate}}`,
		event,
		duplicate: duplicate === 'queued' ? undefined : duplicate,
	};
}

/** The answer to a refused delivery; an error that is not a refusal propagates. */
function refusalOf(error: unknown, explain?: (error: DeliveryError) => DeliveryError): DeliveryAnswer {
	const refused = asDeliveryError(error);
	return refusal(explain ? explain(refused) : refused);
}

/** The answer to anything: a refusal, or a fault of the receiver (logged, answered 500 so that the sender retries). */
function answerToAnything(error: unknown): DeliveryAnswer {
	if (error instanceof DeliveryError) return refusal(error);
	console.error('[receiver] a delivery could not be handled:', error);
	return refusal(new DeliveryError('internal_error', 'The receiver failed; retry later'));
}

function dedupeUnavailable(cause: unknown): DeliveryError {
	return new DeliveryError('dedupe_unavailable', 'The deduplication store did not answer; retry later', { cause });
}

/** An event whose lease this receiver holds while its listeners run. */
interface Lease extends HeldLinks<Lease> {
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

/** A verified delivery waiting for its listeners (`onReceipt`), and what to tell a serverless platform when they are done. */
interface Dispatch {
	verified: VerifiedDelivery;
	run: RunContext;
	lease: Lease | undefined;
	finished?: () => void;
}

/** `onReceipt`: how long a run keeps its lease by default. */
export const DEFAULT_MAX_RUN_MS = 5 * 60_000;

const NO_CONTEXT: HandleContext = {};
const NOTHING = () => undefined;

export class Receiver {
	readonly #verifyOptions: ResolvedVerifyOptions;
	readonly #mode: AcknowledgeMode;
	readonly #dedupe: DedupeStore | undefined;
	readonly #queue: DeliveryQueue | undefined;
	readonly #listenerDeadlineMs: number;
	readonly #leaseMs: number;
	readonly #maxRunMs: number;
	readonly #bodyTimeoutMs: number;
	readonly #bodyDeadlines: BodyDeadlines;
	readonly #listeners: Listeners;
	/** Deliveries whose listeners are scheduled or running, and who waits for that number to reach zero. */
	#pendingDispatches = 0;
	#idleWaiters: (() => void)[] = [];
	/** Accepted deliveries whose listeners start at the next `setImmediate`. */
	#queued: Dispatch[] = [];
	/** Leases held, renewed together every third of `leaseMs` while any is held. */
	readonly #leases = new HeldList<Lease>();
	#renewTimer: NodeJS.Timeout | undefined;

	constructor(options: ReceiverOptions) {
		this.#verifyOptions = resolveVerifyOptions(options, nodeCrypto);
		const mode = options.acknowledge ?? 'afterListeners';
		if (mode !== 'onReceipt' && mode !== 'afterListeners' && mode !== 'queue') {
			throw new TypeError(`acknowledge must be 'onReceipt', 'afterListeners' or 'queue', not ${JSON.stringify(mode)}`);
		}
		this.#mode = mode;
		if (mode === 'queue') {
			if (typeof options.queue?.enqueue !== 'function')
				throw new TypeError("acknowledge: 'queue' needs queue: deliveryQueue({ ... })");
			this.#queue = options.queue;
		} else if (options.queue !== undefined) {
			throw new TypeError("queue is only used with acknowledge: 'queue'");
		}
		if (options.dedupe !== undefined && options.dedupe !== false && !isDedupeStore(options.dedupe)) {
			throw new TypeError('dedupe must be a store with begin, renew, complete and release methods, or false');
		}
		// In queue mode the queue's job ids deduplicate.
		this.#dedupe = mode === 'queue' || options.dedupe === false ? undefined : (options.dedupe ?? memoryDedupeStore());
		this.#listenerDeadlineMs = positiveNumber(
			options.listenerDeadlineMs,
			DEFAULT_LISTENER_DEADLINE_MS,
			'listenerDeadlineMs',
		);
		this.#leaseMs = positiveNumber(options.leaseMs, DEFAULT_LEASE_MS, 'leaseMs');
		const defaultMaxRunMs = mode === 'afterListeners' ? this.#listenerDeadlineMs + this.#leaseMs : DEFAULT_MAX_RUN_MS;
		this.#maxRunMs = positiveNumber(options.maxRunMs, defaultMaxRunMs, 'maxRunMs');
		this.#bodyTimeoutMs = positiveNumber(options.bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS, 'bodyTimeoutMs');
		this.#bodyDeadlines = new BodyDeadlines(this.#bodyTimeoutMs);
		this.#listeners = new Listeners(options.logStackTraces === true);
	}

	get maxBodyBytes(): number {
		return this.#verifyOptions.maxBodyBytes;
	}

	get acknowledge(): AcknowledgeMode {
		return this.#mode;
	}

	#assertListenersRunHere(): void {
		if (this.#mode === 'queue') {
			throw new TypeError(
				"With acknowledge: 'queue' the listeners run in queue workers: register them on createQueueWorker(...)",
			);
		}
	}

	/** Runs `handler` for each accepted event of one known kind, with its typed data. */
	on<T extends KnownEventType>(type: T, handler: EventHandler<EventMap[T]>): this {
		this.#assertListenersRunHere();
		this.#listeners.on(type, handler);
		return this;
	}

	/** Runs `handler` for every accepted event, including kinds this version does not know. */
	onAny(handler: EventHandler<DeliveryEvent>): this {
		this.#assertListenersRunHere();
		this.#listeners.onAny(handler);
		return this;
	}

	/** Receives the errors thrown by listeners (also when they make the answer a 5xx). */
	onError(handler: ErrorHandler): this {
		this.#listeners.onError(handler);
		return this;
	}

	/**
	 * Web-standard handler: Node 24, Hono, Next.js route handlers, Deno, Bun, Cloudflare Workers. Always resolves to
	 * an answer (a client that went away gets one nobody reads; a fault of the receiver is logged and answered 500).
	 */
	async handle(request: Request, context: HandleContext = NO_CONTEXT): Promise<Response> {
		const arrivedAt = Date.now();
		let answer: DeliveryAnswer;
		try {
			const headers = readHeaders(request.headers);
			checkRequestLine(request.method, headers, this.maxBodyBytes);
			const body = await readWebStream(request.body, this.maxBodyBytes, this.#bodyTimeoutMs);
			answer = await this.#answer(body, headers, context, arrivedAt);
		} catch (error) {
			answer = answerToAnything(error);
		}
		return new Response(answer.body, { status: answer.status, headers: answer.headers });
	}

	/**
	 * Framework-neutral: verifies a delivery whose body is already in memory and resolves to the answer to send. The
	 * `afterListeners` deadline counts from this call.
	 */
	async receive(delivery: IncomingDelivery, context: HandleContext = NO_CONTEXT): Promise<DeliveryAnswer> {
		const arrivedAt = Date.now();
		try {
			const headers = readHeaders(delivery.headers);
			checkRequestLine(delivery.method, headers, this.maxBodyBytes);
			return await this.#answer(delivery.body, headers, context, arrivedAt);
		} catch (error) {
			return answerToAnything(error);
		}
	}

	/** Resolves when every listener started so far has finished and its event is recorded (tests, graceful shutdown). */
	idle(): Promise<void> {
		if (this.#pendingDispatches === 0) return Promise.resolve();
		return new Promise((resolve) => this.#idleWaiters.push(resolve));
	}

	/**
	 * Express 4/5 (and Connect, `node:http`) handler. Mount it on the hook route, ideally before any body parser:
	 * `app.post('/hooks', receiver.middleware())`. It answers every request itself; a client that goes away mid-body
	 * is let go quietly.
	 */
	middleware(): NodeRequestHandler {
		return (req, res, next) => {
			try {
				this.#handleNode(req, res, next);
			} catch (error) {
				failNode(res, next, error);
			}
		};
	}

	/** Answers in the same turn as the body's last chunk whenever verification and deduplication need no I/O. */
	#handleNode(req: NodeRequest, res: ServerResponse, next: NodeNext | undefined): void {
		const arrivedAt = Date.now();
		const source = locateRawBody(req);
		const headers = readNodeHeaders(req.headers);
		try {
			checkRequestLine(req.method, headers, this.maxBodyBytes);
		} catch (error) {
			writeNodeAnswer(res, refusalOf(error));
			return;
		}
		if (source.kind !== 'stream') {
			const explain = source.kind === 'reserialized' ? explainReserializedFailure : undefined;
			sendNodeAnswer(res, next, this.#answer(source.body, headers, NO_CONTEXT, arrivedAt, explain));
			return;
		}
		readNodeBody(req, this.maxBodyBytes, this.#bodyDeadlines, (error, body) => {
			if (error?.code === 'client_aborted') return;
			try {
				sendNodeAnswer(res, next, error ? refusal(error) : this.#answer(body!, headers, NO_CONTEXT, arrivedAt));
			} catch (fault) {
				failNode(res, next, fault);
			}
		});
	}

	/**
	 * Verifies a delivery and processes it by the acknowledgement mode; the answer comes at once when nothing needs
	 * I/O. Refusals become answers; other errors (a fault of the receiver) are thrown or rejected.
	 */
	#answer(
		body: RawBody,
		headers: HeaderReader,
		context: HandleContext,
		arrivedAt: number,
		explain?: (error: DeliveryError) => DeliveryError,
	): MaybePromise<DeliveryAnswer> {
		try {
			const verified = verifyDeliveryNow(body, headers, this.#verifyOptions);
			const answer =
				verified instanceof Promise
					? verified.then((delivery) => this.#process(delivery, context, arrivedAt))
					: this.#process(verified, context, arrivedAt);
			return answer instanceof Promise
				? answer.catch((error: unknown) => this.#refused(error, headers, explain))
				: answer;
		} catch (error) {
			return this.#refused(error, headers, explain);
		}
	}

	/** A refusal's answer; its diagnostic, if any, goes to the error handlers (or the log), never into the answer. */
	#refused(error: unknown, headers: HeaderReader, explain?: (error: DeliveryError) => DeliveryError): DeliveryAnswer {
		const answer = refusalOf(error, explain);
		if (answer.error?.diagnostic !== undefined)
			this.#listeners.reportRefusal(answer.error, () => signedEventIdOf(answer.error!, headers));
		return answer;
	}

	#process(verified: VerifiedDelivery, context: HandleContext, arrivedAt: number): MaybePromise<DeliveryAnswer> {
		if (this.#queue) return this.#enqueue(this.#queue, verified);
		if (!this.#dedupe) return this.#started(verified, undefined, context, arrivedAt);
		const { id } = verified.event;
		const sentAt = Date.now();
		let outcome: BeginOutcome | Promise<BeginOutcome>;
		try {
			outcome = this.#dedupe.begin(id, this.#leaseMs);
		} catch (error) {
			throw dedupeUnavailable(error);
		}
		if (!isThenable(outcome)) return this.#begun(verified, outcome, context, arrivedAt, sentAt);
		return Promise.resolve(outcome).then(
			(settled) => this.#begun(verified, settled, context, arrivedAt, sentAt),
			(error: unknown) => {
				throw dedupeUnavailable(error);
			},
		);
	}

	/**
	 * Only a done event is a duplicate. One in progress (another delivery holds its lease, or a lease nobody holds any
	 * more has not lapsed yet) is answered 503 in every mode: its run may still fail, or may never have started, and
	 * a 200 would end the sender's retries.
	 */
	#begun(
		verified: VerifiedDelivery,
		outcome: BeginOutcome,
		context: HandleContext,
		arrivedAt: number,
		sentAt: number,
	): MaybePromise<DeliveryAnswer> {
		if (outcome.state === 'acquired') {
			const { event, scheme, attemptId } = verified;
			const lease: Lease = {
				event,
				token: outcome.token,
				run: new RunContext(scheme, attemptId),
				expiresAt: sentAt + this.#leaseMs,
				renewUntil: arrivedAt + this.#maxRunMs,
				lost: false,
				previous: undefined,
				next: undefined,
				held: false,
			};
			return this.#started(verified, lease, context, arrivedAt);
		}
		if (outcome.state === 'done') return acceptance(verified.event, true);
		throw new DeliveryError('event_in_progress', 'This event is being processed by another delivery; retry later');
	}

	/** The listeners' turn: after the answer (`onReceipt`) or before it (`afterListeners`). */
	#started(
		verified: VerifiedDelivery,
		lease: Lease | undefined,
		context: HandleContext,
		arrivedAt: number,
	): MaybePromise<DeliveryAnswer> {
		if (lease) this.#hold(lease);
		this.#pendingDispatches += 1;
		const run = lease?.run ?? new RunContext(verified.scheme, verified.attemptId);
		if (this.#mode === 'afterListeners') return this.#runBeforeAnswer(verified, run, lease, arrivedAt);
		this.#schedule({ verified, run, lease }, context);
		return acceptance(verified.event, false);
	}

	#enqueue(queue: DeliveryQueue, verified: VerifiedDelivery): Promise<DeliveryAnswer> {
		return queue.enqueue(verified).then(
			() => acceptance(verified.event, 'queued'),
			(error: unknown) => {
				throw new DeliveryError('queue_unavailable', 'The event could not be enqueued; retry later', { cause: error });
			},
		);
	}

	/**
	 * `afterListeners`: 200 once the listeners succeeded and the store was asked to record the event as done (it has
	 * answered, failed, or the deadline came first: the listeners' effect is applied either way, and a 5xx would make
	 * the sender run them again); 5xx when a listener failed or the listeners were still running at the deadline,
	 * which counts from the request's arrival. Listeners that finish at once, with a store that answers at once, are
	 * answered in the same turn (no timer, no promise).
	 */
	#runBeforeAnswer(
		verified: VerifiedDelivery,
		run: RunContext,
		lease: Lease | undefined,
		arrivedAt: number,
	): MaybePromise<DeliveryAnswer> {
		const { event } = verified;
		let succeeded = false;
		let answer: DeliveryAnswer | undefined;
		let answerLater: ((answer: DeliveryAnswer) => void) | undefined;
		let deadline: NodeJS.Timeout | undefined;
		const give = (settled: DeliveryAnswer) => {
			if (answer) return;
			answer = settled;
			clearTimeout(deadline);
			answerLater?.(settled);
		};
		this.#listeners.run(event, run, (failed) => {
			succeeded = !failed;
			this.#finish(lease, failed, () =>
				give(
					failed
						? refusal(
								new DeliveryError(
									'listener_failed',
									'A listener failed; the event was not recorded as done, retry later',
								),
							)
						: acceptance(event, false),
				),
			);
		});
		if (answer) return answer;
		return new Promise((resolve) => {
			answerLater = resolve;
			deadline = setTimeout(
				() =>
					give(
						succeeded
							? acceptance(event, false)
							: refusal(
									new DeliveryError(
										'listener_timeout',
										`The listeners did not finish within ${this.#listenerDeadlineMs} ms; the event is recorded as done only if they succeed, retry later`,
									),
								),
					),
				Math.max(0, arrivedAt + this.#listenerDeadlineMs - Date.now()),
			);
		});
	}

	/**
	 * `onReceipt`: starts the listeners on a later turn of the event loop, after the answer has been produced.
	 * Deliveries accepted in the same turn share one `setImmediate`.
	 */
	#schedule(dispatch: Dispatch, context: HandleContext): void {
		this.#queued.push(dispatch);
		if (this.#queued.length === 1) setImmediate(this.#startQueued);
		if (!context.waitUntil) return;
		// The event is leased already: a platform hook that fails must not keep the listeners from running.
		try {
			context.waitUntil(new Promise<void>((resolve) => (dispatch.finished = resolve)));
		} catch (error) {
			const { event } = dispatch.verified;
			console.error(`[receiver] waitUntil failed for ${event.type} ${event.id}; the listeners run anyway:`, error);
		}
	}

	readonly #startQueued = () => {
		const batch = this.#queued;
		this.#queued = [];
		for (const dispatch of batch) this.#dispatch(dispatch);
	};

	#dispatch(dispatch: Dispatch): void {
		// `finished` is known by now: #schedule set it in the turn that accepted the delivery.
		const finished = dispatch.finished ?? NOTHING;
		this.#listeners.run(dispatch.verified.event, dispatch.run, (failed) =>
			this.#finish(dispatch.lease, failed, finished),
		);
	}

	/**
	 * Ends a run: the event is recorded as done when the listeners succeeded, its lease released when one failed (its
	 * next delivery is processed again). A store that fails here is logged: the lease then expires by itself. A
	 * completion the store refuses (another delivery held or completed the event: this run's lease was lost) goes to
	 * the error handlers as a {@link LeaseLostError}: the listeners may have run twice.
	 */
	#finish(lease: Lease | undefined, failed: boolean, then: () => void): void {
		if (!lease || !this.#dedupe) return this.#ended(then);
		this.#unhold(lease);
		const eventId = lease.event.id;
		let result: unknown;
		try {
			result = failed ? this.#dedupe.release(eventId, lease.token) : this.#dedupe.complete(eventId, lease.token);
		} catch (error) {
			this.#recordFailed(lease, failed, error, then);
			return;
		}
		// Closures only for a store that answers later: most deliveries end here in the same turn.
		if (isThenable(result)) {
			Promise.resolve(result).then(
				(recorded) => this.#recorded(lease, failed, recorded, then),
				(error: unknown) => this.#recordFailed(lease, failed, error, then),
			);
		} else {
			this.#recorded(lease, failed, result, then);
		}
	}

	/** The store answered `release` or `complete`; a completion it refused means this run's lease was lost. */
	#recorded(lease: Lease, failed: boolean, recorded: unknown, then: () => void): void {
		if (!failed && recorded === false) {
			const { event } = lease;
			const message = `the lease on ${event.type} ${event.id} was lost while its listeners ran, and another delivery held or completed the event: its listeners may have run twice (not recorded as done by this run)`;
			this.#listeners.reportError(new LeaseLostError(message), event);
		}
		this.#ended(then);
	}

	#recordFailed(lease: Lease, failed: boolean, error: unknown, then: () => void): void {
		console.error(
			`[receiver] could not ${failed ? 'release' : 'record as done'} event ${lease.event.id}; its lease expires by itself:`,
			error,
		);
		this.#ended(then);
	}

	/** A run is over: one dispatch fewer; `idle()` resolves at zero. */
	#ended(then: () => void): void {
		this.#pendingDispatches -= 1;
		if (this.#pendingDispatches === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
		then();
	}

	#hold(lease: Lease): void {
		this.#leases.add(lease);
		if (this.#renewTimer === undefined) {
			this.#renewTimer = setInterval(this.#renewAll, Math.max(1, Math.floor(this.#leaseMs / 3)));
			this.#renewTimer.unref();
		}
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
	#lose(lease: Lease, why: string): void {
		if (lease.lost) return;
		lease.lost = true;
		this.#unhold(lease);
		const { event } = lease;
		const message = `[receiver] ${why}: another delivery of ${event.type} ${event.id} may run it meanwhile; the listeners' signal is aborted`;
		console.warn(message);
		lease.run.abort(new LeaseLostError(message.slice('[receiver] '.length)));
	}

	/** A renewal failed (the store did not answer): the lease may still be live; it is lost once its time is up. */
	#renewFailed(lease: Lease, error: unknown): void {
		if (lease.lost || lease.lapseTimer !== undefined) return;
		const { event } = lease;
		console.warn(
			`[receiver] could not renew the lease on event ${event.id} (it lapses in ${Math.max(0, lease.expiresAt - Date.now())} ms unless a renewal succeeds):`,
			error,
		);
		const check = () => {
			lease.lapseTimer = undefined;
			if (lease.lost || !this.#leases.has(lease) || Date.now() < lease.expiresAt) return;
			this.#lose(lease, `the lease on event ${event.id} lapsed (no renewal succeeded)`);
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
		);
		this.#release(lease, 'at maxRunMs');
	}

	/** Gives back a lease this run no longer holds; when the store does not answer, the lease expires by itself. */
	#release(lease: Lease, when: string): void {
		const { event, token } = lease;
		const report = (error: unknown) =>
			console.error(`[receiver] could not release event ${event.id} ${when}; its lease expires by itself:`, error);
		try {
			const released = this.#dedupe!.release(event.id, token);
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
		const store = this.#dedupe!;
		const now = Date.now();
		// A copy: a renewal that the store answers at once may lose its lease, and an overrun releases one.
		for (const lease of [...this.#leases]) {
			if (!lease.held) continue;
			if (now >= lease.renewUntil) {
				this.#overrun(lease);
				continue;
			}
			const renewed = (ok: unknown) => {
				if (lease.lost) return;
				if (ok) lease.expiresAt = Math.max(lease.expiresAt, now + this.#leaseMs);
				else
					this.#lose(
						lease,
						`the store refused to renew the lease on event ${lease.event.id} (it lapsed, or another delivery took it)`,
					);
			};
			const failed = (error: unknown) => this.#renewFailed(lease, error);
			try {
				const result = store.renew(lease.event.id, lease.token, this.#leaseMs);
				if (isThenable(result)) Promise.resolve(result).then(renewed, failed);
				else renewed(result);
			} catch (error) {
				failed(error);
			}
		}
	};
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
	return (
		(typeof value === 'object' || typeof value === 'function') &&
		value !== null &&
		typeof (value as PromiseLike<unknown>).then === 'function'
	);
}

type NodeNext = (error?: unknown) => void;

/** A fault of the receiver or the connection: Express's error handling, or the connection is dropped. */
function failNode(res: ServerResponse, next: NodeNext | undefined, error: unknown): void {
	if (next) next(error);
	else res.destroy(error as Error);
}

function sendNodeAnswer(res: ServerResponse, next: NodeNext | undefined, answer: MaybePromise<DeliveryAnswer>): void {
	if (answer instanceof Promise)
		answer.then((settled) => writeNodeAnswer(res, settled)).catch((error: unknown) => failNode(res, next, error));
	else writeNodeAnswer(res, answer);
}

/** Refusals become answers; anything else is a fault of the receiver or the connection and propagates. */
function asDeliveryError(error: unknown): DeliveryError {
	if (error instanceof DeliveryError) return error;
	throw error;
}

/** Creates a receiver: verify, validate, deduplicate and re-emit signed deliveries. */
export function createReceiver(options: ReceiverOptions): Receiver {
	return new Receiver(options);
}
