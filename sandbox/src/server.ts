import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { modules } from './api';
import type { SandboxContext } from './api/endpoint';
import { Clock } from './clock';
import { resolveOptions, type SandboxOptions } from './config';
import { seedDirectory } from './domain/seed';
import { ensureAccountKey } from './domain/keys';
import { EventBus } from './events';
import { apiErrorHandler, apiRouter } from './http/app';
import { sandboxRoute } from './http/sandboxRoute';
import { Store } from './store';

export interface RunningSandbox {
  /** http://HOST:PORT */
  url: string;
  /** http://HOST:PORT/api: the base URL clients use. */
  baseUrl: string;
  /** The account key: every scope, every bot. */
  adminKey: string;
  context: SandboxContext;
  close(): Promise<void>;
}

/** Starts a sandbox: the whole service API on one HTTP server. */
export async function startSandbox(input: SandboxOptions = {}): Promise<RunningSandbox> {
  const options = resolveOptions(input);
  const store = new Store(options.dataFile);
  const clock = new Clock();
  const context: SandboxContext = { store, clock, options, events: new EventBus() };

  const shouldSeed = options.seed && !store.restored;
  const accountKey = ensureAccountKey(store, options.adminKey, clock.iso());
  if (shouldSeed) {
    seedDirectory(context);
    for (const module of modules) module.seed?.(context);
  }

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'extended');
  app.get('/', (_req, res) => {
    res.json({ service: 'messenger-bot-builder sandbox', api: `${baseUrlOf(server)}`, version: '2.0' });
  });
  app.post(
    '/sandbox/clock',
    ...sandboxRoute(context, (params) => {
      const seconds = params.number('advanceSeconds') ?? 0;
      clock.advance(seconds);
      return { now: clock.iso() };
    }),
  );
  for (const module of modules) module.mount?.(app, context);
  app.use('/api', apiRouter(context, modules.flatMap((module) => module.endpoints)));
  app.use(apiErrorHandler);
  app.use((_req, res) => {
    res.status(404).json({ code: 'not_found', error: 'Unknown path' });
  });

  const stops = modules.map((module) => module.start?.(context)).filter((stop) => typeof stop === 'function');

  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port, options.host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  server.keepAliveTimeout = 5000;

  const url = baseUrlOf(server).replace(/\/api$/, '');
  return {
    url,
    baseUrl: `${url}/api`,
    adminKey: accountKey.key,
    context,
    close: async () => {
      for (const stop of stops) await stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      store.close();
    },
  };
}

function baseUrlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}/api`;
}
