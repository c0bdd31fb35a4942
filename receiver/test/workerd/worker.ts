/**
 * A Cloudflare Worker (run in workerd by miniflare, without `nodejs_compat`: no Buffer, no node:crypto) that runs the
 * receiver's Web-standard entry on the shared delivery vectors and the official Standard Webhooks cases, and serves
 * one hook route through `createWebHandler`. Bundled by esbuild in workerd.test.ts.
 */
import { createWebHandler, createWebVerifier, DeliveryError, type DeliveryEvent } from '../../src/web';
import { VECTORS, OFFICIAL_CASES, HOOK_OPTIONS } from './inputs';

async function outcome(run: () => Promise<unknown>): Promise<string> {
	try {
		await run();
		return 'valid';
	} catch (error) {
		if (error instanceof DeliveryError) return error.code;
		return `unexpected ${String((error as Error)?.stack ?? error)}`;
	}
}

const events: DeliveryEvent[] = [];
const handle = createWebHandler({
	...HOOK_OPTIONS,
	onEvent: (event) => void events.push(event),
	onError: () => undefined,
});

export default {
	async fetch(request: Request): Promise<Response> {
		const url = new URL(request.url);
		if (url.pathname === '/runtime') {
			const globals = globalThis as Record<string, unknown>;
			return Response.json({
				buffer: typeof globals.Buffer,
				process: typeof globals.process,
				subtle: typeof (globals.crypto as { subtle?: unknown })?.subtle,
			});
		}
		if (url.pathname === '/vectors') {
			const results: Record<string, string> = {};
			for (const vector of VECTORS) {
				results[vector.name] = await outcome(() =>
					createWebVerifier(vector.verifier as never).verify(vector.request.body, vector.request.headers),
				);
			}
			return Response.json(results);
		}
		if (url.pathname === '/official') {
			const results: Record<string, string> = {};
			for (const c of OFFICIAL_CASES) {
				results[c.name] = await outcome(() =>
					createWebVerifier({ secrets: [c.secret], now: c.now, toleranceSeconds: 300 }).verify(c.payload, c.headers),
				);
			}
			return Response.json(results);
		}
		if (url.pathname === '/hooks') return handle(request);
		if (url.pathname === '/events') return Response.json(events);
		return new Response('not found', { status: 404 });
	},
};
