import { createRemoteJWKSet } from 'jose';
import {
	ASYMMETRIC_ALGORITHMS,
	DEFAULT_CLOCK_SKEW_SECONDS,
	DEFAULT_MAX_BODY_BYTES,
	DEFAULT_TOLERANCE_SECONDS,
	localKeySet,
	positiveNumber,
	prepareVerifier,
	resolveClock,
	SYMMETRIC_ALGORITHMS,
	type Clock,
	type CoreVerifyOptions,
	type DeliveryAlgorithm,
	type KeySetSource,
	type PlatformCrypto,
	type PreparedVerifier,
	type PublicJwk,
	type SignatureScheme,
} from '../../nodes/shared/delivery';

export {
	ASYMMETRIC_ALGORITHMS,
	DEFAULT_CLOCK_SKEW_SECONDS,
	DEFAULT_MAX_BODY_BYTES,
	DEFAULT_TOLERANCE_SECONDS,
	positiveNumber,
	resolveClock,
	SYMMETRIC_ALGORITHMS,
};
export type { Clock, DeliveryAlgorithm, SignatureScheme };

export interface VerifyOptions extends Omit<CoreVerifyOptions, 'keySet'> {
	/** URL of the account's JWKS (ES256/EdDSA public keys); fetched by `jose` and cached. */
	jwksUrl?: string | URL;
	/** A JWKS given inline instead of `jwksUrl`. */
	jwks?: { keys: readonly unknown[] };
	/** How long a fetched key set is reused, in milliseconds (default 10 minutes). */
	jwksCacheMaxAgeMs?: number;
}

/** Options checked once and turned into keys, ready for many verifications. */
export type ResolvedVerifyOptions = PreparedVerifier;

/**
 * A remote key set: `jose` fetches it, caches it for `cacheMaxAge`, and refetches at most once per cooldown when a
 * JWT names a key it does not hold. Choosing the key and verifying are the core's.
 */
function remoteKeySet(url: URL, cacheMaxAge: number): KeySetSource {
	const remote = createRemoteJWKSet(url, { cacheMaxAge });
	const current = () => (remote.jwks()?.keys ?? []) as readonly PublicJwk[];
	return {
		keys: () => (remote.fresh ? current() : remote.reload().then(current)),
		refresh: () => (remote.coolingDown ? undefined : remote.reload().then(current)),
	};
}

function resolveKeySet(options: VerifyOptions): KeySetSource | undefined {
	if (options.jwks && options.jwksUrl) throw new TypeError('Give either jwks or jwksUrl, not both');
	if (options.jwks) return localKeySet(options.jwks);
	if (options.jwksUrl === undefined) return undefined;
	let url: URL;
	try {
		url = new URL(options.jwksUrl);
	} catch {
		throw new TypeError('jwksUrl must be an absolute http(s) URL');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:')
		throw new TypeError('jwksUrl must be an absolute http(s) URL');
	return remoteKeySet(url, positiveNumber(options.jwksCacheMaxAgeMs, 10 * 60_000, 'jwksCacheMaxAgeMs'));
}

export function resolveVerifyOptions(options: VerifyOptions, platform: PlatformCrypto): ResolvedVerifyOptions {
	if (options === null || typeof options !== 'object') throw new TypeError('options must be an object');
	const { jwks: _jwks, jwksUrl: _jwksUrl, jwksCacheMaxAgeMs: _maxAge, ...core } = options;
	return prepareVerifier({ ...core, keySet: resolveKeySet(options) }, platform);
}
