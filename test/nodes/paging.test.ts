import { fakeService } from '../support/fakeService';
import { byId, type NodeRunner } from '../support/nodeRun';

/**
 * Services whose paging the sandbox does not play: a method that ignores limit and offset, one
 * that ignores only offset, one that refuses large pages without naming its maximum, string ids.
 * Each is a small HTTP server answering /list/rows/get from a fixed set of records.
 */
interface FakeList {
	records: Array<Record<string, unknown>>;
	/** Builds the answer for one request. */
	answer(
		records: Array<Record<string, unknown>>,
		limit: number,
		offset: number,
	): { status: number; body: unknown; raw?: string };
}

const rows = (count: number, id: (n: number) => string | number = (n) => n + 1) =>
	Array.from({ length: count }, (_, n) => ({ id: id(n), values: [String(n)] }));

async function serve(
	list: FakeList,
): Promise<{ runner: NodeRunner; requests: Array<{ limit: number; offset: number }>; close(): Promise<void> }> {
	const requests: Array<{ limit: number; offset: number }> = [];
	const fake = await fakeService((_path, params) => {
		const limit = Number(params.limit ?? 20);
		const offset = Number(params.offset ?? 0);
		requests.push({ limit, offset });
		return list.answer(list.records, limit, offset);
	});
	return { runner: fake.runner, requests, close: fake.close };
}

const readAll = (runner: NodeRunner, returnAll = true, limit = 50) =>
	runner.json({ resource: 'listRow', operation: 'getMany', listId: byId(1), returnAll, limit, output: 'raw' });

describe('Return All against paging the sandbox does not play', () => {
	it('a method that answers everything at once (ignores limit and offset): every record once, no loop', async () => {
		const fake = await serve({ records: rows(2500), answer: (records) => ({ status: 200, body: { items: records } }) });
		try {
			const read = await readAll(fake.runner);
			expect(read.map((row) => row.id)).toEqual(rows(2500).map((row) => row.id));
			expect(fake.requests).toHaveLength(1);
			expect((await readAll(fake.runner, false, 7)).map((row) => row.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
		} finally {
			await fake.close();
		}
	});

	it('a method that honours limit but ignores offset: stops when a page starts over, nothing repeated', async () => {
		const fake = await serve({
			records: rows(30),
			answer: (records, limit) => ({ status: 200, body: records.slice(0, limit) }),
		});
		try {
			const read = await readAll(fake.runner);
			expect(read.map((row) => row.id)).toEqual(rows(30).map((row) => row.id));
			// Then asks for the page size it was served, from the last record read (to find it there again).
			expect(fake.requests).toEqual([
				{ limit: 1000, offset: 0 },
				{ limit: 30, offset: 29 },
			]);
		} finally {
			await fake.close();
		}
	});

	it('a 422 on limit without a maximum: the page is halved until served, the item does not fail, the size is remembered', async () => {
		const largest = 300;
		const fake = await serve({
			records: rows(1000, (n) => `row-${n}`),
			answer: (records, limit, offset) =>
				limit > largest
					? { status: 422, body: { code: 'invalid_param', error: 'limit is too large', param: 'limit' } }
					: { status: 200, body: { rows: records.slice(offset, offset + limit) } },
		});
		try {
			const read = await readAll(fake.runner);
			expect(read.map((row) => row.id)).toEqual(rows(1000, (n) => `row-${n}`).map((row) => row.id));
			// 1000 and 500 refused; pages of 250, each from the last record read (249 new ones), until only that
			// record comes back (no total): 250 + 3 × 249 + 3 = 1000.
			expect(fake.requests.map((request) => request.limit)).toEqual([1000, 500, 250, 250, 250, 250, 250, 250]);
			expect(fake.requests.map((request) => request.offset)).toEqual([0, 0, 0, 249, 498, 747, 996, 999]);
			fake.requests.length = 0;
			await readAll(fake.runner);
			expect(fake.requests[0].limit).toBe(250); // learned for this credential
		} finally {
			await fake.close();
		}
	});

	it('a short page is not the end without total; offset advances by what was received; string and number ids alike', async () => {
		const served = 37;
		const records = rows(1234, (n) => (n % 2 ? n + 1 : String(n + 1)));
		const fake = await serve({
			records,
			answer: (all, limit, offset) => ({
				status: 200,
				body: { items: all.slice(offset, offset + Math.min(limit, served)) },
			}),
		});
		try {
			const read = await readAll(fake.runner);
			expect(read.map((row) => row.values)).toEqual(records.map((row) => row.values));
			// Each page after the first starts at the last record read: 36 new records per page, then the last
			// record alone confirms the end.
			const offsets = [0];
			for (let read = served; read < records.length; read += served - 1) offsets.push(read - 1);
			offsets.push(records.length - 1);
			expect(fake.requests.map((request) => request.offset)).toEqual(offsets);
		} finally {
			await fake.close();
		}
	});

	it('pages that overlap (a list growing at the front while read): repeats dropped, nothing lost', async () => {
		const records = rows(100);
		const fake = await serve({
			records,
			// Every answer comes from a list one record longer at the front: page n starts one earlier.
			answer: (all, limit, offset) => {
				const grown = [
					...Array.from({ length: fake.requests.length - 1 }, (_, n) => ({ id: 1000 + n, values: ['new'] })).reverse(),
					...all,
				];
				return { status: 200, body: { items: grown.slice(offset, offset + Math.min(limit, 30)) } };
			},
		});
		try {
			const read = await readAll(fake.runner);
			const ids = read.map((row) => row.id);
			expect(new Set(ids).size).toBe(ids.length);
			for (const row of records) expect(ids).toContain(row.id);
		} finally {
			await fake.close();
		}
	});

	it('records removed before the part read (a list at its row cap dropping its oldest): the read starts again, nothing skipped', async () => {
		const records = rows(100);
		const fake = await serve({
			records,
			answer: (all, limit, offset) => {
				// Between the first and the second page a bot adds 5 rows to a list at its cap: the 5 oldest go.
				if (fake.requests.length === 2)
					all.push(...all.splice(0, 5).map((_, n) => ({ id: 1000 + n, values: ['new'] })));
				return { status: 200, body: { items: all.slice(offset, offset + Math.min(limit, 30)), total: all.length } };
			},
		});
		try {
			const read = await readAll(fake.runner);
			// Without the check, page 2 (offset 30) would have started at row 36: rows 31 to 35 skipped, and a
			// total still reached. Now the read starts again and puts out the list as it is, each row once.
			expect(read.map((row) => row.id)).toEqual([
				...rows(95, (n) => n + 6).map((row) => row.id),
				1000,
				1001,
				1002,
				1003,
				1004,
			]);
			expect(fake.requests.map((request) => request.offset).slice(0, 3)).toEqual([0, 29, 0]);
		} finally {
			await fake.close();
		}
	});

	it('records removed on every page, or without ids to read again by: the item fails, nothing is put out', async () => {
		const churning = await serve({
			records: rows(100),
			answer: (all, limit, offset) => {
				all.splice(0, 3);
				return { status: 200, body: { items: all.slice(offset, offset + Math.min(limit, 30)) } };
			},
		});
		const withoutIds = await serve({
			records: Array.from({ length: 100 }, (_, n) => ({ text: `entry ${n}` })),
			answer: (all, limit, offset) => {
				if (withoutIds.requests.length === 2) all.splice(0, 1);
				return { status: 200, body: { items: all.slice(offset, offset + Math.min(limit, 30)) } };
			},
		});
		try {
			for (const fake of [churning, withoutIds]) {
				const error = await fake.runner.failure({
					resource: 'listRow',
					operation: 'getMany',
					listId: byId(1),
					returnAll: true,
				});
				expect(error.message).toBe(
					'The records of /list/rows/get changed during the read: records were removed while it ran',
				);
			}
			// Read, found moved, read again twice: then it fails.
			expect(churning.requests.filter((request) => request.offset === 0)).toHaveLength(3);
			expect(withoutIds.requests.filter((request) => request.offset === 0)).toHaveLength(1);
		} finally {
			await churning.close();
			await withoutIds.close();
		}
	});

	it('records without id, some alike, under a silent page cap with total: every record read, none dropped as a repeat', async () => {
		// 70 log-like records without id; records 0, 30 and 60 are identical, so page 2 starts like page 1.
		const records = Array.from({ length: 70 }, (_, n) => ({ text: n % 30 === 0 ? 'same' : `entry ${n}` }));
		const fake = await serve({
			records,
			answer: (all, limit, offset) => ({
				status: 200,
				body: { items: all.slice(offset, offset + Math.min(limit, 30)), total: all.length },
			}),
		});
		try {
			const read = await readAll(fake.runner);
			expect(read).toEqual(records);
		} finally {
			await fake.close();
		}
	});

	it('a total that is an empty string is no total: a short page is confirmed, every record read', async () => {
		const records = Array.from({ length: 70 }, (_, n) => ({ id: n + 1 }));
		const fake = await serve({
			records,
			answer: (all, limit, offset) => ({
				status: 200,
				body: { items: all.slice(offset, offset + Math.min(limit, 30)), total: '' },
			}),
		});
		try {
			expect(await readAll(fake.runner)).toEqual(records);
		} finally {
			await fake.close();
		}
	});
	it('a total the read cannot reach (offset ignored, pages capped at 100, total 250): the item fails naming the shortfall, nothing is put out', async () => {
		const fake = await serve({
			records: rows(250),
			answer: (all, limit) => ({ status: 200, body: { items: all.slice(0, Math.min(limit, 100)), total: all.length } }),
		});
		try {
			const error = await fake.runner.failure({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(1),
				returnAll: true,
			});
			expect(error.message).toBe(
				'/list/rows/get returned 100 of the 250 records the service counts: the read is incomplete',
			);
			// With a Limit the total is no promise beyond it: 50 of 250 asked, 50 read.
			expect((await readAll(fake.runner, false, 50)).map((row) => row.id)).toEqual(rows(50).map((row) => row.id));
		} finally {
			await fake.close();
		}
	});

	it('an empty page before the total is reached fails the read instead of returning part of it', async () => {
		const fake = await serve({
			records: rows(90),
			answer: (all, limit, offset) => ({
				status: 200,
				body: { items: offset >= 60 ? [] : all.slice(offset, offset + Math.min(limit, 30)), total: all.length },
			}),
		});
		try {
			const error = await fake.runner.failure({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(1),
				returnAll: true,
			});
			// Pages of 30 from the last record read: 30 + 29 + 29 records, then an empty page at offset 87.
			expect(error.message).toBe(
				'/list/rows/get returned 88 of the 90 records the service counts: the read is incomplete',
			);
		} finally {
			await fake.close();
		}
	});

	it('records without id, a total, and a service that ignores offset: the repeated first page ends the read and the item fails, nothing is doubled', async () => {
		const records = Array.from({ length: 70 }, (_, n) => ({ text: `entry ${n}` }));
		const fake = await serve({
			records,
			answer: (all, limit) => ({ status: 200, body: { items: all.slice(0, Math.min(limit, 30)), total: all.length } }),
		});
		try {
			const error = await fake.runner.failure({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(1),
				returnAll: true,
			});
			expect(error.message).toBe(
				'/list/rows/get returned 30 of the 70 records the service counts: the read is incomplete',
			);
			expect(fake.requests.map((request) => request.offset)).toEqual([0, 29]);
		} finally {
			await fake.close();
		}
	});
	it('an empty first page under a total above 0 fails the read: the service counts records it did not serve', async () => {
		const fake = await serve({
			records: rows(40),
			answer: (all) => ({ status: 200, body: { items: [], total: all.length } }),
		});
		try {
			const error = await fake.runner.failure({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(1),
				returnAll: true,
			});
			expect(error.message).toBe(
				'/list/rows/get returned 0 of the 40 records the service counts: the read is incomplete',
			);
			const limited = await fake.runner.failure({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(1),
				returnAll: false,
				limit: 5,
			});
			expect(limited.message).toBe(
				'/list/rows/get returned 0 of the 5 records the service counts: the read is incomplete',
			);
		} finally {
			await fake.close();
		}
	});

	it('answers whose list cannot be found fail naming why; an empty list said as null or an answer with no list at all is empty', async () => {
		const shapes: Array<[unknown, string | number]> = [
			[
				{ data: { items: rows(3), total: 3 } },
				'The answer of /list/rows/get holds its list inside "data" instead of at its top level: it cannot be read as an empty list',
			],
			[{ items: 'none' }, 'The answer of /list/rows/get has "items" that is not a list'],
			[{ rows: rows(2), archived: rows(1) }, 2],
			[
				{ first: rows(2), second: rows(1) },
				'The answer of /list/rows/get holds several lists and none is called rows or items: the records cannot be told apart',
			],
			[
				'<html>maintenance</html>',
				'The answer of /list/rows/get is a string, not a JSON object: no list of records in it',
			],
			[{ items: null, total: 0 }, 0],
			[{ total: 0 }, 0],
			[{}, 0],
		];
		for (const [body, expected] of shapes) {
			const fake = await serve({ records: [], answer: () => ({ status: 200, body }) });
			try {
				const parameters = { resource: 'listRow', operation: 'getMany', listId: byId(1), returnAll: true };
				if (typeof expected === 'string')
					expect([body, (await fake.runner.failure(parameters)).message]).toEqual([body, expected]);
				else expect([body, (await fake.runner.json(parameters)).length]).toEqual([body, expected]);
			} finally {
				await fake.close();
			}
		}
	});

	it('a list read in one answer (Get Many lists) fails the same way instead of putting out no lists', async () => {
		const fake = await fakeService(() => ({ status: 200, body: { data: { items: [{ id: 1, name: 'Orders' }] } } }));
		try {
			const error = await fake.runner.failure({ resource: 'list', operation: 'getMany' });
			expect(error.message).toBe(
				'The service\'s answer holds its list inside "data" instead of at its top level: it cannot be read as an empty list',
			);
		} finally {
			await fake.close();
		}
	});

	it('number ids past 2^53 (rounded when parsed, two records may share one): no record is dropped as a repeat', async () => {
		// Pages of at most 2 of 5 rows whose ids differ only past 2^53; JSON.parse reads 2^53 + 1 as 2^53.
		const ids = ['9007199254740992', '9007199254740993', '9007199254740994', '9007199254740995', '9007199254740996'];
		const fake = await serve({
			records: [],
			answer: (_all, limit, offset) => {
				const page = ids
					.slice(offset, offset + Math.min(limit, 2))
					.map((id) => `{"id":${id},"values":["${id.slice(-2)}"]}`);
				return { status: 200, body: undefined, raw: `{"items":[${page.join(',')}]}` };
			},
		});
		try {
			const read = await readAll(fake.runner);
			expect(read.map((row) => (row.values as string[])[0])).toEqual(['92', '93', '94', '95', '96']);
		} finally {
			await fake.close();
		}
	});
});
