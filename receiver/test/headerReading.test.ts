import { readHeaders, readNodeHeaders } from '../../nodes/shared/delivery';

/** Reading a delivery's headers from a Fetch `Headers`, a plain object and Node's `IncomingHttpHeaders`. */

describe('reading headers', () => {
	it('web Headers: values trimmed, a missing header is undefined or no value', () => {
		const headers = readHeaders(new Headers({ 'X-Signature': ' token ', 'Webhook-Signature': ' v1,a ' }));
		expect(headers.get('x-signature')).toBe('token');
		expect(headers.get('webhook-id')).toBeUndefined();
		expect(headers.getAll('webhook-signature')).toEqual(['v1,a']);
		expect(headers.getAll('webhook-id')).toEqual([]);
	});

	it('a record: any case, values trimmed, repeated values joined for get and listed for getAll', () => {
		const headers = readHeaders({
			'X-Signature': ' token ',
			'Webhook-Signature': [' v1,a', 'v1,b '],
			'Webhook-Id': [],
		});
		expect(headers.get('x-signature')).toBe('token');
		expect(headers.get('webhook-signature')).toBe('v1,a, v1,b');
		expect(headers.getAll('webhook-signature')).toEqual(['v1,a', 'v1,b']);
		expect(headers.getAll('x-signature')).toEqual(['token']);
		expect(headers.get('webhook-id')).toBeUndefined();
		expect(headers.getAll('webhook-id')).toEqual([]);
		expect(headers.get('webhook-timestamp')).toBeUndefined();
		expect(headers.getAll('webhook-timestamp')).toEqual([]);
	});

	it('a record in lower case is read directly; a name whose value is undefined does not hide another spelling', () => {
		const lower = readHeaders({ 'x-signature': ' t ', 'webhook-id': undefined });
		expect([lower.get('x-signature'), lower.get('webhook-id'), lower.get('X-Signature')]).toEqual([
			't',
			undefined,
			undefined,
		]);
		const mixed = readHeaders({ 'X-SIGNATURE': 'kept', 'X-Signature': undefined });
		expect(mixed.get('x-signature')).toBe('kept');
	});

	it("Node's headers (names lower-cased by Node): read by lower-case name only, values trimmed, repeated values listed", () => {
		const headers = readNodeHeaders({
			'x-signature': ' t ',
			'webhook-signature': [' v1,a', 'v1,b '],
			'X-Other': 'mixed',
		});
		expect([headers.get('x-signature'), headers.get('webhook-signature'), headers.getAll('webhook-signature')]).toEqual(
			['t', 'v1,a, v1,b', ['v1,a', 'v1,b']],
		);
		// Not indexed again under other spellings: a name Node would have lower-cased is absent.
		expect([headers.get('x-other'), headers.getAll('x-other'), headers.get('webhook-id')]).toEqual([
			undefined,
			[],
			undefined,
		]);
		expect(readHeaders({ 'X-Other': 'mixed' }).get('x-other')).toBe('mixed');
	});

	it('a Headers-like object of another implementation: its values are trimmed too', () => {
		const values: Record<string, string> = { 'x-signature': ' token ', 'webhook-signature': ' v1,a ' };
		const headersLike = { get: (name: string) => values[name] ?? null, entries: () => Object.entries(values) };
		const headers = readHeaders(headersLike);
		expect([headers.get('x-signature'), headers.get('webhook-id')]).toEqual(['token', undefined]);
		expect([headers.getAll('webhook-signature'), headers.getAll('webhook-id')]).toEqual([['v1,a'], []]);
	});

	it('a record with one lower-case and one mixed-case name finds both', () => {
		const headers = readHeaders({ 'x-signature': 't', 'Webhook-Id': 'id' });
		expect([headers.get('x-signature'), headers.get('webhook-id'), headers.getAll('webhook-id')]).toEqual([
			't',
			'id',
			['id'],
		]);
	});

	it('an object whose get is not a function is a record, even with entries', () => {
		const record = readHeaders({ get: 'x', entries: () => [], 'x-signature': 'token' } as unknown as Record<
			string,
			string
		>);
		expect(record.get('x-signature')).toBe('token');
	});

	it('an object with a get method but no entries is a record, not web Headers', () => {
		const record = readHeaders({ get: 'not a function', 'x-signature': 'token' } as unknown as Record<string, string>);
		expect(record.get('x-signature')).toBe('token');
		const halfHeaders = { get: () => 'from get', 'x-signature': 'from record' } as unknown as Record<string, string>;
		expect(readHeaders(halfHeaders).get('x-signature')).toBe('from record');
	});
});
