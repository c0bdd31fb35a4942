/**
 * A TCP proxy in front of a server (PostgreSQL) that, while stalls are on, holds a share of the server's replies for a
 * random time before passing them on, as a database that now and then answers late. Each connection's replies stay in
 * order: a held reply holds the ones after it. Requests pass at once.
 */
import net from 'node:net';

export interface Stalls {
	/** The share of replies held, from 0 to 1. */
	share: number;
	minMs: number;
	maxMs: number;
}

export class StallingProxy {
	/** Replies held since the proxy started. */
	held = 0;
	private stalls: Stalls | undefined;
	private readonly sockets = new Set<net.Socket>();
	private readonly server: net.Server;
	readonly port: number;
	readonly host = '127.0.0.1';

	private constructor(server: net.Server, port: number) {
		this.server = server;
		this.port = port;
	}

	static async start(target: { host: string; port: number }): Promise<StallingProxy> {
		const server = net.createServer();
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(0, '127.0.0.1', () => resolve());
		});
		const proxy = new StallingProxy(server, (server.address() as net.AddressInfo).port);
		server.on('connection', (client) => proxy.connect(client, target));
		return proxy;
	}

	/** Stalls on (or off, with undefined) for replies that arrive from now on. */
	stall(stalls: Stalls | undefined): void {
		this.stalls = stalls;
	}

	private connect(client: net.Socket, target: { host: string; port: number }): void {
		const upstream = net.connect(target.port, target.host);
		for (const socket of [client, upstream]) {
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
			socket.on('error', () => {
				client.destroy();
				upstream.destroy();
			});
		}
		client.pipe(upstream);
		// Replies in order: each waits for the one before it, and a held one for its stall too.
		let previous = Promise.resolve();
		upstream.on('data', (chunk: Buffer) => {
			const stalls = this.stalls;
			const holdMs =
				stalls && Math.random() < stalls.share ? stalls.minMs + Math.random() * (stalls.maxMs - stalls.minMs) : 0;
			if (holdMs > 0) this.held++;
			previous = previous
				.then(() => (holdMs > 0 ? new Promise<void>((resolve) => setTimeout(resolve, holdMs)) : undefined))
				.then(() => {
					if (!client.destroyed) client.write(chunk);
				});
		});
		upstream.on('end', () => void previous.then(() => client.end()));
		client.on('end', () => upstream.end());
	}

	async close(): Promise<void> {
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}
