import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A free TCP port on 127.0.0.1 for a server that is stopped and started again on the same port (a Redis or a
 * receiver killed mid-test). A port from `listen(0)` lies in the kernel's ephemeral range, which every outgoing
 * connection draws from: while the server is down, any client's socket (a reconnecting Redis client, a fetch) can be
 * given that port as its own, and the restart then fails to bind. A port below the ephemeral range is only ever
 * taken by a program that asks for it by number.
 */
export async function restartablePort(): Promise<number> {
	const ephemeralStart = ephemeralRangeStart();
	const low = 20_000;
	const high = Math.max(low + 1000, ephemeralStart) - 1;
	for (let attempt = 0; attempt < 200; attempt += 1) {
		const port = low + Math.floor(Math.random() * (high - low + 1));
		if (await isFree(port)) return port;
	}
	throw new Error(`no free port between ${low} and ${high} on 127.0.0.1 after 200 tries`);
}

function ephemeralRangeStart(): number {
	try {
		const [start] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
		if (Number.isInteger(start) && start > 21_000) return start;
	} catch {
		// Not Linux: IANA's dynamic range starts at 49152; Linux's default at 32768.
	}
	return 32_768;
}

function isFree(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const probe = createServer();
		probe.once('error', () => resolve(false));
		probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
	});
}
