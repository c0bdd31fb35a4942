/**
 * The load balancer of a production queue-mode n8n, in the harness process: one address for everything, production
 * webhook traffic spread round-robin over the `n8n webhook` processes, the rest to main. It is the address n8n puts in
 * every URL it hands out (N8N_WEBHOOK_URL, N8N_EDITOR_BASE_URL): the hooks the trigger registers, the Send and Wait
 * buttons, the editor. A test can also send a request to one webhook process of its choice (WEBHOOK_PROCESS_HEADER),
 * e.g. the same delivery to process 1 and then to process 2.
 *
 * Routes, from n8n 2.41.1 itself (packages/cli/dist):
 * - `abstract-server.js` start(): when `webhooksEnabled`, a server registers `/webhook/*`, `/form/*`, `/form-waiting/:path`,
 *   `/webhook-waiting/:path` (plus its Slack and Telegram suffixes) and `/mcp/*`; when `testWebhooksEnabled`,
 *   `/webhook-test/*`, `/form-test/*` and `/mcp-test/*`.
 * - `webhooks/webhook-server.js` (the server of `commands/webhook.js`, "Intercepts only production URLs") keeps
 *   AbstractServer's defaults: webhooksEnabled true, testWebhooksEnabled false, and no REST API or editor.
 * - `server.js` (main): testWebhooksEnabled true, webhooksEnabled = !endpoints.disableProductionWebhooksOnMainProcess
 *   (N8N_DISABLE_PRODUCTION_MAIN_PROCESS, `@n8n/config` endpoints.config.js). With it set, main answers none of the
 *   production paths, so they must never reach it.
 * So: `/webhook/`, `/webhook-waiting/`, `/form/`, `/form-waiting/` and `/mcp/` go to the webhook processes; everything
 * else (editor, `/rest/`, `/api/`, `/webhook-test/`, `/form-test/`, `/mcp-test/`, the push connection) goes to main.
 */
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';

/** Request header that sends a request to one webhook process (1-based), bypassing the rotation; not forwarded. */
export const WEBHOOK_PROCESS_HEADER = 'x-e2e-webhook-process';

/** The paths a webhook process serves (see above); a prefix match, so `/webhook-test/` is not one of them. */
export const WEBHOOK_PROCESS_PATHS = ['/webhook/', '/webhook-waiting/', '/form/', '/form-waiting/', '/mcp/'] as const;

export const isWebhookProcessPath = (path: string): boolean =>
	WEBHOOK_PROCESS_PATHS.some((prefix) => path.startsWith(prefix));

/** Headers that send a request to webhook process `index` (1-based). */
export const toWebhookProcess = (index: number): Record<string, string> => ({
	[WEBHOOK_PROCESS_HEADER]: String(index),
});

/** One request the balancer passed on: where to, and what came back (0: the target did not answer). */
export interface Served {
	method: string;
	path: string;
	/** `main`, or `webhook-<n>` (1-based). */
	target: string;
	status: number;
}

interface Target {
	name: string;
	port: number;
	/** Out of the rotation (restarting); a request pinned to it still goes there. */
	up: boolean;
}

/** How many served requests are kept for assertions and failure reports. */
const KEEP_SERVED = 2000;

export class Balancer {
	readonly url: string;
	readonly served: Served[] = [];
	private readonly server: http.Server;
	private main: Target | undefined;
	private webhooks: Target[] = [];
	private next = 0;
	private readonly forwardListeners = new Set<(forwarded: { target: string; path: string }) => void>();

	private constructor(server: http.Server) {
		this.server = server;
		this.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	}

	/** Listens on 127.0.0.1 (`port`, or a free one); targets come later (`setTargets`), once their ports are chosen. */
	static async start(port = 0): Promise<Balancer> {
		const server = http.createServer();
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(port, '127.0.0.1', () => resolve());
		});
		const balancer = new Balancer(server);
		server.on('request', (request, response) => balancer.forward(request, response));
		server.on('upgrade', (request, socket, head) => balancer.tunnel(request, socket, head));
		return balancer;
	}

	setTargets(mainPort: number, webhookPorts: number[]): void {
		this.main = { name: 'main', port: mainPort, up: true };
		this.webhooks = webhookPorts.map((port, index) => ({ name: `webhook-${index + 1}`, port, up: true }));
	}

	/** Takes webhook process `index` (1-based) out of the rotation, or puts it back, as a health-checking balancer would. */
	setUp(index: number, up: boolean): void {
		this.webhook(index).up = up;
	}

	/**
	 * Calls `listener` as each request is passed on (before its body is sent), e.g. to kill the process it goes to
	 * while it is in flight; returns what stops the calls.
	 */
	onForward(listener: (forwarded: { target: string; path: string }) => void): () => void {
		this.forwardListeners.add(listener);
		return () => this.forwardListeners.delete(listener);
	}

	/** Requests passed on whose path starts with `prefix`. */
	servedUnder(prefix: string): Served[] {
		return this.served.filter((entry) => entry.path.startsWith(prefix));
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private webhook(index: number): Target {
		const target = this.webhooks[index - 1];
		if (!target) throw new Error(`there is no webhook process ${index} (${this.webhooks.length} behind the balancer)`);
		return target;
	}

	/** Where a request goes: pinned, main, or the next webhook process in the rotation that is up. */
	private targetOf(path: string, pinned: string | undefined): Target | undefined {
		if (pinned !== undefined) return this.webhooks[Number(pinned) - 1];
		if (!isWebhookProcessPath(path) || this.webhooks.length === 0) return this.main;
		for (let tried = 0; tried < this.webhooks.length; tried++) {
			const target = this.webhooks[this.next++ % this.webhooks.length];
			if (target.up) return target;
		}
		return undefined;
	}

	private forward(request: http.IncomingMessage, response: http.ServerResponse): void {
		const path = request.url ?? '/';
		const pinnedHeader = request.headers[WEBHOOK_PROCESS_HEADER];
		const target = this.targetOf(path.split('?')[0], Array.isArray(pinnedHeader) ? pinnedHeader[0] : pinnedHeader);
		const record = (name: string, status: number) => {
			this.served.push({ method: request.method ?? 'GET', path, target: name, status });
			if (this.served.length > KEEP_SERVED) this.served.splice(0, this.served.length - KEEP_SERVED);
		};
		if (!target) {
			record('none', 502);
			response.writeHead(502, { 'content-type': 'text/plain' }).end(`balancer: no webhook process for ${path}`);
			return;
		}
		const headers = { ...request.headers };
		delete headers[WEBHOOK_PROCESS_HEADER];
		// A new connection per request (agent: false): a restarted process never gets a request on a dead kept-alive socket.
		const upstream = http.request(
			{ host: '127.0.0.1', port: target.port, method: request.method, path, headers, agent: false },
			(answer) => {
				record(target.name, answer.statusCode ?? 0);
				response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.rawHeaders);
				answer.pipe(response);
			},
		);
		upstream.on('error', (error) => {
			record(target.name, 0);
			if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain' });
			response.end(`balancer: ${target.name} did not answer: ${error.message}`);
		});
		for (const listener of this.forwardListeners) listener({ target: target.name, path: path.split('?')[0] });
		request.pipe(upstream);
	}

	/** A WebSocket upgrade (the editor's push connection): a byte tunnel to main. */
	private tunnel(request: http.IncomingMessage, socket: Duplex, head: Buffer): void {
		const target = this.main;
		if (!target) return void socket.destroy();
		const upstream = net.connect(target.port, '127.0.0.1', () => {
			const lines = [`${request.method} ${request.url} HTTP/${request.httpVersion}`];
			for (let at = 0; at < request.rawHeaders.length; at += 2)
				lines.push(`${request.rawHeaders[at]}: ${request.rawHeaders[at + 1]}`);
			upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
			if (head.length) upstream.write(head);
			socket.pipe(upstream).pipe(socket);
		});
		upstream.on('error', () => socket.destroy());
		socket.on('error', () => upstream.destroy());
	}
}
