import type { IDataObject } from 'n8n-workflow';
import type { SandboxOptions } from '../../sandbox/src';
import { byId, mapColumns, autoMapColumns } from '../support/nodeRun';
import { startTestBed, type NodeTestBed } from '../support/sandbox';

/**
 * The node's reads, writes and pacing against services that read the documentation's gaps
 * differently: pages capped silently or refused above a size, no `total`, 429s without
 * Retry-After, transient 503s on reads, records as a bare array or under the resource's name.
 * Every read must return every record exactly once, in the service's order.
 */
const VARIANTS: Array<[string, SandboxOptions]> = [
	['default sandbox', {}],
	['pages capped at 37 without total', { maxPage: 37, maxPageMode: 'cap', omitTotal: true }],
	['pages above 64 refused with 422', { maxPage: 64, maxPageMode: 'reject' }],
	['no total', { omitTotal: true }],
	['429 without Retry-After', { retryAfter: 'none' }],
	['transient 503 on 20 % of reads', { failReads: 0.2 }],
	['bare arrays', { listShape: 'bare' }],
	['records under the resource name, pages capped at 50', { listShape: 'named', maxPage: 50, maxPageMode: 'cap' }],
	[
		'everything at once',
		{ maxPage: 37, maxPageMode: 'cap', omitTotal: true, retryAfter: 'none', failReads: 0.1, listShape: 'named' },
	],
];

const ROWS = 200;
const SUBSCRIBERS = 45;
const MESSAGES = 50;
const HOOKS = 3;
const numbers = (count: number) => Array.from({ length: count }, (_, n) => String(n));

const tag = 'matrix';
const chatText = (n: number) => `matrix message ${n}`;
const recordsOf = (answer: unknown, name: string) =>
	(Array.isArray(answer) ? answer : ((answer as IDataObject).items ?? (answer as IDataObject)[name])) as IDataObject[];

/** Rows, tagged subscribers and a chat, put in straight (without the sandbox's rate limit). */
async function seed(bed: NodeTestBed): Promise<number> {
	const { list } = await bed.api.call('/list/create', { name: 'Matrix', headers: ['N', 'Even'] });
	await bed.api.call('/list/rows/add', {
		listid: list.id,
		rows: numbers(ROWS).map((N) => [N, Number(N) % 2 ? 'no' : 'yes']),
	});
	for (let n = 0; n < SUBSCRIBERS; n++) {
		await bed.api.call('/subscriber/create', {
			botid: 'bot_tg',
			clientid: `matrix-${n}`,
			messenger: 'telegram',
			name: `Matrixperson ${n}`,
		});
		await bed.api.call('/subscriber/tag/add', { botid: 'bot_tg', clientid: `matrix-${n}`, tag });
	}
	for (let n = 0; n < MESSAGES; n++)
		await bed.api.call('/message/send', { botid: 'bot_tg', clientid: 'matrix-0', text: chatText(n) });
	for (let n = 0; n < HOOKS; n++)
		await bed.api.call('/hook/create', {
			url: `http://127.0.0.1:9/matrix-${n}`,
			events: ['subscriber.new'],
			name: `matrix hook ${n}`,
		});
	return list.id as number;
}

async function reads(bed: NodeTestBed, listid: number): Promise<void> {
	const read = async (parameters: IDataObject) =>
		(
			await bed.node.json({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(listid),
				output: 'raw',
				...parameters,
			})
		).map((row) => (row.values as string[])[0]);
	expect(await read({ returnAll: true })).toEqual(numbers(ROWS));
	expect(await read({ returnAll: true, sort: 'new' })).toEqual(numbers(ROWS).reverse());
	expect(await read({ returnAll: false, limit: 80 })).toEqual(numbers(80));
	expect(await read({ returnAll: false, limit: 3 })).toEqual(numbers(3));

	const found = await bed.node.json({
		resource: 'listRow',
		operation: 'find',
		listId: byId(listid),
		conditions: { values: [{ column: 'Even', value: 'yes' }] },
		exact: true,
		returnAll: true,
		output: 'raw',
	});
	expect(found.map((row) => (row.values as string[])[0])).toEqual(numbers(ROWS).filter((n) => Number(n) % 2 === 0));

	const subscribers = await bed.node.json({
		resource: 'subscriber',
		operation: 'getMany',
		returnAll: true,
		filters: { tag },
	});
	expect(subscribers.map((card) => card.clientid).sort()).toEqual(
		Array.from({ length: SUBSCRIBERS }, (_, n) => `matrix-${n}`).sort(),
	);

	const matching = await bed.node.json({
		resource: 'subscriber',
		operation: 'find',
		query: 'Matrixperson',
		returnAll: true,
	});
	expect(matching.map((card) => card.clientid).sort()).toEqual(
		Array.from({ length: SUBSCRIBERS }, (_, n) => `matrix-${n}`).sort(),
	);

	// Every tag added while seeding is one call in the API log: 45 entries, each once.
	const log = await bed.node.json({
		resource: 'account',
		operation: 'getApiLog',
		returnAll: true,
		filters: { path: '/subscriber/tag/add' },
		output: 'raw',
	});
	expect(log).toHaveLength(SUBSCRIBERS);
	expect(new Set(log.map((entry) => entry.id)).size).toBe(SUBSCRIBERS);

	const hooks = await bed.node.json({ resource: 'webhook', operation: 'getMany', returnAll: true });
	expect(
		hooks
			.map((hook) => hook.name)
			.filter((name) => String(name).startsWith('matrix hook'))
			.sort(),
	).toEqual(Array.from({ length: HOOKS }, (_, n) => `matrix hook ${n}`));

	const chat = await bed.node.json({
		resource: 'subscriber',
		operation: 'getChatHistory',
		botId: byId('bot_tg'),
		clientId: 'matrix-0',
		returnAll: true,
	});
	expect(new Set(chat.map((message) => message.id)).size).toBe(chat.length);
	const mine = chat.map((message) => message.text).filter((text) => String(text).startsWith('matrix message'));
	expect(mine).toEqual(Array.from({ length: MESSAGES }, (_, n) => chatText(MESSAGES - 1 - n))); // newest first
}

async function writes(bed: NodeTestBed): Promise<void> {
	const { list } = await bed.api.call('/list/create', { name: 'Matrix writes', headers: ['N'] });
	await bed.node.json({
		resource: 'listRow',
		operation: 'add',
		listId: byId(list.id),
		columns: mapColumns({ N: 'single' }),
	});
	await bed.node.json(
		{ resource: 'listRow', operation: 'add', listId: byId(list.id), columns: autoMapColumns },
		{ items: [{ N: 'a' }, { N: 'b' }, { N: 'c' }] },
	);
	const stored = recordsOf(await bed.api.call('/list/rows/get', { listid: list.id, limit: 20 }), 'rows');
	expect(stored.map((row) => (row.values as string[])[0])).toEqual(['single', 'a', 'b', 'c']);

	const text = `matrix write ${Date.now()}`;
	await bed.node.json({ resource: 'message', operation: 'send', botId: byId('bot_tg'), clientId: 'matrix-1', text });
	const chat = recordsOf(
		await bed.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid: 'matrix-1', limit: 20 }),
		'messages',
	);
	expect(chat.filter((message) => message.text === text)).toHaveLength(1);
}

/** A service allowing 4 requests per second: the node meets 429s, adapts, and every item succeeds once. */
async function pacing(variant: SandboxOptions): Promise<void> {
	const slow = await startTestBed({ ...variant, rateLimit: 4 });
	// Empties the key's bucket (4 tokens) right before the node runs, so that the node meets the limit even when a
	// busy machine makes it slower than 4 requests a second. The drain's own calls are on a path the node never uses.
	const drain = () =>
		Promise.all(
			Array.from({ length: 8 }, () =>
				fetch(`${slow.baseUrl}/bot/list`, {
					method: 'POST',
					headers: { Authorization: slow.api.key, 'Content-Type': 'application/json' },
					body: '{}',
				}).then((answer) => answer.arrayBuffer()),
			),
		);
	// A drain before the node runs is not enough where a busy machine makes every call of the node take longer than a
	// token's refill (a quarter of a second): the node then never meets the limit. So the sends run while the bucket is
	// kept empty, until the service has refused one of the node's own calls (seen as the sandbox answers it).
	let nodeRefused = 0;
	slow.sandbox.observeAnswers((answer) => {
		if (answer.status === 429 && !answer.path.endsWith('/bot/list')) nodeRefused += 1;
	});
	const whileDrained = async <T>(work: () => Promise<T>): Promise<T> => {
		let done = false;
		const drainer = (async () => {
			while (!done && nodeRefused === 0) await drain();
		})();
		try {
			return await work();
		} finally {
			done = true;
			await drainer;
		}
	};
	try {
		const texts = Array.from({ length: 6 }, (_, n) => `paced ${n} ${Date.now()}`);
		const sent = await whileDrained(() =>
			slow.node.items(
				{
					resource: 'message',
					operation: 'send',
					botId: byId('bot_tg'),
					clientId: '100001',
					text: '={{ $json.text }}',
				},
				{ items: texts.map((text) => ({ text })) },
			),
		);
		expect(nodeRefused).toBeGreaterThan(0);
		expect(sent.map((item) => item.pairedItem)).toEqual(texts.map((_, item) => ({ item })));
		await drain();
		const balances = await slow.node.items(
			{ resource: 'account', operation: 'getBalance' },
			{ items: Array.from({ length: 8 }, () => ({})) },
		);
		expect(balances.map((item) => typeof item.json.balance)).toEqual(Array.from({ length: 8 }, () => 'number'));

		const chat = recordsOf(
			await slow.api.call('/subscriber/chat/get', { botid: 'bot_tg', clientid: '100001', limit: 20 }),
			'messages',
		);
		for (const text of texts) expect(chat.filter((message) => message.text === text)).toHaveLength(1);
		// Return All under the rate limit, paging as the variant does: every row once, in order.
		const { list } = await slow.api.call('/list/create', { name: 'Paced read', headers: ['N'] });
		await slow.api.call('/list/rows/add', { listid: list.id, rows: numbers(120).map((N) => [N]) });
		const [rows] = await Promise.all([
			slow.node.json({
				resource: 'listRow',
				operation: 'getMany',
				listId: byId(list.id),
				returnAll: true,
				output: 'raw',
			}),
			slow.node.items(
				{ resource: 'account', operation: 'getBalance' },
				{ items: Array.from({ length: 6 }, () => ({})) },
			),
		]);
		expect(rows.map((row) => (row.values as string[])[0])).toEqual(numbers(120));

		// The limit was really met by the node's own calls (not only by the drains).
		let refused = 0;
		for (const path of ['/message/send', '/account/balance/get', '/list/rows/get']) {
			refused += recordsOf(await slow.api.call('/log/get', { status: 429, path, limit: 30 }), 'entries').length;
		}
		expect(refused).toBeGreaterThan(0);
	} finally {
		await slow.close();
	}
}

// Concurrently: each variant has its own sandbox and credential, and the time goes to the node's pacing.
describe('the node against services that read the documentation differently', () => {
	it.concurrent.each(VARIANTS)(
		'%s: reads, writes and pacing',
		async (_name, variant) => {
			const bed = await startTestBed({ ...variant, rateLimit: 0 });
			try {
				const listid = await seed(bed);
				await reads(bed, listid);
				await writes(bed);
			} finally {
				await bed.close();
			}
			await pacing(variant);
		},
		240_000,
	); // nine variants at once, paced at 4 requests/s: on a busy machine they share two cores
});
