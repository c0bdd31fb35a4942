import type { IncomingMessage } from 'node:http';
import { DeliveryError, type HeaderReader } from '../../nodes/shared/delivery';
import { HeldList, type HeldLinks } from './heldList';

/** How long a body may take to arrive by default: the sender gives up after 10 s anyway. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;

function tooLarge(limit: number): DeliveryError {
	return new DeliveryError('body_too_large', `The body is larger than the limit of ${limit} bytes`);
}

function bodyTimeout(ms: number): DeliveryError {
	return new DeliveryError('body_timeout', `The body did not arrive within ${ms} ms`);
}

function clientAborted(cause?: unknown): DeliveryError {
	return new DeliveryError('client_aborted', 'The client closed the request before its body was complete', { cause });
}

/** Refuses early, from `Content-Length`, a body that cannot fit. */
export function assertDeclaredLength(contentLength: string | null | undefined, limit: number): void {
	if (contentLength && Number(contentLength) > limit) throw tooLarge(limit);
}

/**
 * Reads a web stream up to `limit` bytes within `timeoutMs`; stops reading as soon as either is exceeded. A stream
 * that fails (the client went away) is a `client_aborted` refusal, never a rejection of another kind.
 */
export async function readWebStream(
	stream: ReadableStream<Uint8Array> | null,
	limit: number,
	timeoutMs: number,
): Promise<Uint8Array> {
	if (!stream) return new Uint8Array(0);
	const reader = stream.getReader();
	const chunks: Uint8Array[] = [];
	let size = 0;
	let timer: ReturnType<typeof setTimeout> | undefined;
	const expired = new Promise<never>((_resolve, reject) => {
		timer = setTimeout(() => reject(bodyTimeout(timeoutMs)), timeoutMs);
	});
	// The race below may end without anyone awaiting `expired`.
	expired.catch(() => undefined);
	try {
		for (;;) {
			let chunk: Awaited<ReturnType<typeof reader.read>>;
			try {
				chunk = await Promise.race([reader.read(), expired]);
			} catch (error) {
				throw error instanceof DeliveryError ? error : clientAborted(error);
			}
			if (chunk.done) break;
			size += chunk.value.byteLength;
			if (size > limit) throw tooLarge(limit);
			chunks.push(chunk.value);
		}
	} catch (error) {
		// Stop reading but leave the stream alone: cancelling a stream made from a Node request (Readable.toWeb, the
		// adapters of Hono and Next.js) destroys its socket, and the answer would never reach the client.
		reader.releaseLock();
		throw error;
	} finally {
		clearTimeout(timer);
	}
	// Uint8Array rather than Buffer: this path also runs where there is no Buffer (workerd).
	if (chunks.length === 1) return chunks[0];
	const body = new Uint8Array(size);
	let offset = 0;
	for (const chunk of chunks) {
		body.set(chunk, offset);
		offset += chunk.byteLength;
	}
	return body;
}

/** A Node body read in progress, ended when its deadline passes. */
interface PendingRead extends HeldLinks<PendingRead> {
	/** On the monotonic clock, as a timer's: a wall clock set forward would end reads still in time. */
	deadline: number;
	expire: () => void;
}

/**
 * The deadlines of a receiver's Node body reads, checked by one timer every tenth of the timeout while any read is in
 * progress (so a body that is too slow is refused between `timeoutMs` and 1.1 × `timeoutMs` after its request
 * arrived), rather than a `Timeout` made, inserted and removed for every request; Node's own `requestTimeout` is
 * checked the same way.
 * Every read has the same timeout, so arrival order is deadline order and a check stops at the first read still in time.
 */
export class BodyDeadlines {
	readonly #timeoutMs: number;
	readonly #checkEveryMs: number;
	readonly #pending = new HeldList<PendingRead>();
	#timer: ReturnType<typeof setInterval> | undefined;

	constructor(timeoutMs: number) {
		this.#timeoutMs = timeoutMs;
		this.#checkEveryMs = Math.max(1, Math.ceil(timeoutMs / 10));
	}

	get timeoutMs(): number {
		return this.#timeoutMs;
	}

	/** Starts the clock of a read; `expire` is called once its deadline has passed, unless it is {@link untrack}ed first. */
	track(expire: () => void): PendingRead {
		const read: PendingRead = {
			deadline: performance.now() + this.#timeoutMs,
			expire,
			previous: undefined,
			next: undefined,
			held: false,
		};
		this.#pending.add(read);
		if (this.#timer === undefined) {
			this.#timer = setInterval(this.#expireLate, this.#checkEveryMs);
			// Pending reads keep their sockets, which keep the process alive; the timer itself need not.
			this.#timer.unref?.();
		}
		return read;
	}

	untrack(read: PendingRead): void {
		this.#pending.delete(read);
	}

	readonly #expireLate = () => {
		const now = performance.now();
		for (let read = this.#pending.first; read !== undefined; read = this.#pending.first) {
			if (read.deadline > now) return;
			this.#pending.delete(read);
			read.expire();
		}
		// Nothing in progress: the timer stops until the next read.
		clearInterval(this.#timer);
		this.#timer = undefined;
	};
}

/** Called once by {@link readNodeBody}: with the refusal, or with `null` and the body. */
export type BodyDone = (...outcome: [error: DeliveryError, body: undefined] | [error: null, body: Buffer]) => void;

/**
 * Reads a Node request up to `limit` bytes within the deadline of `deadlines` and calls `done` once, with the body or
 * the reason it has none (a {@link DeliveryError}: too large, too slow, or the client went away). On overflow or
 * timeout it stops listening and pauses the request, so the rest is never buffered; the caller answers and closes
 * the connection. A callback rather than a promise: the receiver answers most deliveries in the same turn.
 */
export function readNodeBody(request: IncomingMessage, limit: number, deadlines: BodyDeadlines, done: BodyDone): void {
	let chunks: Buffer | Buffer[] | undefined;
	let size = 0;
	// Listeners stay attached once the body is read (the request is done with); `settled` makes them inert.
	let settled = false;
	/** True the first time only. */
	const settling = () => {
		if (settled) return false;
		settled = true;
		deadlines.untrack(pending);
		return true;
	};
	const fail = (error: DeliveryError) => {
		if (settling()) done(error, undefined);
	};
	const stop = (error: DeliveryError) => {
		request.off('data', onData);
		request.pause();
		fail(error);
	};
	const onData = (chunk: Buffer) => {
		size += chunk.byteLength;
		if (size > limit) return stop(tooLarge(limit));
		// Most deliveries arrive in one chunk: keep it as is rather than copying it.
		if (chunks === undefined) chunks = chunk;
		else if (Array.isArray(chunks)) chunks.push(chunk);
		else chunks = [chunks, chunk];
	};
	const pending = deadlines.track(() => stop(bodyTimeout(deadlines.timeoutMs)));
	request.on('data', onData);
	request.on('end', () => {
		if (!settling()) return;
		done(null, chunks === undefined ? Buffer.alloc(0) : Array.isArray(chunks) ? Buffer.concat(chunks, size) : chunks);
	});
	// Every request closes, also an answered one: the refusal (an Error, with its stack) is only built when it is one.
	request.on('error', (error: Error) => settled || fail(clientAborted(error)));
	// 'close' before 'end': the client went away mid-body.
	request.on('close', () => settled || fail(clientAborted()));
}

const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/** Checks that need no body: method, media type, declared length. */
export function checkRequestLine(method: string | undefined, headers: HeaderReader, maxBodyBytes: number): void {
	// The spellings every sender uses are compared first: the general checks cost more than the rest of this function.
	if (method !== undefined && method !== 'POST' && method.toUpperCase() !== 'POST') {
		throw new DeliveryError('method_not_allowed', `Deliveries are POST requests, not ${method}`);
	}
	const contentType = headers.get('content-type');
	if (contentType !== 'application/json' && (!contentType || !JSON_MEDIA_TYPE.test(contentType))) {
		throw new DeliveryError('unsupported_media_type', 'Deliveries are sent with Content-Type: application/json');
	}
	assertDeclaredLength(headers.get('content-length'), maxBodyBytes);
}
