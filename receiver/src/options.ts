import { createLocalJWKSet, createRemoteJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { createSecretKey, type KeyObject } from 'node:crypto';
import { decodeHookSecret } from './secret';

export const SYMMETRIC_ALGORITHMS = ['HS256'] as const;
export const ASYMMETRIC_ALGORITHMS = ['ES256', 'EdDSA'] as const;
export type DeliveryAlgorithm = (typeof SYMMETRIC_ALGORITHMS)[number] | (typeof ASYMMETRIC_ALGORITHMS)[number];
export type SignatureScheme = 'jwt' | 'standard-webhooks';

export const DEFAULT_TOLERANCE_SECONDS = 300;
export const DEFAULT_CLOCK_SKEW_SECONDS = 5;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Unix seconds, or a function returning them (a clock). */
export type Clock = number | (() => number);

export interface VerifyOptions {
  /** Hook secrets (`whsec_...`); several during a rotation: each one is tried. */
  secrets?: string | readonly string[];
  /** URL of the account's JWKS (ES256/EdDSA public keys); fetched by `jose` and cached. */
  jwksUrl?: string | URL;
  /** A JWKS given inline instead of `jwksUrl`. */
  jwks?: JSONWebKeySet;
  /** How long a fetched key set is reused, in milliseconds (default 10 minutes). */
  jwksCacheMaxAgeMs?: number;
  /**
   * Allowed JWT algorithms. Default: `HS256` with secrets only; `ES256` and `EdDSA` when a key set is configured.
   * `none` is never allowed, nor HS* together with a key set.
   */
  algorithms?: readonly DeliveryAlgorithm[];
  /** Signature schemes accepted (default both). When `X-Signature` is present and `jwt` is accepted, it decides. */
  schemes?: readonly SignatureScheme[];
  /** Accepted hook ids: the JWT `aud`, or the body's `hook` for Standard Webhooks. */
  audience?: string | readonly string[];
  /** Required JWT `iss`, if set. */
  issuer?: string;
  /** Maximum age of a signature (JWT `iat`, Standard Webhooks timestamp), in seconds. Default 300. */
  toleranceSeconds?: number;
  /** Allowed clock difference with the sender for JWT `exp`/`iat`, in seconds. Default 5. */
  clockSkewSeconds?: number;
  /** Largest accepted body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** The current time in unix seconds (for tests and replaying recorded deliveries). Default: the system clock. */
  now?: Clock;
}

/** Options checked once and turned into keys, ready for many verifications. */
export interface ResolvedVerifyOptions {
  hmacSecrets: KeyObject[];
  keySet?: JWTVerifyGetKey;
  algorithms: DeliveryAlgorithm[];
  jwtEnabled: boolean;
  standardWebhooksEnabled: boolean;
  audience?: string[];
  issuer?: string;
  toleranceSeconds: number;
  clockSkewSeconds: number;
  maxBodyBytes: number;
  now: () => number;
}

const ALL_ALGORITHMS: readonly string[] = [...SYMMETRIC_ALGORITHMS, ...ASYMMETRIC_ALGORITHMS];

function asList<T>(value: T | readonly T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? [...(value as readonly T[])] : [value as T];
}

function positiveNumber(value: number | undefined, fallback: number, parameter: string, allowZero = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new TypeError(`${parameter} must be a ${allowZero ? 'non-negative' : 'positive'} number`);
  }
  return value;
}

export function resolveClock(now: Clock | undefined, parameter = 'now'): () => number {
  if (now === undefined) return () => Date.now() / 1000;
  if (typeof now === 'function') return now;
  if (typeof now !== 'number' || !Number.isFinite(now)) throw new TypeError(`${parameter} must be unix seconds or a function returning them`);
  return () => now;
}

function resolveKeySet(options: VerifyOptions): JWTVerifyGetKey | undefined {
  if (options.jwks && options.jwksUrl) throw new TypeError('Give either jwks or jwksUrl, not both');
  if (options.jwks) {
    if (!Array.isArray(options.jwks.keys)) throw new TypeError('jwks must be a JSON Web Key Set: { keys: [...] }');
    return createLocalJWKSet(options.jwks);
  }
  if (options.jwksUrl) {
    let url: URL;
    try {
      url = new URL(options.jwksUrl);
    } catch {
      throw new TypeError('jwksUrl must be an absolute http(s) URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('jwksUrl must be an absolute http(s) URL');
    return createRemoteJWKSet(url, { cacheMaxAge: positiveNumber(options.jwksCacheMaxAgeMs, 10 * 60_000, 'jwksCacheMaxAgeMs') });
  }
  return undefined;
}

function resolveAlgorithms(options: VerifyOptions, hasSecrets: boolean, hasKeySet: boolean): DeliveryAlgorithm[] {
  if (options.algorithms === undefined) {
    return hasKeySet ? [...ASYMMETRIC_ALGORITHMS] : hasSecrets ? [...SYMMETRIC_ALGORITHMS] : [];
  }
  const algorithms = asList(options.algorithms);
  for (const alg of algorithms) {
    if (!ALL_ALGORITHMS.includes(alg)) {
      throw new TypeError(`algorithms: "${String(alg)}" is not supported (use ${ALL_ALGORITHMS.join(', ')})`);
    }
    const symmetric = (SYMMETRIC_ALGORITHMS as readonly string[]).includes(alg);
    if (symmetric && hasKeySet) {
      throw new TypeError(`algorithms: ${alg} cannot be allowed together with jwks/jwksUrl (public keys are never HMAC secrets)`);
    }
    if (symmetric && !hasSecrets) throw new TypeError(`algorithms: ${alg} needs secrets`);
    if (!symmetric && !hasKeySet) throw new TypeError(`algorithms: ${alg} needs jwks or jwksUrl`);
  }
  return algorithms;
}

export function resolveVerifyOptions(options: VerifyOptions): ResolvedVerifyOptions {
  if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
  const secretBytes = asList(options.secrets).map((secret, index) => decodeHookSecret(secret, `secrets[${index}]`));
  const hmacSecrets = secretBytes.map((bytes) => createSecretKey(bytes));
  const keySet = resolveKeySet(options);
  if (hmacSecrets.length === 0 && !keySet) throw new TypeError('Configure at least one of secrets, jwks or jwksUrl');
  const algorithms = resolveAlgorithms(options, hmacSecrets.length > 0, keySet !== undefined);

  const schemes = options.schemes === undefined ? ['jwt', 'standard-webhooks'] : asList(options.schemes);
  for (const scheme of schemes) {
    if (scheme !== 'jwt' && scheme !== 'standard-webhooks') throw new TypeError(`schemes: unknown scheme "${String(scheme)}"`);
  }
  const jwtEnabled = schemes.includes('jwt') && algorithms.length > 0;
  const standardWebhooksEnabled = schemes.includes('standard-webhooks') && hmacSecrets.length > 0;
  if (!jwtEnabled && !standardWebhooksEnabled) throw new TypeError('schemes: no accepted scheme can be verified with the given keys');

  const audience = options.audience === undefined ? undefined : asList(options.audience);
  if (audience && (audience.length === 0 || audience.some((a) => typeof a !== 'string' || a === ''))) {
    throw new TypeError('audience must be a hook id or a non-empty list of hook ids');
  }
  if (options.issuer !== undefined && (typeof options.issuer !== 'string' || options.issuer === '')) {
    throw new TypeError('issuer must be a non-empty string');
  }

  return {
    hmacSecrets,
    keySet,
    algorithms,
    jwtEnabled,
    standardWebhooksEnabled,
    audience,
    issuer: options.issuer,
    toleranceSeconds: positiveNumber(options.toleranceSeconds, DEFAULT_TOLERANCE_SECONDS, 'toleranceSeconds'),
    clockSkewSeconds: positiveNumber(options.clockSkewSeconds, DEFAULT_CLOCK_SKEW_SECONDS, 'clockSkewSeconds', true),
    maxBodyBytes: Math.floor(positiveNumber(options.maxBodyBytes, DEFAULT_MAX_BODY_BYTES, 'maxBodyBytes')),
    now: resolveClock(options.now),
  };
}
