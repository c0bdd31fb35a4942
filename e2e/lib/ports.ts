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

/** `count` distinct free ports (probed one after another, so a port is never handed out twice). */
export async function freePorts(count: number): Promise<number[]> {
	const ports = new Set<number>();
	while (ports.size < count) ports.add(await freePort());
	return [...ports];
}
