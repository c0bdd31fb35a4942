import express from 'express';
import { createReceiver, type DeliveryEvent } from '../src';
import { runSendEvent } from '../src/sendEvent';
import { newSecret, serve, type RunningServer } from './helpers';

describe('mbb-send-event', () => {
  const secret = newSecret();
  const receiver = createReceiver({ secrets: secret, audience: 'hook_local' });
  const events: DeliveryEvent[] = [];
  receiver.onAny((event) => void events.push(event));
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve(express().post('/hooks', receiver.middleware()));
  });
  afterAll(() => server.close());

  async function run(...argv: string[]) {
    const lines: string[] = [];
    const code = await runSendEvent(argv, { out: (line) => lines.push(line), env: {} });
    await receiver.idle();
    return { code, output: lines.join('\n') };
  }

  it('sends a signed sample of each known kind that the receiver accepts and types', async () => {
    for (const type of ['subscriber.new', 'subscriber.stage', 'payment.success']) {
      const { code, output } = await run(`${server.url}/hooks`, '--secret', secret, '--type', type);
      expect(code).toBe(0);
      expect(output).toMatch(new RegExp(`^${type.replace('.', '\\.')} evt_\\w+ -> 200 `));
    }
    expect(events.slice(-3).map((event) => event.type)).toEqual(['subscriber.new', 'subscriber.stage', 'payment.success']);
  });

  it('repeats one delivery with --times and the receiver emits it once', async () => {
    const before = events.length;
    const { code, output } = await run(`${server.url}/hooks`, '--secret', secret, '--id', 'evt_cli_repeat', '--times', '3', '--scheme', 'standard-webhooks');
    expect(code).toBe(0);
    expect(output.match(/"duplicate":true/g)).toHaveLength(2);
    expect(events.length - before).toBe(1);
  });

  it('sends unknown kinds and merges --data', async () => {
    const { code } = await run(`${server.url}/hooks`, '--secret', secret, '--type', 'subscriber.tagged', '--data', '{"tag":"vip"}', '--scheme', 'jwt');
    expect(code).toBe(0);
    expect(events.at(-1)).toMatchObject({ type: 'subscriber.tagged', data: { tag: 'vip' } });
  });

  it('exits 1 when the receiver refuses, 2 on bad usage, and never prints the secret', async () => {
    const refused = await run(`${server.url}/hooks`, '--secret', newSecret());
    expect(refused.code).toBe(1);
    expect(refused.output).toMatch(/-> 401 .*invalid_signature/);
    const usage = await run(`${server.url}/hooks`, '--secret', 'whsec_tooshort');
    expect(usage.code).toBe(2);
    expect(usage.output).toMatch(/--secret is too short/);
    expect(usage.output).not.toContain('tooshort');
    expect((await run('--secret', secret)).code).toBe(2);
    const printed = await run(`${server.url}/hooks`, '--secret', secret, '--print');
    expect(printed.code).toBe(0);
    expect(printed.output).toContain('"x-signature"');
    expect(printed.output).not.toContain(secret.slice(6));
  });

  it('reads the secret from MBB_HOOK_SECRET and generates secrets', async () => {
    const lines: string[] = [];
    expect(await runSendEvent([`${server.url}/hooks`], { out: (line) => lines.push(line), env: { MBB_HOOK_SECRET: secret } })).toBe(0);
    const generated: string[] = [];
    expect(await runSendEvent(['--generate-secret'], { out: (line) => generated.push(line), env: {} })).toBe(0);
    expect(generated[0]).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});
