import { createPrivateKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { AsymmetricJwtKey } from '@messenger-bot-builder/receiver';
import type { Store } from '../store';

export type AsymmetricAlgorithm = AsymmetricJwtKey['alg'];

/** The account's key pair for ES256/EdDSA delivery JWTs, kept as JWK so it survives restarts. */
interface StoredSigningKey {
  kid: string;
  alg: AsymmetricAlgorithm;
  created: string;
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
}

interface SigningKeysState {
  keys: StoredSigningKey[];
}

function signingKeysState(store: Store): SigningKeysState {
  return store.slice<SigningKeysState>('signingKeys', () => ({ keys: [] }));
}

function generateKeyPair(alg: AsymmetricAlgorithm): { privateKey: KeyObject; publicKey: KeyObject } {
  return alg === 'ES256' ? generateKeyPairSync('ec', { namedCurve: 'P-256' }) : generateKeyPairSync('ed25519');
}

/** The account's key for `alg`, generated (and saved) the first time it is needed. */
export function ensureSigningKey(store: Store, alg: AsymmetricAlgorithm, nowIso: string): StoredSigningKey {
  const state = signingKeysState(store);
  let key = state.keys.find((candidate) => candidate.alg === alg);
  if (!key) {
    const pair = generateKeyPair(alg);
    key = {
      kid: `${alg.toLowerCase()}_${randomBytes(8).toString('hex')}`,
      alg,
      created: nowIso,
      privateJwk: pair.privateKey.export({ format: 'jwk' }),
      publicJwk: pair.publicKey.export({ format: 'jwk' }),
    };
    state.keys.push(key);
    store.changed();
  }
  return key;
}

/** What `signDelivery` needs to sign with the account's key for `alg`. */
export function jwtSigningKey(store: Store, alg: AsymmetricAlgorithm, nowIso: string): AsymmetricJwtKey {
  const key = ensureSigningKey(store, alg, nowIso);
  return { alg, kid: key.kid, privateKey: createPrivateKey({ key: key.privateJwk, format: 'jwk' }) };
}

/**
 * The public half of every key the account has had (a key used before a switch of algorithm
 * still verifies deliveries signed with it), as served at /.well-known/jwks.json.
 */
export function publicJwks(store: Store): { keys: JsonWebKey[] } {
  return {
    keys: signingKeysState(store).keys.map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.alg, use: 'sig' })),
  };
}
