import { createServer, request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of the sandbox that loses answers: for requests whose path matches,
 * the first `drops` are forwarded (so the service acts on them) and then the connection is cut
 * before the answer reaches the client, like a network failure after the fact.
 */
export class FlakyProxy {
	private server?: Server;
	private remaining = 0;
	private matcher: (path: string) => boolean = () => false;
	private refusal?: { pathPart: string; status: number; remaining: number };
	readonly forwarded: string[] = [];
	/** Every request with its headers, in arrival order. */
	readonly received: Array<{ url: string; headers: IncomingHttpHeaders }> = [];

	constructor(private readonly target: string) {}

	/** Loses the answers of the next `drops` requests whose path contains `pathPart`. */
	loseAnswers(pathPart: string, drops: number): void {
		this.matcher = (path) => path.includes(pathPart);
		this.remaining = drops;
	}

	/**
	 * Answers the next `count` requests whose path contains `pathPart` with `status` itself, without
	 * forwarding them (the service never sees them); used after `loseAnswers` for what comes next.
	 */
	refuse(pathPart: string, status: number, count: number): void {
		this.refusal = { pathPart, status, remaining: count };
	}

	async start(): Promise<string> {
		const target = new URL(this.target);
		this.server = createServer((incoming: IncomingMessage, outgoing) => {
			const chunks: Buffer[] = [];
			incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
			incoming.on('end', () => {
				const path = `${target.pathname.replace(/\/$/, '')}${incoming.url ?? ''}`;
				const refusal = this.refusal;
				const lost = this.matcher(incoming.url ?? '') && this.remaining > 0;
				if (!lost && refusal && refusal.remaining > 0 && (incoming.url ?? '').includes(refusal.pathPart)) {
					refusal.remaining--;
					outgoing.writeHead(refusal.status, { 'Content-Type': 'application/json' });
					outgoing.end(
						JSON.stringify({
							code: refusal.status === 429 ? 'rate_limited' : 'unavailable',
							error: `HTTP ${refusal.status} from the proxy`,
						}),
					);
					return;
				}
				this.forwarded.push(`${incoming.method} ${incoming.url}`);
				this.received.push({ url: incoming.url ?? '', headers: incoming.headers });
				const lose = this.matcher(incoming.url ?? '') && this.remaining > 0;
				if (lose) this.remaining--;
				const upstream = request(
					{ host: target.hostname, port: target.port, path, method: incoming.method, headers: incoming.headers },
					(answer) => {
						const body: Buffer[] = [];
						answer.on('data', (chunk: Buffer) => body.push(chunk));
						answer.on('end', () => {
							if (lose) {
								incoming.socket.destroy();
								return;
							}
							outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
							outgoing.end(Buffer.concat(body));
						});
					},
				);
				upstream.end(Buffer.concat(chunks));
			});
		});
		await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	async close(): Promise<void> {
		this.server?.closeAllConnections();
		await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
	}
}
