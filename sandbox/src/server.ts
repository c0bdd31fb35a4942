import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express, { type Express, type RequestHandler } from 'express';
import { modules } from './api';
import type { Endpoint, SandboxContext } from './api/endpoint';
import { Clock } from './clock';
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from './config';
import { mountAnswer } from './answer/answerRoute';
import { mountControl, sandboxControl, seedState, type SandboxControl } from './control';
import { ensureAccountKey, type ApiKey } from './domain/keys';
import { EventBus } from './events';
import { invalidParam } from './http/errors';
import { apiErrorHandler, apiRouter } from './http/app';
import { mountConsole } from './http/console';
import { sandboxRoute } from './http/sandboxRoute';
import { OPENAPI_PATH, openApiDocument } from './openapi/document';
import { Store } from './store/store';

/** One JSON answer the sandbox sent: what the contract test checks against the OpenAPI document. */
export interface SentAnswer {
	method: string;
	/** The request's path, without the query string. */
	path: string;
	status: number;
	body: unknown;
	/** The API method whose answer this is, when a route outside /api answers for one (the console runs methods). */
	apiMethod?: string;
}

export interface RunningSandbox {
	/** http://HOST:PORT */
	url: string;
	/** http://HOST:PORT/api: the base URL clients use. */
	baseUrl: string;
	/** The account key: every scope, every bot. */
	adminKey: string;
	context: SandboxContext;
	/** Control of the whole state, as the /sandbox routes offer it: reset, snapshot, restore, deliveries, redeliver. */
	control: SandboxControl;
	/** Calls `listener` with every JSON answer, as it is sent. */
	observeAnswers(listener: (answer: SentAnswer) => void): void;
	close(): Promise<void>;
}

/** Opens the state (the data file, or memory) and makes sure the account key exists: seeds a fresh state. */
function openState(options: ResolvedOptions): { context: SandboxContext; accountKey: ApiKey } {
	const store = new Store(options.dataFile);
	const clock = new Clock(store);
	const context: SandboxContext = { store, clock, options, events: new EventBus() };
	const accountKey = store.transaction(() =>
		store.fresh ? seedState(context, options.adminKey) : ensureAccountKey(store, options.adminKey, clock.iso()),
	);
	return { context, accountKey };
}

/** Hands every JSON answer to the listeners as it is sent (nothing is wrapped while there are none). */
function observeJsonAnswers(listeners: ((answer: SentAnswer) => void)[]): RequestHandler {
	return (req, res, next) => {
		if (listeners.length > 0) {
			const { method, path } = req;
			const json = res.json.bind(res);
			res.json = (body: unknown) => {
				const apiMethod = res.locals.apiMethod as string | undefined;
				for (const listener of listeners)
					listener({ method, path, status: res.statusCode, body, ...(apiMethod ? { apiMethod } : {}) });
				return json(body);
			};
		}
		next();
	};
}

/** POST /sandbox/clock: moves business time forward. */
function clockRoute(context: SandboxContext): RequestHandler[] {
	const { clock } = context;
	return sandboxRoute(context, (params) => {
		const seconds = params.number('advanceSeconds') ?? 0;
		const most = clock.maxAdvanceSeconds();
		if (seconds < 0 || seconds > most) {
			throw invalidParam(
				'advanceSeconds',
				`must be between 0 and ${most} seconds (business time stops at the end of year 9999); nothing was moved`,
			);
		}
		clock.advance(seconds);
		return { now: clock.iso() };
	});
}

interface AppParts {
	context: SandboxContext;
	control: SandboxControl;
	endpoints: Endpoint[];
	answerListeners: ((answer: SentAnswer) => void)[];
	/** The base URL, known once the server listens. */
	baseUrl: () => string;
}

/** Every route of the sandbox: the index, the contract, the console, the /sandbox routes, the API and the refusals. */
function sandboxApp({ context, control, endpoints, answerListeners, baseUrl }: AppParts): Express {
	const contract = openApiDocument(endpoints, context.options);
	const app = express();
	app.disable('x-powered-by');
	app.set('query parser', 'extended');
	app.use(observeJsonAnswers(answerListeners));
	app.get('/', (req, res) => {
		if (req.accepts(['json', 'html']) === 'html') return res.redirect(302, '/console/');
		res.json({
			service: 'messenger-bot-builder sandbox',
			api: baseUrl(),
			version: '2.0',
			console: '/console/',
			openapi: OPENAPI_PATH,
		});
	});
	app.get(OPENAPI_PATH, (_req, res) => {
		res.json(contract);
	});
	mountConsole(app, context, endpoints, baseUrl);
	app.post('/sandbox/clock', ...clockRoute(context));
	mountControl(app, context, control);
	mountAnswer(app, context);
	for (const module of modules) module.mount?.(app, context);
	app.use('/api', apiRouter(context, endpoints));
	app.use(apiErrorHandler);
	app.use((_req, res) => {
		res.status(404).json({ code: 'not_found', error: 'Unknown path' });
	});
	return app;
}

/** Listens on the configured host and port. */
async function listen(app: Express, options: ResolvedOptions): Promise<Server> {
	const server: Server = await new Promise((resolve, reject) => {
		const listening = app.listen(options.port, options.host, (error?: Error) =>
			error ? reject(error) : resolve(listening),
		);
	});
	// An idle keep-alive connection is closed after 65 s, not Node's 5 s: a client that pauses between two calls for about
	// the server's timeout (a test compiling a validator on a busy machine, a workflow between two nodes) can send its next
	// request just as the server closes the socket, and gets ECONNRESET for a call the sandbox never saw. 65 s is above
	// the 60 s idle time of common balancers and proxies; close() still ends idle connections at once.
	server.keepAliveTimeout = 65_000;
	server.headersTimeout = 66_000;
	return server;
}

/** Starts a sandbox: the whole service API on one HTTP server. */
export async function startSandbox(input: SandboxOptions = {}): Promise<RunningSandbox> {
	const options = resolveOptions(input);
	const { context, accountKey } = openState(options);
	const control = sandboxControl(context);
	const endpoints = modules.flatMap((module) => module.endpoints);
	const answerListeners: ((answer: SentAnswer) => void)[] = [];
	// Asked only once the server listens (the index route, the console).
	const baseUrl = () => baseUrlOf(server);
	const app = sandboxApp({ context, control, endpoints, answerListeners, baseUrl });
	const stops = modules.map((module) => module.start?.(context)).filter((stop) => typeof stop === 'function');
	const server = await listen(app, options);

	const url = baseUrlOf(server).replace(/\/api$/, '');
	return {
		url,
		baseUrl: `${url}/api`,
		adminKey: accountKey.key,
		context,
		control,
		observeAnswers: (listener) => {
			answerListeners.push(listener);
		},
		close: async () => {
			for (const stop of stops) await stop();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
			context.store.close();
		},
	};
}

function baseUrlOf(server: Server): string {
	const address = server.address() as AddressInfo;
	const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
	return `http://${host}:${address.port}/api`;
}
