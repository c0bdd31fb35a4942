/** Request headers as web `Headers`, Node's `IncomingHttpHeaders`, or a plain record (any case). */
export type HeaderSource = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Reads headers by lower-case name from any {@link HeaderSource}. */
export interface HeaderReader {
  get(name: string): string | undefined;
  /** All values of a header that may be repeated (Standard Webhooks signatures). */
  getAll(name: string): string[];
}

function isWebHeaders(source: HeaderSource): source is Headers {
  return typeof (source as Headers).get === 'function' && typeof (source as Headers).entries === 'function';
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
  const lowerCased = new Map<string, string | readonly string[]>();
  for (const [key, value] of Object.entries(source)) {
    if (value !== undefined) lowerCased.set(key.toLowerCase(), value);
  }
  const values = (name: string): string[] => {
    const value = lowerCased.get(name);
    if (value === undefined) return [];
    return (typeof value === 'string' ? [value] : [...value]).map((v) => v.trim());
  };
  return {
    // A repeated single-valued header is joined, which makes it unparseable on purpose.
    get: (name) => {
      const all = values(name);
      return all.length === 0 ? undefined : all.join(', ');
    },
    getAll: values,
  };
}
