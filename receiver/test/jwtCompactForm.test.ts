import fc from 'fast-check';
import {
  decodeCanonicalBase64url,
  decodeCanonicalBase64urlBinary,
  isDeliveryError,
  runSteps,
  verifyJwt,
  type JwtKeys,
} from '../../nodes/MessengerBotBuilderTrigger/delivery/core';
import { propertyRuns } from './propertyRuns';

/**
 * The compact-form check of the delivery JWT reads no alphabet in JavaScript where `atob` or the header cache already
 * did: held here to the plain rule it replaces, on random and adversarial texts (padding, the standard alphabet,
 * whitespace, non-ASCII, dots, empty and long segments).
 */

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const BASE64URL_TEXT = /^[A-Za-z0-9_-]*$/;
const b64url = (text: string) => Buffer.from(text).toString('base64url');

const adversarialCharacter = fc.oneof(
  fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'),
  fc.constantFrom('+', '/', '=', ' ', '\t', '\n', '\f', '\r', '\v', '.', '\u00a0', '\u00e9', '\u6771', '\ud83c', '\0', '%'),
);
const adversarialSegment = fc.oneof(
  fc.array(adversarialCharacter, { maxLength: 12 }).map((characters) => characters.join('')),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('base64url')),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('base64')),
  fc
    .tuple(fc.uint8Array({ maxLength: 300 }), fc.nat(), adversarialCharacter)
    .map(([bytes, at, character]) => {
      const text = Buffer.from(bytes).toString('base64url');
      const i = text.length === 0 ? 0 : at % (text.length + 1);
      return text.slice(0, i) + character + text.slice(i);
    }),
  fc.constantFrom(b64url('{"alg":"HS256","typ":"JWT"}'), b64url('{"alg":"ES256","typ":"JWT","kid":"k"}'), b64url('{"iat":1,"exp":2,"evt":"e","body_sha256":"x"}'), ''),
);

describe('base64url of a JWT segment through atob', () => {
  it('decodes exactly what the byte decoder decodes, and refuses every other text', () => {
    fc.assert(
      fc.property(adversarialSegment, (text) => {
        const expected = BASE64URL_TEXT.test(text) ? decodeCanonicalBase64url(text) : undefined;
        const binary = decodeCanonicalBase64urlBinary(text);
        expect(binary === undefined ? undefined : [...binary].map((character) => character.charCodeAt(0))).toEqual(
          expected === undefined ? undefined : [...expected],
        );
      }),
      { numRuns: propertyRuns(20000) },
    );
  });
});

describe('compact form of the delivery JWT', () => {
  const keys: JwtKeys = {
    algorithms: ['HS256', 'ES256'],
    secrets: [],
    keyCache: undefined as unknown as JwtKeys['keyCache'],
    now: 10,
    clockSkewSeconds: 0,
    toleranceSeconds: 300,
  };
  const refusal = (token: string) => {
    try {
      runSteps(verifyJwt(token, keys));
    } catch (error) {
      if (isDeliveryError(error)) return `${error.code}: ${error.message}`;
      throw error;
    }
    throw new Error(`${token} was accepted`);
  };

  it('refuses a token as not compact exactly when it is not three base64url segments, the first two not empty', () => {
    const token = fc.oneof(
      fc.tuple(adversarialSegment, adversarialSegment, adversarialSegment).map((segments) => segments.join('.')),
      fc.array(adversarialSegment, { maxLength: 5 }).map((segments) => segments.join('.')),
    );
    let notCompact = 0;
    fc.assert(
      fc.property(token, (text) => {
        const expected = !COMPACT_JWS.test(text);
        if (expected) notCompact += 1;
        expect([text, refusal(text) === 'malformed_signature: X-Signature is not a compact JWT']).toEqual([text, expected]);
      }),
      { numRuns: propertyRuns(20000) },
    );
    // Both verdicts were drawn many times.
    expect(notCompact).toBeGreaterThan(propertyRuns(20000) / 10);
    expect(propertyRuns(20000) - notCompact).toBeGreaterThan(propertyRuns(20000) / 50);
  });
});
