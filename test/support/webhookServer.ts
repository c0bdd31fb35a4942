import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Request, type Response } from 'express';
import type { TriggerHarness } from './triggerHarness';

/** What every request to the server looked like, in order, with the status it was answered with. */
export interface ReceivedRequest {
	path: string;
	status: number;
	headers: Record<string, string>;
	body: string;
}

export interface WebhookServer {
	/** `http://127.0.0.1:<port>/webhook` and `…/webhook-test`: the bases n8n would announce. */
	webhookBaseUrl: string;
	webhookTestBaseUrl: string;
	received: ReceivedRequest[];
	/** When set, every request is answered with this status before reaching the node (e.g. 410 Gone). */
	answerAll?: number;
	close(): Promise<void>;
}

function readBody(request: Request): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => resolve(Buffer.concat(chunks)));
		request.on('error', reject);
	});
}

/**
 * A stand-in for n8n's webhook endpoint on 127.0.0.1: like n8n, it reads the body lazily into
 * `req.rawBody` (through `req.readRawBody()`), parses JSON into `req.body` (422 when it cannot), and
 * hands the request to
 * the trigger's `webhook()` through the harness. It accepts any path under the two bases.
 */
export async function startWebhookServer(harness: () => TriggerHarness): Promise<WebhookServer> {
	const received: ReceivedRequest[] = [];
	const app = express();
	const self = { received } as WebhookServer;
	app.use((request: Request, _response: Response, next: () => void) => {
		request.readRawBody = async () => {
			if (!request.rawBody) request.rawBody = await readBody(request);
		};
		next();
	});
	app.post('/{*path}', async (request: Request, response: Response) => {
		await request.readRawBody();
		if (self.answerAll !== undefined) {
			response.status(self.answerAll).end();
			return;
		}
		response.on('finish', () =>
			received.push({
				path: request.path,
				status: response.statusCode,
				headers: Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)])),
				body: request.rawBody.toString('utf8'),
			}),
		);
		try {
			request.body = request.rawBody.length ? JSON.parse(request.rawBody.toString('utf8')) : {};
		} catch {
			// n8n refuses a JSON body it cannot parse before any node sees it.
			response.status(422).json({ message: 'Failed to parse request body' });
			return;
		}
		await harness().deliver(request, response, request.path.startsWith('/webhook-test/') ? 'test' : 'production');
	});
	const server: Server = await new Promise((resolve) => {
		const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
	});
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	return Object.assign(self, {
		webhookBaseUrl: `${base}/webhook`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	});
}
