import type { ServerResponse } from 'node:http';
import { assertDeclaredLength, readNodeStream, readWebStream } from './body';
import { memoryDedupeStore } from './dedupe/memory';
import type { DedupeStore } from './dedupe/store';
import { DeliveryError } from './errors';
import type { DeliveryEvent, EventMap, KnownEventType } from './events';
import { readHeaders, type HeaderSource } from './headers';
import { explainReserializedFailure, locateRawBody, writeNodeAnswer, type NodeRequest, type NodeRequestHandler } from './node';
import type { SignatureScheme, VerifyOptions } from './options';
import { createVerifier, type DeliveryVerifier, type RawBody, type VerifiedDelivery } from './verify';

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

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' } as const;
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Checks that need no body: method, media type, declared length. */
function checkRequestLine(method: string | undefined, headers: HeaderSource, maxBodyBytes: number): void {
  if (method !== undefined && method.toUpperCase() !== 'POST') {
    throw new DeliveryError('method_not_allowed', `Deliveries are POST requests, not ${method}`);
  }
  const reader = readHeaders(headers);
  const contentType = reader.get('content-type');
  if (!contentType || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new DeliveryError('unsupported_media_type', 'Deliveries are sent with Content-Type: application/json');
  }
  assertDeclaredLength(reader.get('content-length'), maxBodyBytes);
}

function refusal(error: DeliveryError): DeliveryAnswer {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (error.code === 'method_not_allowed') headers.allow = 'POST';
  if (error.code === 'body_too_large') headers.connection = 'close';
  return { status: error.status, headers, body: JSON.stringify({ code: error.code, error: error.message }), error };
}

export class Receiver {
  readonly #verifier: DeliveryVerifier;
  readonly #dedupe: DedupeStore | undefined;
  readonly #handlers = new Map<string, EventHandler<never>[]>();
  readonly #anyHandlers: EventHandler<DeliveryEvent>[] = [];
  readonly #errorHandlers: ErrorHandler[] = [];
  /** Deliveries whose listeners are scheduled or running, and who waits for that number to reach zero. */
  #pendingDispatches = 0;
  #idleWaiters: (() => void)[] = [];

  constructor(options: ReceiverOptions) {
    this.#verifier = createVerifier(options);
    if (options.dedupe !== undefined && options.dedupe !== false && typeof options.dedupe?.claim !== 'function') {
      throw new TypeError('dedupe must be a store with a claim(eventId) method, or false');
    }
    this.#dedupe = options.dedupe === false ? undefined : (options.dedupe ?? memoryDedupeStore());
  }

  get maxBodyBytes(): number {
    return this.#verifier.maxBodyBytes;
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
  async handle(request: Request, context: HandleContext = {}): Promise<Response> {
    let answer: DeliveryAnswer;
    try {
      checkRequestLine(request.method, request.headers, this.maxBodyBytes);
      const body = await readWebStream(request.body, this.maxBodyBytes);
      answer = await this.#accept(body, request.headers, context);
    } catch (error) {
      answer = refusal(asDeliveryError(error));
    }
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  }

  /** Framework-neutral: verifies a delivery whose body is already in memory and returns the answer to send. */
  async receive(delivery: IncomingDelivery, context: HandleContext = {}): Promise<DeliveryAnswer> {
    try {
      checkRequestLine(delivery.method, delivery.headers, this.maxBodyBytes);
      return await this.#accept(delivery.body, delivery.headers, context);
    } catch (error) {
      return refusal(asDeliveryError(error));
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
      this.#handleNode(req, res).catch((error) => (next ? next(error) : res.destroy(error)));
    };
  }

  async #handleNode(req: NodeRequest, res: ServerResponse): Promise<void> {
    let answer: DeliveryAnswer;
    const source = locateRawBody(req);
    try {
      checkRequestLine(req.method, req.headers, this.maxBodyBytes);
      const body = source.kind === 'stream' ? await readNodeStream(req, this.maxBodyBytes) : source.body;
      answer = await this.#accept(body, req.headers, {});
    } catch (error) {
      const refused = asDeliveryError(error);
      answer = refusal(source.kind === 'reserialized' ? explainReserializedFailure(refused) : refused);
    }
    writeNodeAnswer(res, answer);
  }

  async #accept(body: RawBody, headers: HeaderSource, context: HandleContext): Promise<DeliveryAnswer> {
    const verified = await this.#verifier.verify(body, headers);
    const { event } = verified;
    let first = true;
    if (this.#dedupe) {
      try {
        first = await this.#dedupe.claim(event.id);
      } catch (error) {
        throw new DeliveryError('dedupe_unavailable', 'The deduplication store did not answer; retry later', { cause: error });
      }
    }
    if (first) this.#schedule(verified, context);
    return {
      status: 200,
      headers: { ...JSON_HEADERS },
      body: JSON.stringify({ received: true, id: event.id, duplicate: !first }),
      event,
      duplicate: !first,
    };
  }

  /** Starts the listeners on a later turn of the event loop, after the answer has been produced. */
  #schedule(verified: VerifiedDelivery, context: HandleContext): void {
    this.#pendingDispatches += 1;
    if (context.waitUntil) {
      context.waitUntil(new Promise<void>((resolve) => setImmediate(() => void this.#dispatch(verified).then(resolve))));
    } else {
      setImmediate(() => void this.#dispatch(verified));
    }
  }

  /** Runs the listeners one after the other; never rejects (their errors go to the error handlers). */
  async #dispatch({ event, scheme, attemptId }: VerifiedDelivery): Promise<void> {
    try {
      const context: DeliveryContext = { scheme, attemptId };
      // The listeners registered when the delivery is dispatched (one registered meanwhile waits for the next one).
      const typed = (this.#handlers.get(event.type) ?? []) as EventHandler<DeliveryEvent>[];
      const typedCount = typed.length;
      const anyCount = this.#anyHandlers.length;
      for (let i = 0; i < typedCount; i += 1) await this.#runListener(typed[i], event, context);
      for (let i = 0; i < anyCount; i += 1) await this.#runListener(this.#anyHandlers[i], event, context);
    } finally {
      this.#pendingDispatches -= 1;
      if (this.#pendingDispatches === 0) for (const wake of this.#idleWaiters.splice(0)) wake();
    }
  }

  async #runListener(handler: EventHandler<DeliveryEvent>, event: DeliveryEvent, context: DeliveryContext): Promise<void> {
    try {
      await handler(event, context);
    } catch (error) {
      await this.#reportListenerError(error, event);
    }
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

/** Refusals become answers; anything else is a fault of the receiver or the connection and propagates. */
function asDeliveryError(error: unknown): DeliveryError {
  if (error instanceof DeliveryError) return error;
  throw error;
}

/** Creates a receiver: verify, validate, deduplicate and re-emit signed deliveries. */
export function createReceiver(options: ReceiverOptions): Receiver {
  return new Receiver(options);
}
