import type { ServerResponse } from 'node:http';
import {
	DeliveryError,
	readHeaders,
	readNodeHeaders,
	type DeliveryEvent,
	type EventMap,
	type HeaderReader,
	type HeaderSource,
	type KnownEventType,
	type MaybePromise,
	type VerifiedDelivery,
} from '../../nodes/shared/delivery';
import { acceptance, answerToAnything, refusal, refusalOf, type DeliveryAnswer } from './answers';
import { BodyDeadlines, checkRequestLine, readNodeBody, readWebStream } from './body';
import type { BeginOutcome } from './dedupe/store';
import { Dispatcher, type HandleContext } from './dispatch';
import { LeaseKeeper, type Lease } from './leases';
import { Listeners, RunContext, type ErrorHandler, type EventHandler } from './listeners';
import {
	explainReserializedFailure,
	locateRawBody,
	writeNodeAnswer,
	type NodeRequest,
	type NodeRequestHandler,
} from './node';
import { verifyDeliveryNow, type RawBody } from './nodeVerifier';
import type { ReceiverLogger } from './observability/logger';
import { makeInstruments, traceDelivery, type DeliveryTracing, type Instruments } from './observability/telemetry';
import type { ResolvedVerifyOptions } from './options';
import type { DeliveryQueue } from './queue';
import { resolveReceiverOptions, type AcknowledgeMode, type ReceiverOptions } from './receiverOptions';
import { signedEventIdOf } from './refusalLog';
import { isThenable } from './thenable';

/** A delivery already in memory (Fastify with a buffer parser, AWS Lambda, tests). */
export interface IncomingDelivery {
	method?: string;
	headers: HeaderSource;
	body: RawBody;
}

function dedupeUnavailable(cause: unknown): DeliveryError {
	return new DeliveryError('dedupe_unavailable', 'The deduplication store did not answer; retry later', { cause });
}

const NO_CONTEXT: HandleContext = {};

/**
 * The receiver's entry points (web `handle`, framework-neutral `receive`, Node `middleware`) and what the
 * acknowledgement mode makes of a verified delivery. Leases are kept by {@link LeaseKeeper}, listeners run by
 * {@link Dispatcher}.
 */
export class Receiver {
	readonly #verifyOptions: ResolvedVerifyOptions;
	readonly #mode: AcknowledgeMode;
	readonly #queue: DeliveryQueue | undefined;
	/** Absent without a deduplication store (queue mode, `dedupe: false`). */
	readonly #leases: LeaseKeeper | undefined;
	readonly #listenerDeadlineMs: number;
	readonly #bodyTimeoutMs: number;
	readonly #bodyDeadlines: BodyDeadlines;
	readonly #listeners: Listeners;
	readonly #dispatcher: Dispatcher;
	readonly #logger: ReceiverLogger;
	/** Undefined without `@opentelemetry/api`. */
	readonly #instruments: Instruments | undefined;

	constructor(options: ReceiverOptions) {
		const resolved = resolveReceiverOptions(options);
		this.#verifyOptions = resolved.verifyOptions;
		this.#mode = resolved.mode;
		this.#queue = resolved.queue;
		this.#listenerDeadlineMs = resolved.listenerDeadlineMs;
		this.#bodyTimeoutMs = resolved.bodyTimeoutMs;
		this.#bodyDeadlines = new BodyDeadlines(resolved.bodyTimeoutMs);
		this.#logger = resolved.logger;
		this.#instruments = makeInstruments();
		this.#listeners = new Listeners(resolved.logger, resolved.logStackTraces);
		this.#leases = resolved.dedupe
			? new LeaseKeeper(resolved.dedupe, resolved.leaseMs, resolved.maxRunMs, this.#listeners)
			: undefined;
		this.#dispatcher = new Dispatcher(this.#listeners, this.#leases);
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
		const trace = traceDelivery(this.#instruments);
		let answer: DeliveryAnswer;
		try {
			const headers = readHeaders(request.headers);
			checkRequestLine(request.method, headers, this.maxBodyBytes);
			const body = await readWebStream(request.body, this.maxBodyBytes, this.#bodyTimeoutMs);
			answer = await this.#answer(body, headers, context, arrivedAt, trace);
		} catch (error) {
			answer = this.#failed(error, trace);
		}
		return new Response(answer.body, { status: answer.status, headers: answer.headers });
	}

	/**
	 * Framework-neutral: verifies a delivery whose body is already in memory and resolves to the answer to send. The
	 * `afterListeners` deadline counts from this call.
	 */
	async receive(delivery: IncomingDelivery, context: HandleContext = NO_CONTEXT): Promise<DeliveryAnswer> {
		const arrivedAt = Date.now();
		const trace = traceDelivery(this.#instruments);
		try {
			const headers = readHeaders(delivery.headers);
			checkRequestLine(delivery.method, headers, this.maxBodyBytes);
			return await this.#answer(delivery.body, headers, context, arrivedAt, trace);
		} catch (error) {
			return this.#failed(error, trace);
		}
	}

	/** A refusal before verification (the request line, the body), or a fault of the receiver (logged, 500). */
	#failed(error: unknown, trace: DeliveryTracing): DeliveryAnswer {
		const answer = answerToAnything(error, this.#logger);
		if (error instanceof DeliveryError) trace.refused(error.code);
		else trace.end('failed');
		return answer;
	}

	/** Resolves when every listener started so far has finished and its event is recorded (tests, graceful shutdown). */
	idle(): Promise<void> {
		return this.#dispatcher.idle();
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
		const trace = traceDelivery(this.#instruments);
		const source = locateRawBody(req);
		const headers = readNodeHeaders(req.headers);
		try {
			checkRequestLine(req.method, headers, this.maxBodyBytes);
		} catch (error) {
			const answer = refusalOf(error);
			if (answer.error) trace.refused(answer.error.code);
			writeNodeAnswer(res, answer);
			return;
		}
		if (source.kind !== 'stream') {
			const explain = source.kind === 'reserialized' ? explainReserializedFailure : undefined;
			sendNodeAnswer(res, next, this.#answer(source.body, headers, NO_CONTEXT, arrivedAt, trace, explain));
			return;
		}
		readNodeBody(req, this.maxBodyBytes, this.#bodyDeadlines, (error, body) => {
			if (error?.code === 'client_aborted') return trace.refused(error.code);
			try {
				const answer = error ? this.#failed(error, trace) : this.#answer(body, headers, NO_CONTEXT, arrivedAt, trace);
				sendNodeAnswer(res, next, answer);
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
		trace: DeliveryTracing,
		explain?: (error: DeliveryError) => DeliveryError,
	): MaybePromise<DeliveryAnswer> {
		try {
			trace.verifying();
			const verified = verifyDeliveryNow(body, headers, this.#verifyOptions);
			const answer =
				verified instanceof Promise
					? verified.then((delivery) => this.#verified(delivery, context, arrivedAt, trace))
					: this.#verified(verified, context, arrivedAt, trace);
			return answer instanceof Promise
				? answer.catch((error: unknown) => this.#refused(error, headers, trace, explain))
				: answer;
		} catch (error) {
			return this.#refused(error, headers, trace, explain);
		}
	}

	/**
	 * A refusal's answer; its diagnostic, if any, goes to the error handlers (or the log), never into the answer. Any
	 * other error is a fault of the receiver, thrown on.
	 */
	#refused(
		error: unknown,
		headers: HeaderReader,
		trace: DeliveryTracing,
		explain?: (error: DeliveryError) => DeliveryError,
	): DeliveryAnswer {
		if (!(error instanceof DeliveryError)) trace.end('failed');
		const answer = refusalOf(error, explain);
		const refused = answer.error;
		if (refused) trace.refused(refused.code);
		if (refused?.diagnostic !== undefined)
			this.#listeners.reportRefusal(refused, () => signedEventIdOf(refused, headers));
		return answer;
	}

	#verified(
		verified: VerifiedDelivery,
		context: HandleContext,
		arrivedAt: number,
		trace: DeliveryTracing,
	): MaybePromise<DeliveryAnswer> {
		trace.verified(verified.event.id, verified.event.type);
		if (this.#queue) return this.#enqueue(this.#queue, verified, trace);
		const leases = this.#leases;
		if (!leases) return this.#started(verified, undefined, context, arrivedAt, trace);
		const { id } = verified.event;
		const sentAt = Date.now();
		let outcome: BeginOutcome | Promise<BeginOutcome>;
		try {
			outcome = leases.begin(id);
		} catch (error) {
			throw dedupeUnavailable(error);
		}
		const begun = { leases, verified, context, arrivedAt, sentAt, trace };
		if (!isThenable(outcome)) return this.#begun(begun, outcome);
		return Promise.resolve(outcome).then(
			(settled) => this.#begun(begun, settled),
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
		{ leases, verified, context, arrivedAt, sentAt, trace }: Begun,
		outcome: BeginOutcome,
	): MaybePromise<DeliveryAnswer> {
		if (outcome.state === 'acquired') {
			const { event, scheme, attemptId } = verified;
			const run = new RunContext(scheme, attemptId);
			const lease = leases.hold(event, outcome.token, run, sentAt, arrivedAt);
			return this.#started(verified, lease, context, arrivedAt, trace);
		}
		if (outcome.state === 'done') {
			trace.end('duplicate');
			return acceptance(verified.event, true);
		}
		throw new DeliveryError('event_in_progress', 'This event is being processed by another delivery; retry later');
	}

	/** The listeners' turn: after the answer (`onReceipt`) or before it (`afterListeners`). */
	#started(
		verified: VerifiedDelivery,
		lease: Lease | undefined,
		context: HandleContext,
		arrivedAt: number,
		trace: DeliveryTracing,
	): MaybePromise<DeliveryAnswer> {
		this.#dispatcher.started();
		const run = lease?.run ?? new RunContext(verified.scheme, verified.attemptId);
		if (this.#mode === 'afterListeners') return this.#runBeforeAnswer(verified, run, lease, arrivedAt, trace);
		this.#dispatcher.schedule({ verified, run, lease, trace }, context);
		return acceptance(verified.event, false);
	}

	/** The job carries the delivery span's trace context: the worker's span links to it. */
	#enqueue(queue: DeliveryQueue, verified: VerifiedDelivery, trace: DeliveryTracing): Promise<DeliveryAnswer> {
		return queue.enqueue(verified, trace.traceparent()).then(
			() => {
				trace.end('queued');
				return acceptance(verified.event, 'queued');
			},
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
		trace: DeliveryTracing,
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
		trace.runListeners(() =>
			this.#listeners.run(event, run, (failed) => {
				succeeded = !failed;
				trace.listenersEnded(failed);
				this.#dispatcher.finish(lease, failed, () =>
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
			}),
		);
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
}

/** A delivery waiting for the store's answer to `begin`. */
interface Begun {
	leases: LeaseKeeper;
	verified: VerifiedDelivery;
	context: HandleContext;
	arrivedAt: number;
	sentAt: number;
	trace: DeliveryTracing;
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

/** Creates a receiver: verify, validate, deduplicate and re-emit signed deliveries. */
export function createReceiver(options: ReceiverOptions): Receiver {
	return new Receiver(options);
}
