import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateHookSecret, sampleEvent, signDelivery, type SampleEventOptions } from '../src';

export const HOOK_ID = 'hook_test';

export interface SignedDelivery {
  id: string;
  body: string;
  headers: Record<string, string>;
}

/** A sample event of `type`, serialized and signed like the service does (both schemes). */
export async function signedDelivery(
  secret: string,
  type = 'subscriber.new',
  options: SampleEventOptions & { timestamp?: number } = {},
): Promise<SignedDelivery> {
  const event = sampleEvent(type, { hook: HOOK_ID, ...options });
  const body = JSON.stringify(event);
  const signature = await signDelivery({ body, eventId: event.id, hookId: event.hook, secret, timestamp: options.timestamp });
  return { id: event.id, body, headers: { 'content-type': 'application/json', ...signature } };
}

export const jwtOnly = ({ 'x-signature': jwt, 'content-type': type }: Record<string, string>) => ({ 'content-type': type, 'x-signature': jwt });
export const standardWebhooksOnly = ({ 'x-signature': _jwt, ...rest }: Record<string, string>) => rest;

export function newSecret(): string {
  return generateHookSecret();
}

export interface RunningServer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Serves `listener` on 127.0.0.1 on a free port. */
export async function serve(listener: RequestListener): Promise<RunningServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `condition` until it holds (or fails after `timeoutMs`). */
export async function eventually(condition: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
