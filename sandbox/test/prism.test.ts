import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSandbox, type OpenSandbox } from './client';

const PRISM = join(__dirname, '..', '..', 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');

/** The variant flags: every way the sandbox can answer differently from its own reading, at once. */
const VARIANT = {
	omitTotal: true,
	listShape: 'named',
	failReads: 0.2,
	maxPage: 50,
	maxPageMode: 'cap',
	retryAfter: 'none',
	rateLimit: 20,
} as const;

function freePort(): Promise<number> {
	return new Promise((resolve, reject) => {
		const server = createServer();
		server.once('error', reject);
		server.listen(0, '127.0.0.1', () => {
			const { port } = server.address() as { port: number };
			server.close(() => resolve(port));
		});
	});
}

interface Sent {
	method: 'GET' | 'POST';
	path: string;
	status: number;
	violations: unknown[];
}

/**
 * Prism's validation proxy (@stoplight/prism-cli) between a client and a sandbox started with the variant flags,
 * given the document that sandbox serves: every request and every answer is checked against it by a tool the
 * project did not write. Valid calls of every kind (reads in both forms, list pages above the cap, writes, an
 * Idempotency-Key, a burst that meets the rate limit, reads that meet the injected 503s) must give 0 violations.
 */
describe('Prism validation proxy, sandbox with the variant flags', () => {
	let open: OpenSandbox;
	let prism: ChildProcess;
	let base: string;
	let dir: string;

	beforeAll(async () => {
		open = await openSandbox(VARIANT);
		dir = mkdtempSync(join(tmpdir(), 'sandbox-prism-'));
		const documentFile = join(dir, 'openapi.json');
		writeFileSync(documentFile, await (await fetch(`${open.sandbox.url}/openapi.json`)).text());
		const port = await freePort();
		prism = spawn(
			process.execPath,
			[PRISM, 'proxy', documentFile, open.sandbox.baseUrl, '--host', '127.0.0.1', '--port', String(port)],
			{ stdio: ['ignore', 'pipe', 'pipe'] },
		);
		let output = '';
		await new Promise<void>((resolve, reject) => {
			const onData = (chunk: Buffer) => {
				output += chunk;
				if (output.includes('Prism is listening')) resolve();
			};
			prism.stdout!.on('data', onData);
			prism.stderr!.on('data', onData);
			prism.once('exit', (code) => reject(new Error(`prism exited (${code}) before listening:\n${output}`)));
		});
		base = `http://127.0.0.1:${port}`;
	});

	afterAll(async () => {
		if (prism && prism.exitCode === null) {
			const exited = new Promise((resolve) => prism.once('exit', resolve));
			prism.kill();
			await exited;
		}
		rmSync(dir, { recursive: true, force: true });
		await open.close();
	});

	async function send(
		method: 'GET' | 'POST',
		path: string,
		params: Record<string, unknown> = {},
		headers: Record<string, string> = {},
	): Promise<Sent> {
		const query =
			method === 'GET'
				? `?${new URLSearchParams(Object.entries(params).map(([name, value]): [string, string] => [name, String(value)]))}`
				: '';
		const response = await fetch(`${base}${path}${query}`, {
			method,
			headers: { authorization: open.sandbox.adminKey, 'content-type': 'application/json', ...headers },
			body: method === 'POST' ? JSON.stringify(params) : undefined,
		});
		await response.arrayBuffer();
		const header = response.headers.get('sl-violations');
		return { method, path, status: response.status, violations: header ? JSON.parse(header) : [] };
	}

	/** Sends until the rate limit lets the call through (every attempt is kept: 429s are answers to check too). */
	async function sendThrough(
		sent: Sent[],
		method: 'GET' | 'POST',
		path: string,
		params: Record<string, unknown> = {},
		headers: Record<string, string> = {},
	): Promise<Sent> {
		for (let attempt = 0; attempt < 100; attempt++) {
			const answer = await send(method, path, params, headers);
			sent.push(answer);
			if (answer.status !== 429) return answer;
			await new Promise((resolve) => setTimeout(resolve, 50));
		}
		throw new Error(`${method} ${path} stayed rate-limited`);
	}

	test('valid calls of every kind: 0 violations, among them 200s, 503s and 429s without Retry-After', async () => {
		const sent: Sent[] = [];
		const reads: [string, Record<string, unknown>][] = [
			['/account/balance/get', {}],
			['/account/get', {}],
			['/account/summary', {}],
			['/bot/list', {}],
			['/group/list', {}],
			['/list/all', {}],
			['/subscriber/list', { botid: 'bot_tg', sort: 'new', limit: 500 }],
			['/subscriber/find', { query: 'a', limit: 2 }],
			['/subscriber/get', { botid: 'bot_tg', clientid: '100001' }],
			['/subscriber/chat/get', { botid: 'bot_tg', clientid: '100001' }],
			['/list/rows/get', { list: 'Leads', sort: 'new', limit: 1000 }],
			['/list/rows/find', { list: 'Leads', column: 'Name', value: 'Alice', exact: 'false' }],
			['/log/get', { limit: 60, failed: 'true' }],
			['/hook/list', {}],
			['/hook/deliveries', { status: 'pending' }],
			['/crm/board', {}],
			['/stat/get', { from: '2026-01-01', to: '2026-03-31' }],
			['/catalog/get', { webappid: '1' }],
		];
		// Sequential rounds keep under the rate limit; the injected 503s (a fifth of reads) show up among them.
		for (let round = 0; round < 3; round++) {
			for (const [path, params] of reads) {
				await sendThrough(sent, 'GET', path, params);
				await sendThrough(sent, 'POST', path, params);
			}
		}
		const writes: [string, Record<string, unknown>, Record<string, string>?][] = [
			['/list/create', { name: 'Prism list', headers: ['Name', 'Phone'] }],
			['/list/row/add', { list: 'Prism list', row: { Name: 'a', Phone: '1' } }, { 'Idempotency-Key': 'prism-1' }],
			['/list/row/add', { list: 'Prism list', row: { Name: 'a', Phone: '1' } }, { 'Idempotency-Key': 'prism-1' }],
			['/list/rows/add', { list: 'Prism list', rows: [{ Name: 'b' }, ['c', '3']] }],
			['/subscriber/create', { botid: 'bot_tg', clientid: 'prism-1', name: 'Prism' }],
			['/subscriber/tag/add', { botid: 'bot_tg', clientid: 'prism-1', tag: ['vip', 'new'] }],
			['/subscriber/data/set', { botid: 'bot_tg', clientid: 'prism-1', data: { promo: 'P', visits: 2 } }],
			[
				'/message/send',
				{
					botid: 'bot_tg',
					clientid: 'prism-1',
					text: 'hi',
					buttons: [{ name: 'Shop', url: 'https://example.com/shop' }],
				},
			],
			['/catalog/item/bulk/create', { webappid: '1', items: [{ title: 'Prism mug', price: 5 }] }],
			['/hook/create', { name: 'prism', url: 'http://127.0.0.1:9/hook', events: ['subscriber.new'] }],
			['/key/create', { name: 'prism', scopes: ['lists:read'], days: 1 }],
		];
		for (const [path, params, headers] of writes)
			expect([path, (await sendThrough(sent, 'POST', path, params, headers)).status]).toEqual([path, 200]);
		// Bursts over the rate limit until one call answers 429 (without Retry-After under --retry-after none). On a busy
		// machine Prism may pass one burst on slower than the limit, so a burst is repeated (bounded) rather than timed.
		for (let burst = 0; burst < 20 && !sent.some((call) => call.status === 429); burst++) {
			sent.push(...(await Promise.all(Array.from({ length: 60 }, () => send('GET', '/account/balance/get')))));
		}

		expect(sent.filter((call) => call.violations.length > 0)).toEqual([]);
		const statuses = new Set(sent.map((call) => call.status));
		expect([...statuses].sort()).toEqual([200, 429, 503]);
	});

	test('requests the document refuses: Prism reports request violations only, and the sandbox answers 422 within the contract', async () => {
		const refused: [string, Record<string, unknown>][] = [
			['/subscriber/get', {}],
			['/list/rows/get', { list: 'Leads', sort: 'sideways' }],
			['/hook/create', { name: 'h', url: 'https://example.com', events: ['order.paid'] }],
		];
		for (const [path, params] of refused) {
			// A read may meet an injected 503 first: ask again until the sandbox itself answers.
			const attempts: Sent[] = [];
			let answer = await sendThrough(attempts, 'POST', path, params);
			for (let attempt = 0; answer.status === 503 && attempt < 20; attempt++)
				answer = await sendThrough(attempts, 'POST', path, params);
			expect([path, answer.status]).toEqual([path, 422]);
			const where = (answer.violations as { location: string[] }[]).map((violation) => violation.location[0]);
			expect(where.length).toBeGreaterThan(0);
			expect(new Set(where)).toEqual(new Set(['request']));
		}
	});
});
