import type { IncomingHttpHeaders } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { ApiCall, Endpoint, SandboxContext } from '../api/endpoint';
import { recordCall } from '../domain/apiLog';
import { hasScope, keysState, type ApiKey } from '../domain/keys';
import { RateLimiter } from '../rateLimit';
import { ApiError, forbiddenBot, forbiddenScope, unauthorized } from './errors';
import { applyPageLimit, shapeListAnswer } from './listAnswers';
import { Params } from './params';
import { RequestValidation } from './validation';

const JSON_LIMIT = '10mb';

export function sendError(res: Response, error: ApiError): void {
	prepareError(res, error);
	res.json(error.toBody());
}

function prepareError(res: Response, error: ApiError): void {
	res.locals.errorCode = error.code;
	if (error.status === 429 && error.extra.retryAfter !== undefined) {
		res.setHeader('Retry-After', String(error.extra.retryAfter));
	}
	res.status(error.status);
}

/** What the body parser's refusals become: status, code and message. */
const BODY_ERRORS: Record<string, [number, string, (error: { charset?: string; encoding?: string }) => string]> = {
	'entity.parse.failed': [400, 'invalid_json', () => 'The request body is not valid JSON'],
	'entity.too.large': [413, 'too_large', () => 'The request body is too large'],
	'charset.unsupported': [
		415,
		'unsupported_charset',
		(error) => `The charset "${error.charset ?? ''}" is not supported: send JSON in UTF-8`,
	],
	'encoding.unsupported': [
		415,
		'unsupported_encoding',
		(error) => `The Content-Encoding "${error.encoding ?? ''}" is not supported: send identity, gzip, deflate or br`,
	],
	'request.aborted': [400, 'aborted', () => 'The request body ended before its announced length'],
	'request.size.invalid': [400, 'invalid_body', () => 'The request body does not have its announced length'],
};

export function toApiError(error: unknown): ApiError {
	if (error instanceof ApiError) return error;
	const bodyError = error as { type?: string; status?: number; charset?: string; encoding?: string };
	const known =
		bodyError.type !== undefined && Object.hasOwn(BODY_ERRORS, bodyError.type)
			? BODY_ERRORS[bodyError.type]
			: undefined;
	if (known) return new ApiError(known[0], known[1], known[2](bodyError));
	// Other refusals of the body parser (e.g. a body that is not in its Content-Encoding) are the client's.
	if (typeof bodyError.status === 'number' && bodyError.status >= 400 && bodyError.status < 500) {
		return new ApiError(
			400,
			'invalid_body',
			'The request body cannot be read: it does not match its Content-Type or Content-Encoding',
		);
	}
	console.error('sandbox: unexpected error', error);
	return new ApiError(500, 'internal', 'Internal error');
}

/** The valid key the request carries, or the 401 that refuses it. */
function authenticate(context: SandboxContext, req: Request): ApiKey | ApiError {
	const value = req.headers.authorization?.trim();
	if (!value) return unauthorized('The Authorization header with an API key is missing');
	const key = keysState(context.store).keys.find((candidate) => candidate.key === value);
	if (!key) {
		// The documented form is `Authorization: <key>`; many HTTP clients add a scheme by habit.
		const bare = /^bearer\s+(\S+)$/i.exec(value)?.[1];
		const known = bare !== undefined && keysState(context.store).keys.some((candidate) => candidate.key === bare);
		return unauthorized(
			known
				? 'The API key is not known: send the key itself in Authorization, without "Bearer "'
				: 'The API key is not known',
		);
	}
	if (key.revoked) return unauthorized('The API key has been revoked');
	if (key.expiresAt !== null && key.expiresAt <= context.clock.now()) return unauthorized('The API key has expired');
	return key;
}

/**
 * Authenticates the request and names its key for the log: a call made with a valid key carries the key's id
 * also when it is refused (unknown path, HTTP method, bad JSON).
 */
function identify(context: SandboxContext, req: Request, res: Response): ApiKey | ApiError {
	const key = authenticate(context, req);
	if (!(key instanceof ApiError)) res.locals.keyId = key.id;
	return key;
}

/**
 * Records a call under /api as answered (status set, body not yet sent), including calls refused before
 * their method ran. A method's call records it in its own transaction; it is committed before the answer.
 */
function recordAnswer(context: SandboxContext, req: Request, res: Response): void {
	const failed = res.statusCode >= 400;
	const durationMs = Math.round((performance.now() - (res.locals.started as number)) * 100) / 100;
	if (context.options.verbose) console.log(`${req.method} /api${req.path} ${res.statusCode} ${durationMs}ms`);
	recordCall(context.store, {
		time: context.clock.iso(),
		method: req.method,
		path: req.path,
		status: res.statusCode,
		failed,
		code: failed ? (res.locals.errorCode ?? null) : null,
		keyId: res.locals.keyId ?? null,
		durationMs,
	});
}

/** A refused or failed call: its log entry is committed (the call's own changes were rolled back), then the answer sent. */
function answerError(context: SandboxContext, req: Request, res: Response, error: ApiError): void {
	prepareError(res, error);
	// Refused before the method's handler ran (bad JSON): the key is named here.
	if (res.locals.keyId === undefined) identify(context, req, res);
	try {
		recordAnswer(context, req, res);
	} catch (logError) {
		console.error('sandbox: the API log could not be written', logError);
	}
	res.json(error.toBody());
}

/** One call of a method by `key` with these parameters (the console runs methods this way too). */
export function apiCall(
	context: SandboxContext,
	key: ApiKey,
	source: Record<string, unknown>,
	headers: IncomingHttpHeaders,
): ApiCall {
	const restricted = key.bots;
	return {
		...context,
		params: new Params(source),
		headers,
		key,
		botAllowed: (botid) => restricted.length === 0 || restricted.includes(botid),
		assertBot: (botid) => {
			if (restricted.length > 0 && !restricted.includes(botid)) throw forbiddenBot(botid);
		},
	};
}

/** Mounts every endpoint under /api with auth, scopes, bot restriction, rate limit and the call log. */
export function apiRouter(context: SandboxContext, endpoints: Endpoint[]): express.Router {
	const router = express.Router();
	const limiter = new RateLimiter(context.options.rateLimit);
	// List answers take the shape the options ask for (items, bare, named; with or without total).
	const shaped = endpoints.map((endpoint) => ({
		...endpoint,
		handle: (call: ApiCall) => shapeListAnswer(context.options, endpoint.path, endpoint.handle(call)),
	}));
	const byPath = new Map(shaped.map((endpoint) => [endpoint.path, endpoint]));
	const validation = new RequestValidation(endpoints, context.options);

	router.use((_req, res, next) => {
		res.locals.started = performance.now();
		next();
	});
	router.use(express.json({ limit: JSON_LIMIT, type: () => true }));

	router.use(async (req: Request, res: Response) => {
		try {
			const key = identify(context, req, res);
			const endpoint = byPath.get(req.path.replace(/\/+$/, ''));
			if (!endpoint) throw new ApiError(404, 'not_found', `Unknown method ${req.path}`);
			const allowed = endpoint.methods === 'GET or POST' ? ['GET', 'POST'] : ['POST'];
			if (!allowed.includes(req.method)) {
				res.setHeader('Allow', allowed.join(', '));
				throw new ApiError(405, 'method_not_allowed', `${endpoint.path} accepts ${allowed.join(' or ')} only`);
			}
			if (key instanceof ApiError) throw key;
			const wait = limiter.take(key.id);
			if (wait > 0) {
				// `--retry-after none` plays a service that refuses without saying how long to wait.
				const retryAfter = context.options.retryAfter === 'none' ? {} : { retryAfter: wait };
				throw new ApiError(
					429,
					'rate_limited',
					`Too many requests: at most ${context.options.rateLimit} per second`,
					retryAfter,
				);
			}
			if (!hasScope(key, endpoint.scope)) throw forbiddenScope(endpoint.scope);
			if (
				context.options.failReads > 0 &&
				endpoint.scope.endsWith(':read') &&
				Math.random() < context.options.failReads
			) {
				throw new ApiError(
					503,
					'unavailable',
					'The service is briefly unavailable (sandbox --fail-reads); the request did nothing',
				);
			}
			const body = req.method === 'GET' ? (req.query as Record<string, unknown>) : (req.body ?? {});
			if (typeof body !== 'object' || Array.isArray(body)) {
				throw new ApiError(422, 'invalid_body', 'The request body must be a JSON object');
			}
			validation.check(endpoint.path, body as Record<string, unknown>, req.headers);
			const source = applyPageLimit(context.options, endpoint.path, body as Record<string, unknown>);
			// One transaction per call, its log entry included: committed before the answer, or not at all.
			const result = context.store.transaction(() => {
				const answer = endpoint.handle(apiCall(context, key, source as Record<string, unknown>, req.headers));
				res.status(200);
				recordAnswer(context, req, res);
				return answer;
			});
			res.json(result ?? {});
		} catch (error) {
			answerError(context, req, res, toApiError(error));
		}
	});
	// Four parameters: that is how Express tells an error handler. An answer already under way is Express's to end.
	router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
		if (res.headersSent) return next(error);
		answerError(context, req, res, toApiError(error));
	});

	return router;
}

/** Body-parser failures (bad JSON, too large) come here instead of reaching a method. */
export function apiErrorHandler(error: unknown, _req: Request, res: Response, next: NextFunction): void {
	if (res.headersSent) return next(error);
	sendError(res, toApiError(error));
}
