import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import type { Endpoint, SandboxContext } from '../api/endpoint';
import { deliveriesState } from '../delivery/deliveries';
import { apiLogEntryCount } from '../domain/apiLog';
import { catalogState, itemsState } from '../domain/catalog';
import { directory } from '../domain/directory';
import { hooksState } from '../domain/hooks';
import { keysState } from '../domain/keys';
import { listsState } from '../domain/lists';
import { subscribersState } from '../domain/subscribers';
import { apiCall, sendError, toApiError } from './app';
import { chatList } from './consoleChats';
import { RequestValidation } from './validation';
import { ApiError, invalidParam } from './errors';
import { Params } from './params';

/** The header that carries the console's session: a custom header, so no other site can send it (CORS). */
export const CONSOLE_SESSION_HEADER = 'x-sandbox-console';

/**
 * Where the page, its script and its style live: sandbox/console, beside src and dist. Code compiled
 * elsewhere (the benchmarks compile the sandbox into bench/out) finds it by walking up to the repository.
 */
function assetsDir(): string {
	for (let dir = __dirname; ; dir = dirname(dir)) {
		for (const candidate of [join(dir, 'console'), join(dir, 'sandbox', 'console')]) {
			if (existsSync(join(candidate, 'index.html'))) return candidate;
		}
		if (dirname(dir) === dir)
			throw new Error(`sandbox: the console's files (sandbox/console) were not found above ${__dirname}`);
	}
}
const ASSETS_DIR = assetsDir();
const ASSETS: Record<string, string> = {
	'app.js': 'text/javascript; charset=utf-8',
	'style.css': 'text/css; charset=utf-8',
};

/** Methods that change state the console may run: they cause the events a developer wants to watch. */
const CONSOLE_WRITES = new Set(['/subscriber/create', '/crm/stage/set']);
/** Read-capable methods that still delete (the service documents GET for it). */
const CONSOLE_FORBIDDEN = new Set(['/webapp/delete']);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Shows the start of a secret and hides the rest: enough to tell two apart, never enough to use one. */
export function mask(secret: string): string {
	const shown = Math.min(8, Math.floor(secret.length / 4));
	return `${secret.slice(0, shown)}…(${secret.length} characters)`;
}

function isLoopbackPeer(req: Request): boolean {
	const address = req.socket.remoteAddress ?? '';
	return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/** The Host header names this sandbox: a loopback name or its configured host, with the port the request came in on. */
function ownHost(context: SandboxContext, req: Request): boolean {
	const host = req.headers.host;
	if (!host) return false;
	const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.toLowerCase());
	if (!match) return false;
	const [, name, port] = match;
	if (port !== String(req.socket.localPort)) return false;
	const configured = context.options.host.toLowerCase();
	return LOOPBACK_HOSTS.has(name) || (name === configured && configured !== '0.0.0.0' && configured !== '::');
}

/**
 * Refuses a request a browser made for another site: its Origin is not this sandbox's own, or it says
 * it is cross-site. No Origin at all is a same-origin GET or a client outside a browser.
 */
export function refuseForeignOrigin(req: Request): void {
	const origin = req.headers.origin;
	const site = req.headers['sec-fetch-site'];
	const foreign =
		(origin !== undefined && origin !== `http://${req.headers.host}`) ||
		(site !== undefined && site !== 'same-origin' && site !== 'none');
	if (foreign) throw new ApiError(403, 'foreign_origin', 'Requests from another origin are refused');
}

function sameToken(given: string | string[] | undefined, expected: string): boolean {
	if (typeof given !== 'string') return false;
	const a = Buffer.from(given);
	const b = Buffer.from(expected);
	return a.length === b.length && timingSafeEqual(a, b);
}

/** The console's session token, made at start and held in memory only; the page carries it. */
const sessions = new WeakMap<SandboxContext, string>();

function sessionOf(context: SandboxContext): string {
	let token = sessions.get(context);
	if (!token) {
		token = randomBytes(24).toString('base64url');
		sessions.set(context, token);
	}
	return token;
}

/**
 * Throws unless the request may reach the console: from loopback, naming this sandbox as Host
 * (no DNS rebinding), from its own origin (no cross-site request), and, with `session`, carrying the
 * session the page was given.
 */
export function assertConsoleRequest(context: SandboxContext, req: Request, session: boolean): void {
	if (!isLoopbackPeer(req))
		throw new ApiError(403, 'console_loopback_only', 'The console answers only on the loopback interface');
	if (!ownHost(context, req)) throw new ApiError(403, 'foreign_host', 'The Host header does not name this sandbox');
	refuseForeignOrigin(req);
	if (session && !sameToken(req.headers[CONSOLE_SESSION_HEADER], sessionOf(context))) {
		throw new ApiError(401, 'unauthorized', "The console session is missing or not this sandbox's");
	}
}

/** True when the request carries a console session (then it must pass every console check). */
export const hasConsoleSession = (req: Request) => req.headers[CONSOLE_SESSION_HEADER] !== undefined;

function consoleJson(context: SandboxContext, handle: (req: Request, res: Response) => unknown) {
	return async (req: Request, res: Response) => {
		try {
			assertConsoleRequest(context, req, true);
			res.setHeader('cache-control', 'no-store');
			res.status(200).json(await handle(req, res));
		} catch (error) {
			sendError(res, toApiError(error));
		}
	};
}

function overview(context: SandboxContext, apiBase: string) {
	const { store, clock, options } = context;
	const lists = listsState(store).lists;
	const { adminKey: _fixedKey, ...settings } = options;
	const account = keysState(store).keys.find((key) => key.id === 'account');
	return {
		service: { api: apiBase, now: clock.iso(), accountKey: account ? mask(account.key) : '' },
		// The port it listens on, not the one asked for (0 picks any).
		settings: { ...settings, port: Number(new URL(apiBase).port) },
		keys: keysState(store).keys.map((key) => ({
			id: key.id,
			name: key.name,
			key: mask(key.key),
			scopes: key.scopes,
			bots: key.bots,
			expires: key.expiresAt === null ? null : new Date(key.expiresAt).toISOString(),
			revoked: key.revoked,
		})),
		hooks: hooksState(store).hooks.map((hook) => ({
			id: hook.id,
			name: hook.name,
			url: hook.url,
			events: hook.events,
			secret: mask(hook.secret),
			disabled: hook.disabledAt !== null,
			bots: hook.bots,
		})),
		webapps: catalogState(store).apps.map((app) => ({ id: app.id, name: app.name })),
		counts: {
			bots: directory(store).bots.length,
			subscribers: subscribersState(store).subscribers.length,
			lists: lists.length,
			rows: lists.reduce((sum, list) => sum + list.rows.length, 0),
			items: itemsState(store).items.length,
			hooks: hooksState(store).hooks.length,
			deliveries: deliveriesState(store).deliveries.length,
			log: apiLogEntryCount(store),
		},
	};
}

/** Runs a method as the account key: what the console may read, and the two changes that cause events. */
async function runMethod(
	context: SandboxContext,
	byPath: Map<string, Endpoint>,
	validation: RequestValidation,
	req: Request,
	res: Response,
) {
	const body = req.body ?? {};
	if (typeof body !== 'object' || Array.isArray(body))
		throw new ApiError(422, 'invalid_body', 'The request body must be a JSON object');
	const request = new Params(body as Record<string, unknown>);
	const path = request.requiredString('method');
	const endpoint = byPath.get(path);
	if (!endpoint) throw invalidParam('method', `names no API method: ${path}`);
	const allowed = (endpoint.methods === 'GET or POST' && !CONSOLE_FORBIDDEN.has(path)) || CONSOLE_WRITES.has(path);
	if (!allowed) throw invalidParam('method', `names ${path}, which the console does not run`);
	const account = keysState(context.store).keys.find((key) => key.id === 'account');
	if (!account) throw new ApiError(500, 'internal', 'The account key is missing');
	res.locals.apiMethod = path;
	const params = request.object('params') ?? {};
	validation.check(path, params, {});
	return context.store.transaction(() => endpoint.handle(apiCall(context, account, params, req.headers)));
}

/** The console: a page for a developer watching an integration, and the JSON routes it reads. */
export function mountConsole(app: Router, context: SandboxContext, endpoints: Endpoint[], apiBase: () => string): void {
	const byPath = new Map(endpoints.map((endpoint) => [endpoint.path, endpoint]));
	const validation = new RequestValidation(endpoints, context.options);
	const page = readFileSync(join(ASSETS_DIR, 'index.html'), 'utf8');
	const securityHeaders = (res: Response) => {
		res.setHeader('cache-control', 'no-store');
		res.setHeader('x-frame-options', 'DENY');
		res.setHeader('referrer-policy', 'no-referrer');
		res.setHeader('x-content-type-options', 'nosniff');
		res.setHeader(
			'content-security-policy',
			"default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
		);
	};

	app.get('/console/', (req, res) => {
		try {
			assertConsoleRequest(context, req, false);
		} catch (error) {
			return sendError(res, toApiError(error));
		}
		securityHeaders(res);
		res.type('html').send(page.replace('{{SESSION}}', sessionOf(context)));
	});
	app.get('/console/:asset', (req, res, next) => {
		const type = ASSETS[String(req.params.asset)];
		if (!type) return next();
		securityHeaders(res);
		res.type(type).send(readFileSync(join(ASSETS_DIR, String(req.params.asset)), 'utf8'));
	});
	app.get(
		'/console/overview',
		consoleJson(context, () => overview(context, apiBase())),
	);
	app.get(
		'/console/chats',
		consoleJson(context, (req) => chatList(context.store, new Params(req.query as Record<string, unknown>))),
	);
	app.post(
		'/console/call',
		express.json({ type: () => true }),
		consoleJson(context, (req, res) => runMethod(context, byPath, validation, req, res)),
	);
}
