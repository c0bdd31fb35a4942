import type { ServerResponse } from 'node:http';
import { assertDeclaredLength, readNodeBody, readWebStream } from './body';
import { memoryDedupeStore } from './dedupe/memory';
import type { DedupeStore } from './dedupe/store';
import { DeliveryError } from './errors';
import type { DeliveryEvent, EventMap, KnownEventType } from './events';
import { readHeaders, type HeaderReader, type HeaderSource } from './headers';
import { explainReserializedFailure, locateRawBody, writeNodeAnswer, type NodeRequest, type NodeRequestHandler } from './node';
import { resolveVerifyOptions, type ResolvedVerifyOptions, type SignatureScheme, type VerifyOptions } from './options';
import { verifyDeliveryNow, type MaybePromise, type RawBody, type VerifiedDelivery } from './verify';

export interface ReceiverOptions extends VerifyOptions {
  /** Where accepted event ids are remembered: a store, or `false` to emit duplicates. Default: in memory. */
  dedupe?: DedupeStore | false;
}

/** What a listener learns besides the event. */
export interface DeliveryContext {
  scheme: SignatureScheme;
  /** JWT `jti` of this delivery attempt (JWT scheme only). */
  attemptId?: string;
}

export type EventHandler<E> = (event: E, context: DeliveryContext) => unknown;
export type ErrorHandler = (error: unknown, event: DeliveryEvent) => unknown;

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
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Checks that need no body: method, media type, declared length. */
function checkRequestLine(method: string | undefined, headers: HeaderReader, maxBodyBytes: number): void {
  if (method !== undefined && method.toUpperCase() !== 'POST') {
    throw new DeliveryError('method_not_allowed', `Deliveries are POST requests, not ${method}`);
  }
  const contentType = headers.get('content-type');
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new DeliveryError('unsupported_media_type', 'Deliveries are sent with Content-Type: application/json');
  }
  assertDeclaredLength(headers.get('content-length'), maxBodyBytes);
}

function refusal(error: DeliveryError): DeliveryAnswer {
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  if (error.code === 'method_not_allowed') headers.allow = 'POST';
  if (error.code === 'body_too_large') headers.connection = 'close';
  return { status: error.status, headers, body: JSON.stringify({ code: error.code, error: error.message }), error };
}

/** Ids that JSON writes as they are, between quotes (the service's `evt_...` ids). */
const PLAIN_ID = /^[\w.:-]*$/;

/** The answer to a verified delivery: `{ received: true, id, duplicate }`. */
function acceptance(event: DeliveryEvent, duplicate: boolean): DeliveryAnswer {
  return {
    status: 200,
    headers: { 'content-type': JSON_CONTENT_TYPE },
    body: `{"received":true,"id":${PLAIN_ID.test(event.id) ? `"${event.id}"` : JSON.stringify(event.id)},"duplicate":${duplicate}}`,
    event,
    duplicate,
  };
}

/** The answer to a refused delivery; an error that is not a refusal propagates. */
function refusalOf(error: unknown, explain?: (error: DeliveryError) => DeliveryError): DeliveryAnswer {
  const refused = asDeliveryError(error);
  return refusal(explain ? explain(refused) : refused);
}

function dedupeUnavailable(cause: unknown): DeliveryError {
  return new DeliveryError('dedupe_unavailable', 'The deduplication store did not answer; retry later', { cause });
}

/** A verified delivery waiting for its listeners, and what to tell a serverless platform when they are done. */
interface Dispatch {
  verified: VerifiedDelivery;
  finished?: () => void;
}

const NO_CONTEXT: HandleContext = {};
const NO_LISTENERS: readonly EventHandler<never>[] = [];

/** One delivery's way through its listeners: those registered when it was dispatched, typed ones first. */
interface ListenerRun {
  event: DeliveryEvent;
  context: DeliveryContext;
  typed: EventHandler<DeliveryEvent>[];
  typedCount: number;
  total: number;
  finished?: () => void;
}

export class Receiver {
  readonly #verifyOptions: ResolvedVerifyOptions;
  readonly #dedupe: DedupeStore | undefined;
  readonly #handlers = new Map<string, EventHandler<never>[]>();
  readonly #anyHandlers: EventHandler<DeliveryEvent>[] = [];
  readonly #errorHandlers: ErrorHandler[] = [];
  /** Deliveries whose listeners are scheduled or running, and who waits for that number to reach zero. */
  #pendingDispatches = 0;
  #idleWaiters: (() => void)[] = [];
  /** Accepted deliveries whose listeners start at the next `setImmediate`. */
  #queued: Dispatch[] = [];

  constructor(options: ReceiverOptions) {
    this.#verifyOptions = resolveVerifyOptions(options);
    if (options.dedupe !== undefined && options.dedupe !== false && typeof options.dedupe?.claim !== 'function') {
      throw new TypeError('dedupe must be a store with a claim(eventId) method, or false');
    }
    this.#dedupe = options.dedupe === false ? undefined : (options.dedupe ?? memoryDedupeStore());
  }

  get maxBodyBytes(): number {
    return this.#verifyOptions.maxBodyBytes;
  }

  /** Runs `handler` for each accepted event of one known kind, with its typed data. */
  on<T extends KnownEventType>(type: T, handler: EventHandler<EventMap[T]>): this {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    const list = this.#handlers.get(type) ?? [];
    list.push(handler as EventHandler<never>);
    this.#handlers.set(type, list);
    return this;
  }

  /** Runs `handler` for every accepted event, including kinds this version does not know. */
  onAny(handler: EventHandler<DeliveryEvent>): this {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    this.#anyHandlers.push(handler);
    return this;
  }

  /** Receives the errors thrown by listeners (they run after the answer, so the sender never sees them). */
  onError(handler: ErrorHandler): this {
    if (typeof handler !== 'function') throw new TypeError('handler must be a function');
    this.#errorHandlers.push(handler);
    return this;
  }

  /** Web-standard handler: Node 24, Hono, Next.js route handlers, Deno, Bun, Cloudflare Workers. */
  async handle(request: Request, context: HandleContext = NO_CONTEXT): Promise<Response> {
    let answer: DeliveryAnswer;
    try {
      const headers = readHeaders(request.headers);
      checkRequestLine(request.method, headers, this.maxBodyBytes);
      const body = await readWebStream(request.body, this.maxBodyBytes);
      answer = await this.#answer(body, headers, context);
    } catch (error) {
      answer = refusalOf(error);
    }
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  }

  /** Framework-neutral: verifies a delivery whose body is already in memory and returns the answer to send. */
  async receive(delivery: IncomingDelivery, context: HandleContext = NO_CONTEXT): Promise<DeliveryAnswer> {
    try {
      const headers = readHeaders(delivery.headers);
      checkRequestLine(delivery.method, headers, this.maxBodyBytes);
      return await this.#answer(delivery.body, headers, context);
    } catch (error) {
      return refusalOf(error);
    }
  }

  /** Resolves when every listener started so far has finished (tests, graceful shutdown). */
  idle(): Promise<void> {
    if (this.#pendingDispatches === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Express 4/5 (and Connect, `node:http`) handler. Mount it on the hook route, ideally before any body parser:
   * `app.post('/hooks', receiver.middleware())`. It answers every request itself.
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
    const source = locateRawBody(req);
    const headers = readHeaders(req.headers);
    try {
      checkRequestLine(req.method, headers, this.maxBodyBytes);
    } catch (error) {
      writeNodeAnswer(res, refusalOf(error));
      return;
    }
    if (source.kind !== 'stream') {
      const explain = source.kind === 'reserialized' ? explainReserializedFailure : undefined;
      sendNodeAnswer(res, next, this.#answer(source.body, headers, NO_CONTEXT, explain));
      return;
    }
    readNodeBody(req, this.maxBodyBytes, (error, body) => {
      try {
        sendNodeAnswer(res, next, error ? refusalOf(error) : this.#answer(body!, headers, NO_CONTEXT));
      } catch (fault) {
        failNode(res, next, fault);
      }
    });
  }

  /**
   * Verifies, claims and schedules a delivery; the answer comes at once when nothing needs I/O. Refusals become
   * answers; other errors (a fault of the receiver) are thrown or rejected.
   */
  #answer(body: RawBody, headers: HeaderReader, context: HandleContext, explain?: (error: DeliveryError) => DeliveryError): MaybePromise<DeliveryAnswer> {
    try {
      const verified = verifyDeliveryNow(body, headers, this.#verifyOptions);
      const answer = verified instanceof Promise ? verified.then((delivery) => this.#claim(delivery, context)) : this.#claim(verified, context);
      return answer instanceof Promise ? answer.catch((error: unknown) => refusalOf(error, explain)) : answer;
    } catch (error) {
      return refusalOf(error, explain);
    }
  }

  #claim(verified: VerifiedDelivery, context: HandleContext): MaybePromise<DeliveryAnswer> {
    if (!this.#dedupe) return this.#accepted(verified, true, context);
    let claimed: boolean | Promise<boolean>;
    try {
      claimed = this.#dedupe.claim(verified.event.id);
    } catch (error) {
      throw dedupeUnavailable(error);
    }
    if (typeof claimed === 'boolean') return this.#accepted(verified, claimed, context);
    return Promise.resolve(claimed).then(
      (first) => this.#accepted(verified, first, context),
      (error: unknown) => {
        throw dedupeUnavailable(error);
      },
    );
  }

  #accepted(verified: VerifiedDelivery, first: boolean, context: HandleContext): DeliveryAnswer {
    if (first) this.#schedule(verified, context);
    return acceptance(verified.event, !first);
  }

  /**
   * Starts the listeners on a later turn of the event loop, after the answer has been produced. Deliveries accepted
   * in the same turn share one `setImmediate`.
   */
  #schedule(verified: VerifiedDelivery, context: HandleContext): void {
    const dispatch: Dispatch = { verified };
    this.#pendingDispatches += 1;
    this.#queued.push(dispatch);
    if (this.#queued.length === 1) setImmediate(this.#startQueued);
    if (!context.waitUntil) return;
    // The event id is claimed already: a platform hook that fails must not keep the listeners from running.
    try {
      context.waitUntil(new Promise<void>((resolve) => (dispatch.finished = resolve)));
    } catch (error) {
      console.error(`[receiver] waitUntil failed for ${verified.event.type} ${verified.event.id}; the listeners run anyway:`, error);
    }
  }

  readonly #startQueued = () => {
    const batch = this.#queued;
    this.#queued = [];
    for (const dispatch of batch) this.#dispatch(dispatch);
  };

  /**
   * Runs the listeners one after the other, waiting for those that return a promise; never throws (their errors go
   * to the error handlers). Listeners registered after the delivery was dispatched wait for the next one.
   */
  #dispatch({ verified, finished }: Dispatch): void {
    const { event, scheme, attemptId } = verified;
    const typed = (this.#handlers.get(event.type) ?? NO_LISTENERS) as EventHandler<DeliveryEvent>[];
    const run: ListenerRun = { event, context: { scheme, attemptId }, typed, typedCount: typed.length, total: typed.length + this.#anyHandlers.length, finished };
    this.#runListeners(run, 0);
  }

  #runListeners(run: ListenerRun, start: number): void {
    for (let index = start; index < run.total; index += 1) {
      const listener = index < run.typedCount ? run.typed[index] : this.#anyHandlers[index - run.typedCount];
      let result: unknown;
      let pending = false;
      try {
        result = listener(run.event, run.context);
        // Reading `then` may throw too (a proxy, a getter): that is the listener's error as well.
        pending = isThenable(result);
      } catch (error) {
        void this.#reportListenerError(error, run.event).then(() => this.#runListeners(run, index + 1));
        return;
      }
      if (pending) {
        const next = () => this.#runListeners(run, index + 1);
        Promise.resolve(result).then(next, (error: unknown) => this.#reportListenerError(error, run.event).then(next));
        return;
      }
    }
    this.#pendingDispatches -= 1;
    if (this.#pendingDispatches === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
    run.finished?.();
  }

  async #reportListenerError(error: unknown, event: DeliveryEvent): Promise<void> {
    if (this.#errorHandlers.length === 0) {
      console.error(`[receiver] a listener failed for ${event.type} ${event.id}:`, error);
      return;
    }
    for (const handler of this.#errorHandlers) {
      try {
        await handler(error, event);
      } catch (secondary) {
        console.error(`[receiver] an onError handler failed for ${event.type} ${event.id}:`, secondary);
      }
    }
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

type NodeNext = (error?: unknown) => void;

/** A fault of the receiver or the connection: Express's error handling, or the connection is dropped. */
function failNode(res: ServerResponse, next: NodeNext | undefined, error: unknown): void {
  if (next) next(error);
  else res.destroy(error as Error);
}

function sendNodeAnswer(res: ServerResponse, next: NodeNext | undefined, answer: MaybePromise<DeliveryAnswer>): void {
  if (answer instanceof Promise) answer.then((settled) => writeNodeAnswer(res, settled)).catch((error: unknown) => failNode(res, next, error));
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
