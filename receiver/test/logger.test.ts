import { createReceiver, deliveryQueue, memoryDedupeStore, redisDedupeStore, type DedupeStore } from '../src';
import type { LogFields, LogLevel, ReceiverLogger } from '../src';
import { createWebHandler } from '../src/web';
import { eventually, newSecret, signedDelivery, standardWebhooksOnly, startOwnRedis } from './helpers';

/** The `logger` option: each line the receiver writes reaches the application's logger with its level and code. */
const secret = newSecret();
const NOW = 1_800_000_000;

interface LoggedLine {
	level: LogLevel;
	message: string;
	fields: LogFields;
}

function capturingLogger(): { logger: ReceiverLogger; lines: LoggedLine[]; codes(): [LogLevel, string][] } {
	const lines: LoggedLine[] = [];
	const at = (level: LogLevel) => (message: string, fields: LogFields) => void lines.push({ level, message, fields });
	return {
		logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
		lines,
		codes: () => lines.map(({ level, fields }) => [level, fields.code]),
	};
}

const CONSOLE_METHODS = ['debug', 'info', 'log', 'warn', 'error'] as const;

/** With a logger given, nothing reaches the console. */
function watchConsole() {
	const spies = CONSOLE_METHODS.map((method) => jest.spyOn(console, method).mockImplementation(() => undefined));
	return {
		calls: () => spies.flatMap((spy) => spy.mock.calls),
		restore: () => spies.forEach((spy) => spy.mockRestore()),
	};
}

let consoleWatch: ReturnType<typeof watchConsole>;
beforeEach(() => {
	consoleWatch = watchConsole();
});
afterEach(() => {
	const calls = consoleWatch.calls();
	consoleWatch.restore();
	expect(calls).toEqual([]);
});

async function receiveSigned(receiver: ReturnType<typeof createReceiver>, type = 'subscriber.new') {
	const delivery = await signedDelivery(secret, type);
	const answer = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
	return { delivery, answer };
}

describe('the logger option', () => {
	it('a failing listener: one error line, listener.failed, with the event and the error', async () => {
		const { logger, lines, codes } = capturingLogger();
		const failure = new Error('the CRM is down');
		const receiver = createReceiver({ secrets: secret, logger }).on('subscriber.new', () => {
			throw failure;
		});
		const { delivery, answer } = await receiveSigned(receiver);
		expect(answer.status).toBe(500);
		expect(codes()).toEqual([['error', 'listener.failed']]);
		expect(lines[0].message).toBe(`a listener failed for subscriber.new ${delivery.id}`);
		expect(lines[0].fields).toEqual({
			code: 'listener.failed',
			error: failure,
			eventId: delivery.id,
			eventType: 'subscriber.new',
		});
	});

	it('a renewal the store refuses: the lease is lost, one warn line, lease.renew_refused', async () => {
		const { logger, lines, codes } = capturingLogger();
		const inner = memoryDedupeStore();
		const store: DedupeStore = {
			begin: (id, leaseMs) => inner.begin(id, leaseMs),
			renew: () => false,
			complete: (id, token) => inner.complete(id, token),
			release: (id, token) => inner.release(id, token),
		};
		let aborted: unknown;
		const receiver = createReceiver({ secrets: secret, dedupe: store, leaseMs: 60, acknowledge: 'onReceipt', logger });
		receiver.on(
			'subscriber.new',
			(_event, context) =>
				new Promise<void>((resolve) =>
					context.signal.addEventListener('abort', () => {
						aborted = context.signal.reason;
						resolve();
					}),
				),
		);
		const { delivery, answer } = await receiveSigned(receiver);
		expect(answer.status).toBe(200);
		await receiver.idle();
		expect(codes()).toEqual([['warn', 'lease.renew_refused']]);
		expect(lines[0].message).toBe(
			`the store refused to renew the lease on event ${delivery.id} (it lapsed, or another delivery took it): another delivery of subscriber.new ${delivery.id} may run it meanwhile; the listeners' signal is aborted`,
		);
		expect(lines[0].fields).toEqual({ code: 'lease.renew_refused', eventId: delivery.id, eventType: 'subscriber.new' });
		expect((aborted as Error).message).toBe(lines[0].message);
	});

	it('a renewal that fails, then the lease lapsing: lease.renew_failed, then lease.lapsed', async () => {
		const { logger, lines, codes } = capturingLogger();
		const inner = memoryDedupeStore();
		const storeDown = new Error('the store did not answer');
		const store: DedupeStore = {
			begin: (id, leaseMs) => inner.begin(id, leaseMs),
			renew: () => Promise.reject(storeDown),
			complete: (id, token) => inner.complete(id, token),
			release: (id, token) => inner.release(id, token),
		};
		const receiver = createReceiver({ secrets: secret, dedupe: store, leaseMs: 60, acknowledge: 'onReceipt', logger });
		receiver.on(
			'subscriber.new',
			(_event, context) => new Promise((resolve) => context.signal.addEventListener('abort', resolve)),
		);
		const { delivery } = await receiveSigned(receiver);
		await receiver.idle();
		// Renewals go on until the lease lapses: on a busy machine a second one may fail before it does.
		const seen = codes();
		expect(seen.length).toBeGreaterThanOrEqual(2);
		expect(seen).toEqual([...Array(seen.length - 1).fill(['warn', 'lease.renew_failed']), ['warn', 'lease.lapsed']]);
		expect(lines[0].fields).toMatchObject({ error: storeDown, eventId: delivery.id, eventType: 'subscriber.new' });
		expect(lines[0].message).toMatch(
			new RegExp(
				`^could not renew the lease on event ${delivery.id} \\(it lapses in \\d+ ms unless a renewal succeeds\\)$`,
			),
		);
	});

	it('a refusal with a diagnostic and no onError: one warn line, delivery.refused, with the refusal code', async () => {
		const { logger, lines, codes } = capturingLogger();
		const receiver = createReceiver({ secrets: secret, now: NOW, dedupe: false, logger });
		const delivery = await signedDelivery(secret, 'subscriber.new', { timestamp: NOW - 1000 });
		const answer = await receiver.receive({
			method: 'POST',
			headers: standardWebhooksOnly(delivery.headers),
			body: delivery.body,
		});
		expect(answer.status).toBe(401);
		expect(codes()).toEqual([['warn', 'delivery.refused']]);
		expect(lines[0].fields).toEqual({
			code: 'delivery.refused',
			reason: 'timestamp_out_of_tolerance',
			eventId: delivery.id,
		});
		expect(lines[0].message).toMatch(
			new RegExp(`^refused a delivery of event ${delivery.id} \\(timestamp_out_of_tolerance\\): webhook-timestamp`),
		);
	});

	it('the web handler: a failing onEvent is listener.failed', async () => {
		const { logger, codes } = capturingLogger();
		const handle = createWebHandler({
			secrets: secret,
			logger,
			onEvent: () => {
				throw new Error('nope');
			},
		});
		const delivery = await signedDelivery(secret);
		const response = await handle(
			new Request('http://localhost/hooks', { method: 'POST', headers: delivery.headers, body: delivery.body }),
		);
		expect(response.status).toBe(500);
		expect(codes()).toEqual([['error', 'listener.failed']]);
	});

	it('refuses a logger without the four methods', () => {
		expect(() => createReceiver({ secrets: secret, logger: { warn() {} } as unknown as ReceiverLogger })).toThrow(
			'logger must have debug, info, warn and error methods',
		);
	});
});

describe('the logger option with a Redis that keeps nothing across restarts', () => {
	let redis: Awaited<ReturnType<typeof startOwnRedis>>;
	beforeAll(async () => {
		redis = await startOwnRedis();
	}, 20_000);
	afterAll(() => redis.destroy());

	it('the dedupe store and the queue each warn once: redis.persistence_none', async () => {
		const { logger, lines, codes } = capturingLogger();
		const store = redisDedupeStore({ url: redis.url, prefix: 'mbb:test:logger:', logger });
		const queue = deliveryQueue({ url: redis.url, prefix: 'mbb-test-logger', logger });
		try {
			const [storeLine, queueLine] = await Promise.all([store.persistenceChecked, queue.persistenceChecked]);
			await eventually(() => lines.length === 2);
			expect(codes()).toEqual([
				['warn', 'redis.persistence_none'],
				['warn', 'redis.persistence_none'],
			]);
			const messages = lines.map(({ message }) => message).sort();
			expect(messages).toEqual([
				'the Redis used by the deduplication store keeps nothing across restarts (no AOF, no RDB snapshots): a restart forgets everything it holds. Enable "appendonly yes" with "appendfsync always" (see the receiver README).',
				'the Redis used by the delivery queue keeps nothing across restarts (no AOF, no RDB snapshots): a restart forgets everything it holds. Enable "appendonly yes" with "appendfsync always" (see the receiver README).',
			]);
			// persistenceChecked still resolves to the line as printed by default.
			expect([storeLine, queueLine].sort()).toEqual(messages.map((message) => `[receiver] ${message}`));
		} finally {
			await Promise.all([store.close(), queue.close()]);
		}
	});
});

describe('the default logger', () => {
	it('prints the lines as the receiver always did: "[receiver] <message>:" and the error', async () => {
		const receiver = createReceiver({ secrets: secret });
		const failure = new Error('the CRM is down');
		receiver.on('subscriber.new', () => {
			throw failure;
		});
		const { delivery } = await receiveSigned(receiver);
		const error = console.error as jest.Mock;
		expect(error.mock.calls).toEqual([[`[receiver] a listener failed for subscriber.new ${delivery.id}:`, failure]]);
		error.mockClear();
	});
});
