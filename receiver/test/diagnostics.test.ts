import { createHash, createHmac } from 'node:crypto';
import { createReceiver, DeliveryError, sampleEvent, type DeliveryEvent } from '../src';
import { jwtOnly, newSecret, signedDelivery, standardWebhooksOnly } from './helpers';

/**
 * What a developer learns from a refusal: the clock difference, or a body changed on its way, in `onError` (with no
 * event) or the log, and never in the answer the sender reads.
 */
const secret = newSecret();
const NOW = 1_800_000_000;

function receiverWithErrors(now = NOW) {
  const errors: [unknown, DeliveryEvent | undefined][] = [];
  const receiver = createReceiver({ secrets: secret, now, dedupe: false }).onError((error, event) => void errors.push([error, event]));
  return { receiver, errors };
}

describe('diagnostics of refused deliveries', () => {
  it.each([
    ['Standard Webhooks signed 400 s before this clock', standardWebhooksOnly, -400, 'timestamp_out_of_tolerance', /webhook-timestamp is 400 s behind this server's clock/],
    ['Standard Webhooks signed 7200 s after this clock', standardWebhooksOnly, 7200, 'timestamp_out_of_tolerance', /webhook-timestamp is 7200 s ahead of this server's clock.*a clock is wrong/],
    ['a JWT issued 400 s before this clock', jwtOnly, -400, 'expired', /"iat" is 400 s behind this server's clock/],
    ['a JWT issued 60 s after this clock', jwtOnly, 60, 'not_yet_valid', /"iat" is 60 s ahead of this server's clock/],
  ])('%s: onError learns by how many seconds the clocks differ; the answer does not', async (_what, pick, offset, code, diagnostic) => {
    const { receiver, errors } = receiverWithErrors();
    const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW + offset });
    const answer = await receiver.receive({ method: 'POST', headers: pick(delivery.headers), body: delivery.body });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toEqual({ code, error: expect.any(String) });
    expect(answer.body).not.toMatch(/behind|ahead|clock/);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
    const [error, event] = errors[0];
    expect(event).toBeUndefined();
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ code, clockDifferenceSeconds: offset });
    expect((error as DeliveryError).diagnostic).toMatch(diagnostic);
  });

  it('a JWT whose "nbf" lies 60 s after this clock (its "iat" is now): the diagnostic names "nbf", not "iat"', async () => {
    const { receiver, errors } = receiverWithErrors();
    const body = JSON.stringify(sampleEvent('subscriber.new', { id: 'evt_nbf', hook: 'hook_1' }));
    const b64u = (value: string | Buffer) => Buffer.from(value).toString('base64url');
    const claims = { iss: 'messenger-bot-builder', aud: 'hook_1', iat: NOW, nbf: NOW + 60, exp: NOW + 300, evt: 'evt_nbf', body_sha256: createHash('sha256').update(body).digest('base64url') };
    const input = `${b64u(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64u(JSON.stringify(claims))}`;
    const token = `${input}.${b64u(createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64')).update(input).digest())}`;
    const answer = await receiver.receive({ method: 'POST', headers: { 'content-type': 'application/json', 'x-signature': token }, body });
    expect(JSON.parse(answer.body)).toEqual({ code: 'not_yet_valid', error: 'JWT "nbf" lies in the future' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(1);
    const error = errors[0][0] as DeliveryError;
    expect(error).toMatchObject({ code: 'not_yet_valid', clockDifferenceSeconds: 60 });
    expect(error.diagnostic).toMatch(/^The JWT's "nbf" is 60 s ahead of this server's clock/);
  });

  it('a refusal with nothing to act on (a wrong secret, a body for another event) reaches no error handler', async () => {
    const { receiver, errors } = receiverWithErrors();
    const delivery = await signedDelivery(newSecret(), 'subscriber.new', { timestamp: NOW });
    expect((await receiver.receive({ method: 'POST', headers: delivery.headers, body: 'not json' })).status).toBe(401);
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toHaveLength(0);
  });

  it('without an error handler, the diagnostic goes to the log', async () => {
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const receiver = createReceiver({ secrets: secret, now: NOW, dedupe: false });
      const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW - 1000 });
      expect((await receiver.receive({ method: 'POST', headers: standardWebhooksOnly(delivery.headers), body: delivery.body })).status).toBe(401);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatch(/^\[receiver\] refused a delivery \(timestamp_out_of_tolerance\): webhook-timestamp is 1000 s behind/);
    } finally {
      warn.mockRestore();
    }
  });

  it('a genuine JWT over bytes that changed on the way (pretty-printed) says so, and how to fix it', async () => {
    const { receiver, errors } = receiverWithErrors();
    const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW });
    const changed = JSON.stringify(JSON.parse(delivery.body), null, 2);
    const answer = await receiver.receive({ method: 'POST', headers: jwtOnly(delivery.headers), body: changed });
    expect(JSON.parse(answer.body).code).toBe('body_hash_mismatch');
    await new Promise((resolve) => setImmediate(resolve));
    expect((errors[0][0] as DeliveryError).diagnostic).toMatch(new RegExp(`event ${delivery.id}.*JSON body parser.*captureRawBody`));
  });
});
