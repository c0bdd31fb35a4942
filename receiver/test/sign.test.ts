import { createHmac, generateKeyPairSync } from 'node:crypto';
import { decodeProtectedHeader, jwtVerify, createLocalJWKSet, exportJWK } from 'jose';
import { generateHookSecret, signDelivery } from '../src';
import { bodySha256 } from '../src/digest';

const body = JSON.stringify({ id: 'evt_1', type: 'subscriber.new', created: '2026-11-21T10:00:00.000Z', hook: 'hook_1', data: {} });

describe('signDelivery', () => {
  it('signs an HS256 JWT keyed by the secret bytes with the contract claims', async () => {
    const secret = generateHookSecret();
    const headers = await signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret, timestamp: 1795000000, attemptId: 'att_1' });
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const { payload, protectedHeader } = await jwtVerify(headers['x-signature'], key, {
      algorithms: ['HS256'],
      currentDate: new Date(1795000010 * 1000),
    });
    expect(protectedHeader).toEqual({ alg: 'HS256', kid: 'hook_1', typ: 'JWT' });
    expect(payload).toEqual({
      iss: 'messenger-bot-builder',
      aud: 'hook_1',
      iat: 1795000000,
      exp: 1795000300,
      jti: 'att_1',
      evt: 'evt_1',
      body_sha256: bodySha256(body),
    });
  });

  it('signs Standard Webhooks headers as v1,base64(HMAC(secret bytes, id.timestamp.body))', async () => {
    const secret = generateHookSecret();
    const headers = await signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret, timestamp: 1795000000 });
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`evt_1.1795000000.${body}`).digest('base64');
    expect(headers['webhook-id']).toBe('evt_1');
    expect(headers['webhook-timestamp']).toBe('1795000000');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it.each(['ES256', 'EdDSA'] as const)('signs with an asymmetric %s key and its kid', async (alg) => {
    const { privateKey, publicKey } = alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'key_1', alg };
    const headers = await signDelivery({
      body, eventId: 'evt_1', hookId: 'hook_1', secret: generateHookSecret(), jwtKey: { alg, kid: 'key_1', privateKey },
    });
    expect(decodeProtectedHeader(headers['x-signature'])).toEqual({ alg, kid: 'key_1', typ: 'JWT' });
    const { payload } = await jwtVerify(headers['x-signature'], createLocalJWKSet({ keys: [jwk] }), { algorithms: [alg] });
    expect(payload.evt).toBe('evt_1');
  });

  it('rejects a malformed secret without echoing it', async () => {
    await expect(signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret: 'not-a-secret-xyz' })).rejects.toThrow(
      /^secret must be a hook secret/,
    );
    await expect(signDelivery({ body, eventId: 'evt_1', hookId: 'hook_1', secret: 'not-a-secret-xyz' })).rejects.not.toThrow(/xyz/);
  });

  it('generates whsec_ secrets of 32 random bytes', () => {
    const a = generateHookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateHookSecret()).not.toBe(a);
  });
});
