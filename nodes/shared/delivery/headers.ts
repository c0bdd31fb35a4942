/**
 * Longest `X-Signature` accepted (a delivery's JWT is under 1 kB). Over HTTP, Node refuses header sections above
 * 16 KiB; headers may also come from anywhere (`receive()`, `verifyDelivery()`, a proxy), so the cap is explicit.
 */
export const MAX_SIGNATURE_HEADER_LENGTH = 8192;

/** What the core needs of web `Headers` (declared here: the core does not assume the DOM or Node's types). */
export interface WebHeaders {
	get(name: string): string | null;
	entries(): unknown;
}

/** Request headers as web `Headers`, Node's `IncomingHttpHeaders`, or a plain record (any case). */
export type HeaderSource = WebHeaders | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads headers by lower-case name from any {@link HeaderSource}. */
export interface HeaderReader {
	get(name: string): string | undefined;
	/** All values of a header that may be repeated (Standard Webhooks signatures). */
	getAll(name: string): string[];
}

function isWebHeaders(source: HeaderSource): source is WebHeaders {
	return typeof (source as WebHeaders).get === 'function' && typeof (source as WebHeaders).entries === 'function';
}

export function readHeaders(source: HeaderSource): HeaderReader {
	if (isWebHeaders(source)) {
		return {
			get: (name) => source.get(name)?.trim() ?? undefined,
			getAll: (name) => {
				const value = source.get(name);
				return value === null ? [] : [value.trim()];
			},
		};
	}
	return new RecordHeaderReader(source, false);
}

/**
 * Node's `IncomingMessage.headers`: Node lower-cases every name, so a header that is not there under its lower-case
 * name is absent (a request without `X-Signature` is not indexed again to look for `x-SIGNATURE`).
 */
export function readNodeHeaders(
	source: Readonly<Record<string, string | readonly string[] | undefined>>,
): HeaderReader {
	return new RecordHeaderReader(source, true);
}

/** Node's `req.headers` already has lower-case names: look up directly; other records are indexed once, when needed. */
class RecordHeaderReader implements HeaderReader {
	readonly #source: Readonly<Record<string, string | readonly string[] | undefined>>;
	#lowerCased: Map<string, string | readonly string[]> | null | undefined;

	constructor(source: Readonly<Record<string, string | readonly string[] | undefined>>, lowerCaseNames: boolean) {
		this.#source = source;
		if (lowerCaseNames) this.#lowerCased = null;
	}

	// A repeated single-valued header is joined, which makes it unparseable on purpose.
	get(name: string): string | undefined {
		const value = this.#lookup(name);
		if (value === undefined || typeof value === 'string') return value?.trim();
		return value.length === 0 ? undefined : value.map((v) => v.trim()).join(', ');
	}

	getAll(name: string): string[] {
		const value = this.#lookup(name);
		if (value === undefined) return [];
		return typeof value === 'string' ? [value.trim()] : value.map((v) => v.trim());
	}

	#lookup(name: string): string | readonly string[] | undefined {
		const direct = this.#source[name];
		if (direct !== undefined) return direct;
		if (this.#lowerCased === undefined) {
			const source = this.#source;
			const keys = Object.keys(source);
			this.#lowerCased = keys.every((key) => key === key.toLowerCase())
				? null
				: new Map(keys.filter((key) => source[key] !== undefined).map((key) => [key.toLowerCase(), source[key]!]));
		}
		return this.#lowerCased?.get(name);
	}
}
