/** Free TCP ports on the loopback interface, so that several n8n processes never collide. */
import net from 'node:net';

export function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = net.createServer();
		server.unref();
		server.on('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const address = server.address();
			server.close(() => {
				if (address && typeof address === 'object') resolve(address.port);
				else reject(new Error('could not read the port of a probe server'));
			});
		});
	});
}

/**
 * Ports handed out by this process. A probed port is free only until someone binds it: the ports of a whole stack
 * are chosen before its first process starts, so without this a later probe could hand out a port chosen earlier
 * (a worker's health port equal to main's, say) and one of them fails to start.
 */
const handedOut = new Set<number>();

/** `count` distinct free ports, none handed out before by this process. */
export async function freePorts(count: number): Promise<number[]> {
	const ports: number[] = [];
	while (ports.length < count) {
		const port = await freePort();
		if (handedOut.has(port)) continue;
		handedOut.add(port);
		ports.push(port);
	}
	return ports;
}
