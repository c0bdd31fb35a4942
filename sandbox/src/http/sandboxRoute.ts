import express, { type Request, type RequestHandler, type Response } from 'express';
import type { SandboxContext } from '../api/endpoint';
import { keysState } from '../domain/keys';
import { sendError, toApiError } from './app';
import { ApiError, unauthorized } from './errors';
import { Params } from './params';

function requireAccountKey(context: SandboxContext, req: Request): void {
  const value = req.headers.authorization?.trim();
  if (!value) throw unauthorized('The Authorization header with the account key is missing');
  const account = keysState(context.store).keys.find((key) => key.id === 'account');
  if (!account || account.key !== value) throw new ApiError(401, 'unauthorized', 'Sandbox routes need the account key');
}

/**
 * A sandbox-only route outside /api (e.g. POST /sandbox/payments): JSON body, account key only,
 * errors in the API's `{ code, error }` form.
 */
export function sandboxRoute(context: SandboxContext, handle: (params: Params) => unknown): RequestHandler[] {
  return [
    express.json({ type: () => true }),
    async (req: Request, res: Response) => {
      try {
        requireAccountKey(context, req);
        const body = req.body ?? {};
        if (typeof body !== 'object' || Array.isArray(body)) {
          throw new ApiError(422, 'invalid_body', 'The request body must be a JSON object');
        }
        res.status(200).json((await handle(new Params(body as Record<string, unknown>))) ?? {});
      } catch (error) {
        sendError(res, toApiError(error));
      }
    },
  ];
}
