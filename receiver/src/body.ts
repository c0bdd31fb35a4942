import type { IncomingMessage } from 'node:http';
import { DeliveryError } from './errors';

function tooLarge(limit: number): DeliveryError {
  return new DeliveryError('body_too_large', `The body is larger than the limit of ${limit} bytes`);
}

/** Refuses early, from `Content-Length`, a body that cannot fit. */
export function assertDeclaredLength(contentLength: string | null | undefined, limit: number): void {
  if (contentLength && Number(contentLength) > limit) throw tooLarge(limit);
}

/** Reads a web stream up to `limit` bytes; stops reading (and cancels the stream) as soon as it is exceeded. */
export async function readWebStream(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Buffer> {
  if (!stream) return Buffer.alloc(0);
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Reads a Node request up to `limit` bytes and calls `done` once, with the body or the reason it has none. On
 * overflow it stops listening and pauses the request, so the rest is never buffered; the caller answers 413 and
 * closes the connection. A callback rather than a promise: the receiver answers most deliveries in the same turn.
 */
export function readNodeBody(request: IncomingMessage, limit: number, done: (error: Error | null, body?: Buffer) => void): void {
  let chunks: Buffer | Buffer[] | undefined;
  let size = 0;
  // Listeners stay attached once the body is read (the request is done with); `settled` makes them inert.
  let settled = false;
  const settle = (error: Error | null, body?: Buffer) => {
    if (settled) return;
    settled = true;
    done(error, body);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.byteLength;
    if (size > limit) {
      request.off('data', onData);
      request.pause();
      settle(tooLarge(limit));
      return;
    }
    // Most deliveries arrive in one chunk: keep it as is rather than copying it.
    if (chunks === undefined) chunks = chunk;
    else if (Array.isArray(chunks)) chunks.push(chunk);
    else chunks = [chunks, chunk];
  };
  request.on('data', onData);
  request.on('end', () => settle(null, chunks === undefined ? Buffer.alloc(0) : Array.isArray(chunks) ? Buffer.concat(chunks, size) : chunks));
  request.on('error', (error: Error) => settle(error));
  // 'close' before 'end': the client went away mid-body.
  request.on('close', () => {
    if (!settled) settle(new Error('The request was closed before its body was complete'));
  });
}
