import { autoMapColumns, byId, mapColumns, NODE_NAME } from '../support/nodeRun';
import { PACKAGE } from '../support/nodeTypes';
import { FlakyProxy } from '../support/flakyProxy';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/** Answers lost after the service acted: nothing may be sent or added twice. */
describe('retry safety when an answer is lost', () => {
	let bed: NodeTestBed;
	let proxy: FlakyProxy;

	beforeAll(async () => {
		bed = await startTestBed({ rateLimit: 0 });
		proxy = new FlakyProxy(bed.baseUrl);
		bed.node.useKey('flaky', bed.sandbox.adminKey, await proxy.start());
	});
	afterAll(async () => {
		await proxy.close();
		await bed.close();
	});

	it('a single row add is repeated with the same Idempotency-Key and stored once', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Once', headers: ['Name'] });
		proxy.loseAnswers('/list/row/add', 1);
		const [row] = await bed.node.json(
			{ resource: 'listRow', operation: 'add', listId: byId(list.id), columns: mapColumns({ Name: 'only once' }) },
			{ credential: 'flaky' },
		);
		expect(row.row).toMatchObject({ Name: 'only once' });
		expect(proxy.forwarded.filter((line) => line.includes('/list/row/add'))).toHaveLength(2);
		const stored = await bed.api.call('/list/rows/get', { listid: list.id });
		expect(stored.total).toBe(1);
	});

	it('a single row add whose answer is lost and whose keyed repeats all fail: "may have taken effect", what to check', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Lost for good', headers: ['Name'] });
		proxy.loseAnswers('/list/row/add', 6);
		const error = await bed.node.failure(
			{ resource: 'listRow', operation: 'add', listId: byId(list.id), columns: mapColumns({ Name: 'maybe' }) },
			{ credential: 'flaky' },
		);
		expect(error.description).toContain('may have taken effect');
		expect(error.description).toContain('same Idempotency-Key');
		expect(error.description).toContain('Look for the row(s) in the list');
		expect(error.description).not.toMatch(/still failed|can retry/);
		expect(error.context.mayHaveTakenEffect).toBe(true);
		const stored = await bed.api.call('/list/rows/get', { listid: list.id });
		expect(stored.total).toBe(1); // it did take effect, once
	});

	it("n8n's Retry of an execution whose row add may have taken effect sends the same Idempotency-Key: the row is stored once", async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Retried', headers: ['Name'] });
		const before = proxy.received.length;
		proxy.loseAnswers('/list/row/add', 6);
		const definition = bed.node.workflow(
			{ resource: 'listRow', operation: 'add', listId: byId(list.id), columns: mapColumns({ Name: 'retried' }) },
			{ credential: 'flaky' },
		);
		const failed = await bed.node.harness.run(definition);
		expect(failed.nodeError(NODE_NAME)?.context.mayHaveTakenEffect).toBe(true);
		proxy.loseAnswers('/list/row/add', 0);
		const keys = () =>
			proxy.received
				.slice(before)
				.filter((request) => request.url.includes('/list/row/add'))
				.map((request) => request.headers['idempotency-key']);
		const sentFirst = new Set(keys());
		expect(sentFirst.size).toBe(1);
		const retried = await bed.node.harness.retry(definition, failed);
		expect(retried.error).toBeUndefined();
		expect(retried.output(NODE_NAME).map((item) => item.json.row)).toEqual([
			expect.objectContaining({ Name: 'retried' }),
		]);
		// The retry is another execution, and still sends the key of the failed one's run.
		expect(new Set(keys())).toEqual(sentFirst);
		expect((await bed.api.call('/list/rows/get', { listid: list.id })).total).toBe(1);
		// A new run of the workflow (not a retry) is a new intent: its row is added.
		await bed.node.json(
			{ resource: 'listRow', operation: 'add', listId: byId(list.id), columns: mapColumns({ Name: 'retried' }) },
			{ credential: 'flaky' },
		);
		expect((await bed.api.call('/list/rows/get', { listid: list.id })).total).toBe(2);
	});

	it('a single row add whose answer is lost, then refused (429) until the wait budget ends: still "may have taken effect"', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Lost then refused', headers: ['Name'] });
		proxy.loseAnswers('/list/row/add', 1);
		proxy.refuse('/list/row/add', 429, 1000);
		try {
			const error = await bed.node.failure(
				{
					resource: 'listRow',
					operation: 'add',
					listId: byId(list.id),
					columns: mapColumns({ Name: 'maybe' }),
					requestOptions: { rateLimitWait: 1 },
				},
				{ credential: 'flaky' },
			);
			expect(error.httpCode).toBe('429');
			expect(error.description).toContain('may have taken effect');
			expect(error.description).toContain('Look for the row(s) in the list');
			expect(error.context.mayHaveTakenEffect).toBe(true);
			const stored = await bed.api.call('/list/rows/get', { listid: list.id });
			expect(stored.total).toBe(1);
		} finally {
			proxy.refuse('/list/row/add', 429, 0);
		}
	});

	it('a node that runs twice in one execution adds its row twice: the Idempotency-Key names the run', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Twice', headers: ['Name'] });
		const single = bed.node.workflow({
			resource: 'listRow',
			operation: 'add',
			listId: byId(list.id),
			columns: mapColumns({ Name: 'same row' }),
		});
		const items = (name: string, x: number) => ({
			id: name,
			name,
			type: `${PACKAGE}.harnessItems`,
			typeVersion: 1,
			position: [x, 0] as [number, number],
			parameters: { items: '[{}]' },
		});
		// Start feeds A and B; both feed the node, which therefore runs twice (run 0 and run 1), one item each.
		const result = await bed.node.harness.run({
			nodes: [items('Start', -200), items('A', 0), items('B', 0), single.nodes[1]],
			connections: {
				Start: {
					main: [
						[
							{ node: 'A', type: 'main', index: 0 },
							{ node: 'B', type: 'main', index: 0 },
						],
					],
				},
				A: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] },
				B: { main: [[{ node: NODE_NAME, type: 'main', index: 0 }]] },
			},
		});
		expect(result.run.data.resultData.runData[NODE_NAME]).toHaveLength(2);
		const stored = await bed.api.call('/list/rows/get', { listid: list.id });
		expect(stored.total).toBe(2);
	});

	it('a message send is not repeated: the node reports it, the subscriber got exactly one message', async () => {
		proxy.loseAnswers('/message/send', 1);
		const text = `lost answer ${Date.now()}`;
		const error = await bed.node.failure(
			{ resource: 'message', operation: 'send', botId: byId('bot_tg'), clientId: '100002', text },
			{ credential: 'flaky' },
		);
		expect(error.description).toMatch(/not repeated/);
		const chat = await bed.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100002', limit: 50 });
		expect(chat.items.filter((message: { text: string }) => message.text === text)).toHaveLength(1);
	});

	it('a bulk add whose answer is lost is not sent again', async () => {
		const { list } = await bed.api.call('/list/create', { name: 'Bulk once', headers: ['N'] });
		proxy.loseAnswers('/list/rows/add', 1);
		const items = Array.from({ length: 10 }, (_, n) => ({ N: String(n) }));
		const output = await bed.node.items(
			{ resource: 'listRow', operation: 'add', listId: byId(list.id), columns: autoMapColumns },
			{ credential: 'flaky', items, continueOnFail: true },
		);
		expect(output).toHaveLength(10);
		expect(
			output.every((item) =>
				String((item.json.details as { description?: string }).description).includes('not repeated'),
			),
		).toBe(true);
		const stored = await bed.api.call('/list/rows/get', { listid: list.id });
		expect(stored.total).toBe(10);
	});

	it('a read whose answer is lost is simply asked again', async () => {
		proxy.loseAnswers('/subscriber/get', 1);
		const before = proxy.forwarded.length;
		const [card] = await bed.node.json(
			{ resource: 'subscriber', operation: 'get', lookup: 'byClient', botId: byId('bot_tg'), clientId: '100001' },
			{ credential: 'flaky' },
		);
		expect(card.name).toBe('Alice Smith');
		expect(proxy.forwarded.slice(before).filter((line) => line.includes('/subscriber/get'))).toHaveLength(2);
	});
});
