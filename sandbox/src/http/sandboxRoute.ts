import express, { type Request, type RequestHandler, type Response } from 'express';
import type { SandboxContext } from '../api/endpoint';
import { keysState } from '../domain/keys';
import { sendError, toApiError } from './app';
import { assertConsoleRequest, hasConsoleSession, refuseForeignOrigin } from './console';
import { ApiError, unauthorized } from './errors';
import { Params } from './params';

/** The account key, or the console's session (with the console's Host and Origin checks). */
function requireAccountKey(context: SandboxContext, req: Request): void {
	if (hasConsoleSession(req)) return assertConsoleRequest(context, req, true);
	refuseForeignOrigin(req);
	const value = req.headers.authorization?.trim();
	if (!value) throw unauthorized('The Authorization header with the account key is missing');
	const account = keysState(context.store).keys.find((key) => key.id === 'account');
	if (!account || account.key !== value) throw new ApiError(401, 'unauthorized', 'Sandbox routes need the account key');
}

/** The request's parameters: its JSON body (query string for GET), with the account key or console session checked. */
function authorisedParams(context: SandboxContext, req: Request): Params {
	requireAccountKey(context, req);
	const body = req.method === 'GET' ? req.query : (req.body ?? {});
	if (typeof body !== 'object' || Array.isArray(body)) {
		throw new ApiError(422, 'invalid_body', 'The request body must be a JSON object');
	}
	return new Params(body as Record<string, unknown>);
}

/**
 * A sandbox-only route outside /api (e.g. POST /sandbox/payments): JSON body (query string for GET),
 * account key or console session, errors in the API's `{ code, error }` form. A request from another
 * origin is refused. The change is one transaction, committed before the answer.
 */
export function sandboxRoute(context: SandboxContext, handle: (params: Params) => unknown): RequestHandler[] {
	return [
		express.json({ type: () => true }),
		(req: Request, res: Response) => {
			try {
				const params = authorisedParams(context, req);
				res.status(200).json(context.store.transaction(() => handle(params)) ?? {});
			} catch (error) {
				sendError(res, toApiError(error));
			}
		},
	];
}

/**
 * A sandbox-only route that waits on something outside the store (a link it opens): as sandboxRoute, but the handler
 * is awaited and runs outside a transaction; what it reads of the store it reads in one synchronous step.
 */
export function sandboxAction(context: SandboxContext, handle: (params: Params) => Promise<unknown>): RequestHandler[] {
	return [
		express.json({ type: () => true }),
		async (req: Request, res: Response) => {
			try {
				res.status(200).json((await handle(authorisedParams(context, req))) ?? {});
			} catch (error) {
				sendError(res, toApiError(error));
			}
		},
	];
}
