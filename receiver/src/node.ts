import type { IncomingMessage, ServerResponse } from 'node:http';
import { DeliveryError, UNVERIFIED_HINT_PREFIX } from '../../nodes/shared/delivery';

/** A Node request as Express (4 or 5), Connect or plain `node:http` hand it over. */
export type NodeRequest = IncomingMessage & { body?: unknown; rawBody?: unknown; _body?: boolean };
export type NodeRequestHandler = (req: NodeRequest, res: ServerResponse, next?: (error?: unknown) => void) => void;

/** Where the raw bytes of a Node request are. */
export type RawBodySource =
	| { kind: 'stream' }
	| { kind: 'bytes'; body: Buffer | string }
	/** A JSON body parser ran first and kept no raw bytes: the body is re-serialized with `JSON.stringify`. */
	| { kind: 'reserialized'; body: string };

const FROM_STREAM: RawBodySource = Object.freeze({ kind: 'stream' });

/**
 * Finds the raw body whatever ran before the receiver: nothing (the stream is read), `express.raw()`/`express.text()`
 * (a Buffer or string in `req.body`), `express.json({ verify: captureRawBody })` or a platform that sets `req.rawBody`
 * (Firebase, some serverless adapters), or a plain `express.json()` (the parsed body is re-serialized).
 */
export function locateRawBody(req: NodeRequest): RawBodySource {
	if (Buffer.isBuffer(req.rawBody) || typeof req.rawBody === 'string') return { kind: 'bytes', body: req.rawBody };
	if (Buffer.isBuffer(req.body) || typeof req.body === 'string') return { kind: 'bytes', body: req.body };
	const consumed = req._body === true || req.readableEnded;
	if (!consumed) return FROM_STREAM;
	if (req.body !== undefined && req.body !== null) return { kind: 'reserialized', body: JSON.stringify(req.body) };
	return { kind: 'bytes', body: Buffer.alloc(0) };
}

/** `express.json({ verify: captureRawBody })` keeps the exact bytes in `req.rawBody` for the receiver. */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, buffer: Buffer): void {
	(req as NodeRequest).rawBody = buffer;
}

const SIGNATURE_OVER_BYTES = new Set(['invalid_signature', 'body_hash_mismatch']);

/**
 * Says (in the diagnostic: logs and `onError`, not the answer) why a re-serialized body may not match its signature,
 * and how to fix the mounting.
 */
export function explainReserializedFailure(error: DeliveryError): DeliveryError {
	if (!SIGNATURE_OVER_BYTES.has(error.code)) return error;
	// A body hash that does not match follows a JWT signature that did; a signature that matches nothing proves nothing.
	const unverified = error.code === 'invalid_signature';
	return new DeliveryError(error.code, error.message, {
		diagnostic:
			`${unverified ? UNVERIFIED_HINT_PREFIX : ''}A JSON body parser ran before the receiver and kept no raw bytes, so the body was re-serialized: ` +
			'mount the receiver before express.json(), or use express.json({ verify: captureRawBody })',
		diagnosticUnverified: unverified,
	});
}

export function writeNodeAnswer(
	res: ServerResponse,
	answer: { status: number; headers: Record<string, string>; body: string },
): void {
	// A client that went away gets nothing.
	if (res.headersSent || res.destroyed) return;
	res.writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.body) });
	res.end(answer.body);
}
