import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LimitedService {
	/** Base URL with /api, like the credential's. */
	baseUrl: string;
	close(): Promise<void>;
}

async function bodyOf(request: IncomingMessage): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks);
}

/**
 * The service as the documented interface describes it: the sandbox behind a pass-through on
 * 127.0.0.1 that answers the given API paths (e.g. the sandbox's `/hook/list` and `/hook/delete`
 * extensions) with the service's 404 for an unknown method. Everything else reaches the sandbox.
 */
export async function startServiceWithout(paths: string[], sandboxBaseUrl: string): Promise<LimitedService> {
	const server = createServer(async (request, response) => {
		const path = (request.url ?? '/').split('?')[0].replace(/^\/api/, '');
		if (paths.includes(path)) {
			response.writeHead(404, { 'content-type': 'application/json' });
			response.end(JSON.stringify({ code: 'not_found', error: `Unknown method ${path}` }));
			return;
		}
		const body = await bodyOf(request);
		const answer = await fetch(`${sandboxBaseUrl}${(request.url ?? '/').replace(/^\/api/, '')}`, {
			method: request.method,
			headers: Object.fromEntries(
				['authorization', 'content-type', 'idempotency-key']
					.filter((name) => typeof request.headers[name] === 'string')
					.map((name) => [name, request.headers[name] as string]),
			),
			body: request.method === 'GET' || request.method === 'HEAD' ? undefined : body,
		});
		response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
		response.end(Buffer.from(await answer.arrayBuffer()));
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return {
		baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`,
		close: () => new Promise((resolve) => server.close(() => resolve())),
	};
}
