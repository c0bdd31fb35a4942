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

	constructor(options: ReceiverOptions) {
		const resolved = resolveReceiverOptions(options);
		this.#verifyOptions = resolved.verifyOptions;
		this.#mode = resolved.mode;
		this.#queue = resolved.queue;
		this.#listenerDeadlineMs = resolved.listenerDeadlineMs;
		this.#bodyTimeoutMs = resolved.bodyTimeoutMs;
		this.#bodyDeadlines = new BodyDeadlines(resolved.bodyTimeoutMs);
		this.#listeners = new Listeners(resolved.logStackTraces);
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
				sendNodeAnswer(res, next, error ? refusal(error) : this.#answer(body, headers, NO_CONTEXT, arrivedAt));
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
		const refused = answer.error;
		if (refused?.diagnostic !== undefined)
			this.#listeners.reportRefusal(refused, () => signedEventIdOf(refused, headers));
		return answer;
	}

	#process(verified: VerifiedDelivery, context: HandleContext, arrivedAt: number): MaybePromise<DeliveryAnswer> {
		if (this.#queue) return this.#enqueue(this.#queue, verified);
		const leases = this.#leases;
		if (!leases) return this.#started(verified, undefined, context, arrivedAt);
		const { id } = verified.event;
		const sentAt = Date.now();
		let outcome: BeginOutcome | Promise<BeginOutcome>;
		try {
			outcome = leases.begin(id);
		} catch (error) {
			throw dedupeUnavailable(error);
		}
		if (!isThenable(outcome)) return this.#begun(leases, verified, outcome, context, arrivedAt, sentAt);
		return Promise.resolve(outcome).then(
			(settled) => this.#begun(leases, verified, settled, context, arrivedAt, sentAt),
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
		leases: LeaseKeeper,
		verified: VerifiedDelivery,
		outcome: BeginOutcome,
		context: HandleContext,
		arrivedAt: number,
		sentAt: number,
	): MaybePromise<DeliveryAnswer> {
		if (outcome.state === 'acquired') {
			const { event, scheme, attemptId } = verified;
			const run = new RunContext(scheme, attemptId);
			const lease = leases.hold(event, outcome.token, run, sentAt, arrivedAt);
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
		this.#dispatcher.started();
		const run = lease?.run ?? new RunContext(verified.scheme, verified.attemptId);
		if (this.#mode === 'afterListeners') return this.#runBeforeAnswer(verified, run, lease, arrivedAt);
		this.#dispatcher.schedule(verified, run, lease, context);
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
