import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import { testRedis } from '../../test/support/testRedis';
import {
	createQueueWorker,
	createReceiver,
	deliveryQueue,
	listDeadLetters,
	replayDeadLetters,
	type DeliveryQueue,
	type LogFields,
	type LogLevel,
	type QueueWorker,
	type ReceiverLogger,
} from '../src';
import { parseSince, runQueueCli } from '../src/queueCli';
import { eventually, newSecret, signedDelivery } from './helpers';

/**
 * Dead letters replayed by time and kind, in the library and in mbb-receiver-queue, and the warning when they pile
 * up: on the shared Redis of the tests (TEST_REDIS_URL), under a key prefix of this file's own.
 */
const secret = newSecret();
const prefix = `mbb-test-dead-${randomUUID().slice(0, 8)}`;
const where = { url: testRedis().url, prefix };

const logged: { level: LogLevel; message: string; fields: LogFields }[] = [];
const at = (level: LogLevel) => (message: string, fields: LogFields) => void logged.push({ level, message, fields });
const logger: ReceiverLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };

let queue: DeliveryQueue;
let worker: QueueWorker;
const ids: Record<string, string> = {};
let cut: Date;

/** Sends events through a queue-mode receiver; the worker's listeners fail them all on their only attempt. */
async function deadLetter(names: Record<string, string>): Promise<void> {
	const receiver = createReceiver({ secrets: secret, acknowledge: 'queue', queue });
	for (const [name, kind] of Object.entries(names)) {
		const delivery = await signedDelivery(secret, kind);
		ids[name] = delivery.id;
		const answer = await receiver.receive({ method: 'POST', headers: delivery.headers, body: delivery.body });
		expect(answer.status).toBe(200);
	}
}

const dead = async (filter = {}) => (await listDeadLetters(where, filter)).map((letter) => letter.eventId).sort();
const sorted = (...names: string[]) => names.map((name) => ids[name]).sort();

beforeAll(async () => {
	queue = deliveryQueue({ ...where, attempts: 1, onWarning: false });
	worker = createQueueWorker({ ...where, logger, deadLetterWarningThreshold: 2 })
		.onAny(() => {
			throw new Error('the listener fails every time');
		})
		.onError(() => undefined);
	await worker.start();
	await deadLetter({ early: 'subscriber.new', earlyPayment: 'payment.success' });
	await eventually(async () => (await dead()).length === 2, 10_000, 'the first two dead letters');
	const failedAt = Math.max(...(await listDeadLetters(where)).map((letter) => Date.parse(letter.failedAt ?? '')));
	// `since` is compared with the failure time in milliseconds: the cut lies after the first two.
	await eventually(() => Date.now() > failedAt);
	cut = new Date();
	await eventually(() => Date.now() > cut.getTime());
	await deadLetter({ latePayment: 'payment.success', lateStage: 'subscriber.stage' });
	await eventually(async () => (await dead()).length === 4, 10_000, 'all four dead letters');
	// Nothing runs the replayed jobs: they stay in the queue, out of the dead-letter set.
	await worker.close();
}, 30_000);

afterAll(async () => {
	await Promise.all([worker?.close(), queue?.close()]);
	const redis = new Redis(testRedis().url);
	const keys = await redis.keys(`${prefix}:*`);
	if (keys.length) await redis.del(...keys);
	await redis.quit();
});

describe('dead letters by time and kind', () => {
	it('lists those that failed since a time, those of a kind, and both', async () => {
		expect(await dead({ since: cut })).toEqual(sorted('latePayment', 'lateStage'));
		expect(await dead({ kind: 'payment.success' })).toEqual(sorted('earlyPayment', 'latePayment'));
		expect(await dead({ since: cut, kind: 'payment.success' })).toEqual(sorted('latePayment'));
		expect(await dead({ kind: 'subscriber.deleted' })).toEqual([]);
	});

	it('refuses a filter it cannot apply', async () => {
		await expect(listDeadLetters(where, { since: new Date('not a date') })).rejects.toThrow(
			'since must be a valid Date',
		);
		await expect(replayDeadLetters(where, { kind: '' })).rejects.toThrow('kind must be a non-empty event kind');
	});

	it('warned once when the dead-letter set reached the threshold', () => {
		expect(logged.map(({ level, fields }) => [level, fields.code])).toEqual([['warn', 'queue.dead_letters_piling_up']]);
		expect(logged[0].fields).toEqual({
			code: 'queue.dead_letters_piling_up',
			deadLetters: 2,
			threshold: 2,
			queue: 'deliveries',
		});
	});

	it('replays exactly those that failed since a time and are of a kind (the library), then a kind (the CLI)', async () => {
		expect(await replayDeadLetters(where, { since: cut, kind: 'payment.success' })).toEqual({
			replayed: [ids.latePayment],
			notFound: [],
		});
		expect(await dead()).toEqual(sorted('early', 'earlyPayment', 'lateStage'));

		const out: string[] = [];
		const cli = (...args: string[]) =>
			runQueueCli([...args, '--redis', where.url, '--prefix', prefix], (line) => out.push(line));
		expect(await cli('replay', '--kind', 'subscriber.stage')).toBe(0);
		expect(out).toEqual([`replayed 1: ${ids.lateStage}`]);
		out.length = 0;
		expect(await cli('list', '--since', '1h', '--kind', 'payment.success')).toBe(0);
		expect(out.map((line) => (JSON.parse(line) as { eventId: string }).eventId)).toEqual([ids.earlyPayment]);
		expect(await dead()).toEqual(sorted('early', 'earlyPayment'));
	});

	it('the CLI refuses a --since it cannot read, and event ids with a filter', async () => {
		const out: string[] = [];
		const cli = (...args: string[]) =>
			runQueueCli([...args, '--redis', where.url, '--prefix', prefix], (line) => out.push(line));
		expect(await cli('replay', '--since', 'yesterday')).toBe(2);
		expect(await cli('replay', 'evt_1', '--kind', 'payment.success')).toBe(2);
		expect(out).toEqual([
			'--since takes an ISO date or time, or a time ago like 6h, not "yesterday"',
			'replay takes event ids or --since/--kind, not both',
		]);
	});
});

describe('parseSince', () => {
	const now = Date.parse('2026-05-01T12:00:00Z');
	it.each([
		['90s', '2026-05-01T11:58:30.000Z'],
		['30m', '2026-05-01T11:30:00.000Z'],
		['6h', '2026-05-01T06:00:00.000Z'],
		['2d', '2026-04-29T12:00:00.000Z'],
		['2026-04-30', '2026-04-30T00:00:00.000Z'],
		['2026-04-30T08:15:00Z', '2026-04-30T08:15:00.000Z'],
	])('%s', (text, expected) => {
		expect(parseSince(text, now)?.toISOString()).toBe(expected);
	});
	it.each(['yesterday', '6 h', '2026-13-45', ''])('not %j', (text) => {
		expect(parseSince(text, now)).toBeUndefined();
	});
});
