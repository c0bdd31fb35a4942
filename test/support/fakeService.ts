import type { IDataObject } from 'n8n-workflow';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeRunner } from './nodeRun';

/**
 * A request's parameters. The lists of the bulk methods are typed as the node sends them; a test reads one only on a
 * path whose requests carry it.
 */
export type ReceivedParams = IDataObject & { rows: IDataObject[]; rowids: number[]; items: IDataObject[] };

/** One request the fake service received: the method path (without /api) and its parameters. */
export interface ReceivedCall {
	path: string;
	params: ReceivedParams;
}

/**
 * A stand-in for a service that answers differently from the sandbox: `answer` builds each answer
 * from the path, the parameters and how many calls of that path came before (1 for the first);
 * `raw` is sent as the body instead of `body` serialized (JSON that JavaScript cannot write, e.g. 2^53 + 1).
 */
export async function fakeService(
	answer: (path: string, params: ReceivedParams, nth: number) => { status: number; body: unknown; raw?: string },
) {
	const calls: ReceivedCall[] = [];
	const server: Server = createServer((request, response) => {
		const chunks: Buffer[] = [];
		request.on('data', (chunk: Buffer) => chunks.push(chunk));
		request.on('end', () => {
			const url = new URL(request.url ?? '/', 'http://127.0.0.1');
			const path = url.pathname.replace(/^\/api/, '');
			const text = Buffer.concat(chunks).toString('utf8');
			const params = (text ? JSON.parse(text) : Object.fromEntries(url.searchParams)) as ReceivedParams;
			calls.push({ path, params });
			const { status, body, raw } = answer(path, params, calls.filter((call) => call.path === path).length);
			response.writeHead(status, { 'Content-Type': 'application/json' });
			response.end(raw ?? JSON.stringify(body));
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const runner = new NodeRunner(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api`, 'fake-service-key');
	return {
		runner,
		calls,
		callsOf: (path: string) => calls.filter((call) => call.path === path),
		close: async () => {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		},
	};
}
