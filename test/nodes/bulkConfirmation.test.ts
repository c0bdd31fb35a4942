import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { runMemory, runOfNode } from '../../nodes/MessengerBotBuilder/actions/common/runMemory';
import { fakeService } from '../support/fakeService';
import { autoMapColumns, byId, mapColumns, NODE_NAME } from '../support/nodeRun';
import { startTestBed } from '../support/sandbox';

const LIST = { id: 1, name: 'L', headers: ['N'], count: 0 };
const listAnswers = (path: string) => (path === '/list/all' ? { status: 200, body: { items: [LIST] } } : undefined);
const down = { status: 503, body: { code: 'unavailable', error: 'down for a moment' } };

/**
 * A bulk write is reported as done only as far as the service confirms it; and n8n's Retry On Fail,
 * which runs the whole node again after a failure, never sends again what already went through.
 */
describe('bulk writes report what the service confirms', () => {
	it('List Row → Add: an answer that confirms 3 of 5 rows fails the items of that request as "may have taken effect"', async () => {
		const fake = await fakeService(
			(path, params) =>
				listAnswers(path) ?? { status: 200, body: { count: 3, trimmed: false, echo: params.rows.length } },
		);
		try {
			const output = await fake.runner.json(
				{ resource: 'listRow', operation: 'add', listId: byId(1), columns: autoMapColumns },
				{ items: [1, 2, 3, 4, 5].map((n) => ({ N: `r${n}` })), continueOnFail: true },
			);
			expect(output).toEqual(
				Array.from({ length: 5 }, () => ({
					error: '/list/rows/add confirmed 3 of the 5 entries sent',
					details: expect.objectContaining({ code: 'unconfirmed', mayHaveTakenEffect: true }),
				})),
			);
			expect(fake.callsOf('/list/rows/add').map((call) => call.params.rows.length)).toEqual([5]);
		} finally {
			await fake.close();
		}
	});

	it('List Row → Add at the row cap: rows removed at once say kept: false, the others carry their ids', async () => {
		const bed = await startTestBed({ rateLimit: 0, rowCap: 3 });
		try {
			const { list } = await bed.api.call('/list/create', { name: 'Capped', headers: ['N'] });
			const output = await bed.node.json(
				{ resource: 'listRow', operation: 'add', listId: byId(list.id), columns: autoMapColumns },
				{ items: [1, 2, 3, 4, 5].map((n) => ({ N: `r${n}` })) },
			);
			const stored = (await bed.api.call('/list/rows/get', { listid: list.id, limit: 100 })).items as IDataObject[];
			expect(stored.map((row) => (row.row as IDataObject).N)).toEqual(['r3', 'r4', 'r5']);
			expect(output.map((item) => item.kept ?? true)).toEqual([false, false, true, true, true]);
			expect(output.slice(2).map((item) => item.id)).toEqual(stored.map((row) => row.id));
			expect(output.every((item) => item.trimmed === true)).toBe(true);
		} finally {
			await bed.close();
		}
	});

	it("Catalog Item → Create in bulk: fewer ids than items fails the request's items instead of putting out items without id", async () => {
		const fake = await fakeService(() => ({ status: 200, body: { id: [101, 102], result: 'ok' } }));
		try {
			const output = await fake.runner.json(
				{ resource: 'catalogItem', operation: 'create', webAppId: '1', fields: { title: '={{ $json.title }}' } },
				{ items: [{ title: 'a' }, { title: 'b' }, { title: 'c' }], continueOnFail: true },
			);
			expect(output.map((item) => item.error)).toEqual(
				Array.from({ length: 3 }, () => '/catalog/item/bulk/create confirmed 2 of the 3 entries sent'),
			);
		} finally {
			await fake.close();
		}
	});

	it('deletes and edits whose answer counts fewer than were sent (a row or item that was not there) fail their items instead of saying done', async () => {
		const fake = await fakeService((path, params) => {
			if (path === '/list/all') return listAnswers(path)!;
			if (path === '/list/row/delete')
				return { status: 200, body: { ok: true, deleted: params.rowids.length - 1, rowids: params.rowids.slice(1) } };
			if (path === '/catalog/item/bulk/edit')
				return { status: 200, body: { result: 'ok', updated: params.items.length - 1 } };
			return { status: 200, body: { result: 'ok', deleted: params.items.length - 1 } };
		});
		try {
			const rows = await fake.runner.json(
				{ resource: 'listRow', operation: 'delete', listId: byId(1), rowIds: '={{ $json.ids }}' },
				{ items: [{ ids: '5, 6' }, { ids: '999' }], continueOnFail: true },
			);
			expect(rows.map((item) => [item.error, (item.details as IDataObject)?.mayHaveTakenEffect])).toEqual([
				['/list/row/delete confirmed 2 of the 3 entries sent', true],
				['/list/row/delete confirmed 2 of the 3 entries sent', true],
			]);
			// One item alone goes through the same check: two row numbers sent, one deleted.
			const single = await fake.runner.json(
				{ resource: 'listRow', operation: 'delete', listId: byId(1), rowIds: '7, 8' },
				{ continueOnFail: true },
			);
			expect(single.map((item) => item.error)).toEqual(['/list/row/delete confirmed 1 of the 2 entries sent']);
			const edited = await fake.runner.json(
				{
					resource: 'catalogItem',
					operation: 'update',
					webAppId: '1',
					itemId: '={{ $json.id }}',
					fields: { hide: true },
				},
				{ items: [{ id: 1 }, { id: 2 }], continueOnFail: true },
			);
			expect(edited.map((item) => item.error)).toEqual(
				Array.from({ length: 2 }, () => '/catalog/item/bulk/edit confirmed 1 of the 2 entries sent'),
			);
			const deleted = await fake.runner.json(
				{ resource: 'catalogItem', operation: 'delete', itemId: '={{ $json.id }}' },
				{ items: [{ id: 1 }, { id: 2 }, { id: 3 }], continueOnFail: true },
			);
			expect(deleted.map((item) => item.error)).toEqual(
				Array.from({ length: 3 }, () => '/catalog/item/bulk/delete confirmed 2 of the 3 entries sent'),
			);
		} finally {
			await fake.close();
		}
	});
});

describe('List Row → Add: service columns', () => {
	it('rows sent in bulk carry the Service Columns values themselves, in the columns the list has and the row leaves empty', async () => {
		const list = { id: 2, name: 'Leads', headers: ['N', 'BotID', 'ClientID'], count: 0 };
		const fake = await fakeService((path, params) =>
			path === '/list/all'
				? { status: 200, body: { items: [list] } }
				: {
						status: 200,
						body: {
							rows: params.rows.map((row: IDataObject, n: number) => ({ id: n + 1, row })),
							count: params.rows.length,
						},
					},
		);
		try {
			await fake.runner.json(
				{
					resource: 'listRow',
					operation: 'add',
					listId: byId(2),
					columns: mapColumns({ N: '={{ $json.n }}', ClientID: '={{ $json.client }}' }),
					service: { botid: 'bot_tg', clientid: '555', messenger: 'telegram' },
				},
				{ items: [{ n: 'a' }, { n: 'b', client: '777' }] },
			);
			const [request] = fake.callsOf('/list/rows/add');
			// Messenger is not a column of this list; a ClientID the row gives stays.
			expect(request.params.rows).toEqual([
				{ N: 'a', BotID: 'bot_tg', ClientID: '555' },
				{ N: 'b', ClientID: '777', BotID: 'bot_tg' },
			]);
			// An empty cell ('' from an expression) is one the service would fill: it gets the value too.
			await fake.runner.json(
				{
					resource: 'listRow',
					operation: 'add',
					listId: byId(2),
					columns: mapColumns({ N: '={{ $json.n }}', ClientID: '={{ $json.client }}' }),
					service: { clientid: '555' },
				},
				{
					items: [
						{ n: 'c', client: '' },
						{ n: 'd', client: '' },
					],
				},
			);
			expect(fake.callsOf('/list/rows/add')[1].params.rows).toEqual([
				{ N: 'c', ClientID: '555' },
				{ N: 'd', ClientID: '555' },
			]);
		} finally {
			await fake.close();
		}
	});

	it('a key that may not read the lists: a single add asks nothing more; rows in bulk go as they are, with the parameters', async () => {
		const fake = await fakeService((path, params) =>
			path === '/list/all'
				? {
						status: 403,
						body: { code: 'forbidden', error: 'The API key lacks the scope lists:read', scope: 'lists:read' },
					}
				: path === '/list/row/add'
					? { status: 200, body: { row: { id: 1, row: params.row }, trimmed: false } }
					: {
							status: 200,
							body: {
								rows: params.rows.map((row: IDataObject, n: number) => ({ id: n + 1, row })),
								count: params.rows.length,
							},
						},
		);
		try {
			const parameters = {
				resource: 'listRow',
				operation: 'add',
				listId: byId(2),
				columns: mapColumns({ N: '={{ $json.n }}' }),
				service: { botid: 'bot_tg' },
			};
			const [single] = await fake.runner.json(parameters, { items: [{ n: 'a' }] });
			expect(single).toMatchObject({ id: 1, trimmed: false });
			expect(fake.calls.map((call) => call.path)).toEqual(['/list/row/add']);
			const bulk = await fake.runner.json(parameters, { items: [{ n: 'b' }, { n: 'c' }] });
			expect(bulk.map((item) => item.id)).toEqual([1, 2]);
			const request = fake.callsOf('/list/rows/add')[0];
			expect([request.params.botid, request.params.rows]).toEqual(['bot_tg', [{ N: 'b' }, { N: 'c' }]]);
		} finally {
			await fake.close();
		}
	});
});

describe('List Row → Add: ids of rows returned in another order', () => {
	it("a bulk answer whose rows are not in the order sent gives no item another row's id", async () => {
		const fake = await fakeService(
			(path, params) =>
				listAnswers(path) ?? {
					status: 200,
					body: {
						rows: params.rows.map((row: IDataObject, n: number) => ({ id: n + 1, row })).reverse(),
						count: params.rows.length,
						trimmed: false,
					},
				},
		);
		try {
			const output = await fake.runner.json(
				{ resource: 'listRow', operation: 'add', listId: byId(1), columns: mapColumns({ N: '={{ $json.n }}' }) },
				{ items: [{ n: 'a' }, { n: 'b' }, { n: 'c' }] },
			);
			expect(output).toEqual(['a', 'b', 'c'].map((n) => ({ row: { N: n }, added: true, trimmed: false })));
			// In order, each item carries its own row's id.
			const inOrder = await fakeService(
				(path, params) =>
					listAnswers(path) ?? {
						status: 200,
						body: {
							rows: params.rows.map((row: IDataObject, n: number) => ({
								id: 10 + n,
								row: { ...row, ...(row.CreationDate === '' ? { CreationDate: '27.11.2026 10:00' } : {}) },
							})),
							count: params.rows.length,
							trimmed: false,
						},
					},
			);
			try {
				const kept = await inOrder.runner.json(
					{ resource: 'listRow', operation: 'add', listId: byId(1), columns: mapColumns({ N: '={{ $json.n }}' }) },
					{ items: [{ n: 'a' }, { n: 'b' }, { n: 'c' }] },
				);
				expect(kept.map((item) => [item.id, (item.row as IDataObject).N])).toEqual([
					[10, 'a'],
					[11, 'b'],
					[12, 'c'],
				]);
				// A cell sent empty that the service filled (CreationDate) does not count as another order.
				const filled = await inOrder.runner.json(
					{
						resource: 'listRow',
						operation: 'add',
						listId: byId(1),
						columns: mapColumns({ N: '={{ $json.n }}', CreationDate: '' }),
					},
					{ items: [{ n: 'e' }, { n: 'f' }] },
				);
				expect(filled.map((item) => item.id)).toEqual([10, 11]);
			} finally {
				await inOrder.close();
			}
		} finally {
			await fake.close();
		}
	});
});

describe('an answer that says "ok": false', () => {
	it('fails the item with what the service said, for sends, starts and writes; the other items go on', async () => {
		const fake = await fakeService((_path, params) =>
			params.clientid === '2'
				? { status: 200, body: { ok: false, sent: 0, error: 'The subscriber blocked the bot', code: 'blocked' } }
				: { status: 200, body: { ok: true, sent: 1 } },
		);
		try {
			const output = await fake.runner.json(
				{ resource: 'message', operation: 'send', botId: byId('bot'), clientId: '={{ $json.to }}', text: 'hello' },
				{ items: [{ to: '1' }, { to: '2' }, { to: '3' }], continueOnFail: true },
			);
			// This service lists no bots, so the recipient's messenger is unknown.
			const sentTo = (clientid: string) => ({
				ok: true,
				sent: 1,
				recipient: { botid: 'bot', clientid, messenger: null },
				request: { text: 'hello' },
			});
			expect(output).toEqual([
				sentTo('1'),
				{
					error: '/message/send answered "ok": false: The subscriber blocked the bot [blocked]',
					details: expect.objectContaining({ code: 'blocked' }),
				},
				sentTo('3'),
			]);
			const started = await fake.runner.failure({
				resource: 'chain',
				operation: 'start',
				botId: byId('bot'),
				clientId: '2',
				chainCode: byId('welcome'),
			});
			expect(started.message).toBe('/chain/start answered "ok": false: The subscriber blocked the bot [blocked]');
		} finally {
			await fake.close();
		}
	});
});

describe("n8n's Retry On Fail sends nothing twice", () => {
	const refused = { status: 422, body: { code: 'invalid_param', error: 'Parameter "text" is wrong', param: 'text' } };
	const retried = (workflow: { nodes: object[] }) =>
		Object.assign(workflow.nodes[1], { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 });

	it('Message → Send: the retry after the third item was refused sends only the third', async () => {
		const fake = await fakeService((_path, _params, nth) =>
			nth === 3 ? refused : { status: 200, body: { ok: true } },
		);
		try {
			const workflow = fake.runner.workflow(
				{ resource: 'message', operation: 'send', botId: byId('bot'), clientId: '={{ $json.to }}', text: 'hello' },
				{ items: [{ to: '1' }, { to: '2' }, { to: '3' }] },
			);
			retried(workflow);
			const result = await fake.runner.harness.run(workflow);
			expect(result.nodeError(NODE_NAME)).toBeUndefined();
			expect(fake.callsOf('/message/send').map((call) => call.params.clientid)).toEqual(['1', '2', '3', '3']);
			expect(result.output(NODE_NAME).map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		} finally {
			await fake.close();
		}
	});

	it('Message → Send: an item whose send may have taken effect (a 5xx, no answer) is not sent again by any retry; the node fails saying so', async () => {
		const fake = await fakeService((_path, _params, nth) => (nth === 3 ? down : { status: 200, body: { ok: true } }));
		try {
			const workflow = fake.runner.workflow(
				{ resource: 'message', operation: 'send', botId: byId('bot'), clientId: '={{ $json.to }}', text: 'hello' },
				{ items: [{ to: '1' }, { to: '2' }, { to: '3' }, { to: '4' }] },
			);
			retried(workflow);
			const result = await fake.runner.harness.run(workflow);
			// Three tries of the node; the third item went out once, the fourth never (the node stops at the third).
			expect(fake.callsOf('/message/send').map((call) => call.params.clientid)).toEqual(['1', '2', '3']);
			const error = result.nodeError(NODE_NAME) as {
				message: string;
				description?: string;
				context: Record<string, unknown>;
			};
			expect(error.message).toBe('/message/send failed: down for a moment');
			expect(error.context).toEqual(expect.objectContaining({ mayHaveTakenEffect: true, itemIndex: 2 }));
			expect(error.description).toMatch(
				/may have taken effect\. It was not repeated automatically, so that nothing happens twice\..* Retry On Fail does not send it again either: check first, then run the item again if it did not take effect\.$/,
			);
			expect(error.description!.match(/Retry On Fail/g)).toHaveLength(1);
		} finally {
			await fake.close();
		}
	});

	/** 600 rows added in bulk (requests of 500 and 100) with Retry On Fail, the second request answered `second` once. */
	async function addInBulk(second: { status: number; body: unknown }) {
		const fake = await fakeService(
			(path, params, nth) =>
				listAnswers(path) ??
				(nth === 2
					? second
					: {
							status: 200,
							body: {
								rows: params.rows.map((row: IDataObject, n: number) => ({ id: n + 1, row })),
								count: params.rows.length,
							},
						}),
		);
		const workflow = fake.runner.workflow(
			{ resource: 'listRow', operation: 'add', listId: byId(1), columns: mapColumns({ N: '={{ $json.n }}' }) },
			{ items: Array.from({ length: 600 }, (_, n) => ({ n: String(n) })) },
		);
		retried(workflow);
		return { fake, result: await fake.runner.harness.run(workflow).finally(() => fake.close()) };
	}

	it('List Row → Add in bulk: the retry after the second request was refused sends only the second', async () => {
		const { fake, result } = await addInBulk(refused);
		expect(result.nodeError(NODE_NAME)).toBeUndefined();
		const requests = fake.callsOf('/list/rows/add').map((call) => call.params.rows.map((row: IDataObject) => row.N));
		expect(requests.map((rows) => rows.length)).toEqual([500, 100, 100]);
		// Every row went out exactly once in the requests that succeeded (the first and the third).
		const sent = [...requests[0], ...requests[2]];
		expect(sent).toEqual(Array.from({ length: 600 }, (_, n) => String(n)));
		expect(result.output(NODE_NAME)).toHaveLength(600);
	});

	it('List Row → Add in bulk: a request that may have taken effect (a 5xx) is not sent again by any retry', async () => {
		const { fake, result } = await addInBulk(down);
		expect(fake.callsOf('/list/rows/add').map((call) => call.params.rows.length)).toEqual([500, 100]);
		const error = result.nodeError(NODE_NAME) as { description?: string; context: Record<string, unknown> };
		expect(error.context).toEqual(expect.objectContaining({ mayHaveTakenEffect: true, itemIndex: 500 }));
		expect(error.description).toMatch(/Retry On Fail does not send it again either/);
	});
});

describe('write inputs that would reach the wrong record or nothing fail their item', () => {
	it('row and catalog item numbers: hex, exponents, words and unsafe integers are refused, nothing is sent', async () => {
		const fake = await fakeService((path) => listAnswers(path) ?? { status: 200, body: { result: 'ok', deleted: 1 } });
		try {
			for (const rowIds of ['0x10', '1e2', 'abc', '12345678901234567890', '0']) {
				const error = await fake.runner.failure({ resource: 'listRow', operation: 'delete', listId: byId(1), rowIds });
				expect(error.message).toBe(`The field "Row IDs" must hold record numbers (1, 2, 3…), got "${rowIds}"`);
			}
			for (const itemId of ['0x1f', 'abc', '12345678901234567890']) {
				const error = await fake.runner.failure({ resource: 'catalogItem', operation: 'delete', itemId });
				expect(error.message).toBe(`The field "Item ID" must hold record numbers (1, 2, 3…), got "${itemId}"`);
			}
			expect(fake.calls.filter((call) => call.path !== '/list/all')).toEqual([]);
		} finally {
			await fake.close();
		}
	});

	it('Subscriber → Remove Tag with several tags fails instead of looking for one tag named "vip, newsletter"', async () => {
		const fake = await fakeService(() => ({ status: 200, body: { tags: ['vip', 'newsletter'] } }));
		try {
			const error = await fake.runner.failure(
				{ resource: 'subscriber', operation: 'removeTag', botId: byId('bot'), clientId: '1', tag: '={{ $json.tags }}' },
				{ items: [{ tags: ['vip', 'newsletter'] }] },
			);
			expect(error.message).toBe('The field "Tag" holds several tags ("vip,newsletter"): Remove Tag removes one');
			expect(fake.calls).toEqual([]);
		} finally {
			await fake.close();
		}
	});

	it('List Row → Add with Map Automatically: an item with no field named like a column fails instead of adding an empty row', async () => {
		const fake = await fakeService(
			(path, params) =>
				listAnswers(path) ?? {
					status: 200,
					body: {
						rows: params.rows.map((row: IDataObject, n: number) => ({ id: n + 1, row })),
						count: params.rows.length,
					},
				},
		);
		try {
			const output = await fake.runner.json(
				{ resource: 'listRow', operation: 'add', listId: byId(1), columns: autoMapColumns },
				{ items: [{ Emial: 'a@example.test' }, { N: 'kept' }, { N: 'also kept' }], continueOnFail: true },
			);
			expect(output[0].error).toBe('The row is empty: no value was mapped to a column of the list');
			expect(output.slice(1).map((item) => (item.row as IDataObject).N)).toEqual(['kept', 'also kept']);
			expect(fake.callsOf('/list/rows/add').map((call) => call.params.rows)).toEqual([
				[{ N: 'kept' }, { N: 'also kept' }],
			]);
		} finally {
			await fake.close();
		}
	});
});

describe('the memory of a run (Retry On Fail)', () => {
	/** The node's context of each execution, as n8n keeps it with the execution's data. */
	const nodeContexts = new Map<string, Record<string, unknown>>();
	const nodeContextOf = (executionId: string) => {
		if (!nodeContexts.has(executionId)) nodeContexts.set(executionId, {});
		return nodeContexts.get(executionId)!;
	};
	const context = (executionId: string, runIndex: number, retryOnFail = true) =>
		({
			getNode: () => ({ id: 'node-1', retryOnFail }),
			getExecutionId: () => executionId,
			getWorkflowDataProxy: () => ({ $runIndex: runIndex }),
			getContext: () => nodeContextOf(executionId),
		}) as unknown as IExecuteFunctions;
	const output = [{ json: { sent: true }, pairedItem: { item: 0 } }];

	it('is kept per execution, node and run, and only while the node may be retried', () => {
		const first = runMemory.call(context('exec-1', 0))!;
		first.record(0, output);
		expect(runMemory.call(context('exec-1', 0))!.done(0)).toEqual(output);
		expect(runMemory.call(context('exec-1', 1))!.done(0)).toBeUndefined();
		expect(runMemory.call(context('exec-2', 0))!.done(0)).toBeUndefined();
		expect(runMemory.call(context('exec-1', 0, false))).toBeUndefined();
		first.finish();
		expect(runMemory.call(context('exec-1', 0))!.done(0)).toBeUndefined();
	});

	it('keeps the error of a change that may have taken effect, unless an Idempotency-Key makes repeating it safe', () => {
		const memory = runMemory.call(context('exec-3', 0))!;
		const failure = (context: Record<string, unknown>) =>
			Object.assign(new Error('lost'), { context, description: 'Check the service.' });
		const uncertain = failure({ mayHaveTakenEffect: true });
		memory.failed(0, uncertain);
		memory.failed(1, failure({ mayHaveTakenEffect: true, sentWithIdempotencyKey: true }));
		memory.failed(2, failure({ code: 'invalid_param' }));
		const again = runMemory.call(context('exec-3', 0))!;
		expect([0, 1, 2].map((itemIndex) => again.uncertain(itemIndex))).toEqual([uncertain, undefined, undefined]);
		expect(uncertain.description).toBe(
			'Check the service. Retry On Fail does not send it again either: check first, then run the item again if it did not take effect.',
		);
		again.failed(0, uncertain);
		expect(uncertain.description.match(/Retry On Fail/g)).toHaveLength(1);
		again.finish();
		expect(runMemory.call(context('exec-3', 0))!.uncertain(0)).toBeUndefined();
	});

	it('is never kept without an execution id, where another execution could be mistaken for this one', () => {
		expect(runOfNode.call(context('', 0))).toBeUndefined();
		expect(runMemory.call(context('', 0))).toBeUndefined();
	});
});
