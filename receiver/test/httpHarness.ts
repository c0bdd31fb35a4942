import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import express from 'express';
import type { Receiver } from '../src';
import { serve, type RunningServer } from './helpers';

/**
 * Receivers served over real HTTP, through Express 5 (`middleware()`) and through `handle()` behind a `node:http`
 * adapter like the ones Hono and Next.js use; and the requests the tests send them.
 */
export interface Served {
	running: RunningServer;
	url: string;
	/** Errors that reached Express's error handling, or rejections of handle(). */
	faults: unknown[];
	/** Requests the receiver is done with (answered, or let go). */
	settled: () => number;
}

export type Framework = (receiver: Receiver) => Promise<Served>;

export const viaExpress: Framework = async (receiver) => {
	const faults: unknown[] = [];
	let settled = 0;
	const app = express();
	app.post(
		'/hooks',
		(req, res, next) => {
			// Counted once the receiver had its turn on both events (its listeners were attached after this one).
			const done = () => setImmediate(() => (settled += 1));
			let counted = false;
			const once = () => counted || ((counted = true), done());
			res.once('finish', once);
			req.once('close', once);
			next();
		},
		receiver.middleware(),
	);
	// Four parameters: Express takes a handler for errors by its arity.
	app.use((error: unknown, _req: express.Request, res: express.Response, next: express.NextFunction) => {
		faults.push(error);
		// An answer already begun is Express's own to end (it closes the connection).
		if (res.headersSent) return next(error);
		res.status(500).end();
	});
	const running = await serve(app);
	return { running, url: `${running.url}/hooks`, faults, settled: () => settled };
};

export const viaHandle: Framework = async (receiver) => {
	const faults: unknown[] = [];
	let settled = 0;
	const running = await serve(async (req: IncomingMessage, res: ServerResponse) => {
		const headers = new Headers();
		for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
		const request = new Request(`http://127.0.0.1${req.url}`, {
			method: req.method,
			headers,
			body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
			duplex: 'half',
		} as RequestInit);
		try {
			const response = await receiver.handle(request);
			settled += 1;
			if (res.destroyed) return;
			const body = Buffer.from(await response.arrayBuffer());
			res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': body.length });
			res.end(body);
		} catch (error) {
			faults.push(error);
			res.destroy();
		}
	});
	return { running, url: `${running.url}/hooks`, faults, settled: () => settled };
};

export const FRAMEWORKS: [string, Framework][] = [
	['Express 5', viaExpress],
	['handle()', viaHandle],
];

export interface RawAnswer {
	status: number;
	body: string;
	ms: number;
}

/** Sends a request head, then the body in `parts` (`everyMs` apart); resolves with the answer, or when aborted. */
export function rawPost(
	url: string,
	headers: Record<string, string>,
	parts: Buffer[],
	options: { everyMs?: number; abortAfterMs?: number; contentLength?: number } = {},
) {
	const { port } = new URL(url);
	const length = options.contentLength ?? parts.reduce((sum, part) => sum + part.length, 0);
	return new Promise<RawAnswer | 'aborted'>((resolve) => {
		const started = Date.now();
		const socket = connect(Number(port), '127.0.0.1');
		let received = '';
		const head = [
			`POST /hooks HTTP/1.1`,
			`host: 127.0.0.1:${port}`,
			`content-length: ${length}`,
			...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
		];
		socket.write(`${head.join('\r\n')}\r\n\r\n`);
		let index = 0;
		const timer = setInterval(() => {
			if (index < parts.length && !socket.destroyed) socket.write(parts[index++]);
		}, options.everyMs ?? 0);
		if (options.abortAfterMs !== undefined) {
			setTimeout(() => {
				clearInterval(timer);
				socket.destroy();
				resolve('aborted');
			}, options.abortAfterMs);
		}
		socket.on('data', (chunk) => {
			received += chunk.toString();
			const [headPart, ...rest] = received.split('\r\n\r\n');
			const lengthMatch = /content-length: (\d+)/i.exec(headPart);
			if (lengthMatch && rest.join('\r\n\r\n').length >= Number(lengthMatch[1])) {
				clearInterval(timer);
				socket.destroy();
				resolve({ status: Number(headPart.split(' ')[1]), body: rest.join('\r\n\r\n'), ms: Date.now() - started });
			}
		});
		socket.on('error', () => undefined);
		// Closed without a complete answer: the status line, if any, says what came.
		socket.on('close', () => {
			clearInterval(timer);
			resolve({
				status: Number(received.split(' ')[1] ?? 0),
				body: received.split('\r\n\r\n').slice(1).join('\r\n\r\n'),
				ms: Date.now() - started,
			});
		});
	});
}

/** A promise that listeners wait on until the test releases it. */
export function gated(): { gate: Promise<void>; release: () => void } {
	let release!: () => void;
	const gate = new Promise<void>((resolve) => (release = resolve));
	return { gate, release };
}

export function post(url: string, delivery: { headers: Record<string, string>; body: string }) {
	return fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.body });
}
