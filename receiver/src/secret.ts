import { randomBytes } from 'node:crypto';

/** Prefix of every hook signing secret, as returned once by `/hook/create`. */
export const HOOK_SECRET_PREFIX = 'whsec_';

/** A new hook signing secret: `whsec_` + base64 of 32 random bytes. */
export function generateHookSecret(): string {
  return HOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * The key bytes of a hook secret (the base64 after `whsec_`).
 * `parameter` names the option in the error; the secret itself never appears in it.
 */
export function decodeHookSecret(secret: string, parameter = 'secret'): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(HOOK_SECRET_PREFIX)) {
    throw new TypeError(`${parameter} must be a hook secret of the form "whsec_<base64>"`);
  }
  const encoded = secret.slice(HOOK_SECRET_PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new TypeError(`${parameter} must be a hook secret of the form "whsec_<base64>" (the part after "whsec_" is not base64)`);
  }
  const bytes = Buffer.from(encoded, 'base64');
  if (bytes.length < 16) {
    throw new TypeError(`${parameter} is too short: a hook secret carries at least 16 bytes (32 are generated)`);
  }
  return bytes;
}
