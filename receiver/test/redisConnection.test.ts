import { createHook } from 'node:async_hooks';
import { connectEndingRedis } from '../src/redisConnection';
import { eventually, startOwnRedis } from './helpers';

/**
 * The receiver's ioredis client ends when told to, also while Redis is away. Plain ioredis, told to disconnect while it
 * waits to reconnect, stays `reconnecting` for good: no `end` (BullMQ waits for it when closing a worker) and the
 * calls queued meanwhile never settle.
 */
describe('connectEndingRedis', () => {
	it('disconnectAll() while Redis is away ends the client and its duplicates, and fails the calls queued meanwhile', async () => {
		const own = await startOwnRedis();
		const redis = await connectEndingRedis(own.url, { maxRetriesPerRequest: null }, 'ioredis is missing');
		const duplicate = redis.duplicate();
		duplicate.on('error', () => undefined);
		try {
			await eventually(
				() => redis.status === 'ready' && duplicate.status === 'ready',
				10_000,
				'both clients to connect',
			);
			await own.stop();
			await eventually(
				() => redis.status === 'reconnecting' && duplicate.status === 'reconnecting',
				10_000,
				'both clients to wait to reconnect',
			);
			const queued = redis.get('any').then(
				() => 'answered',
				(error: Error) => `failed: ${error.message}`,
			);
			const ended = Promise.all(
				[redis, duplicate].map((client) => new Promise((resolve) => client.once('end', resolve))),
			);
			redis.disconnectAll();
			expect(await queued).toBe('failed: Connection is closed.');
			await ended;
			expect([redis.status, duplicate.status]).toEqual(['end', 'end']);
		} finally {
			redis.disconnectAll();
			await own.destroy();
		}
	});

	it('a client told to disconnect while away, whose last attempt finds Redis back, is ended once connected', async () => {
		const own = await startOwnRedis();
		const redis = await connectEndingRedis(own.url, { maxRetriesPerRequest: null }, 'ioredis is missing');
		try {
			await eventually(() => redis.status === 'ready', 10_000, 'the client to connect');
			await own.stop();
			await eventually(() => redis.status === 'reconnecting', 10_000, 'the client to wait to reconnect');
			await own.start();
			const ended = new Promise((resolve) => redis.once('end', resolve));
			redis.disconnect();
			await ended;
			expect(redis.status).toBe('end');
		} finally {
			redis.disconnectAll();
			await own.destroy();
		}
	});

	it('a client ended while Redis is away leaves no timer behind that would keep the process alive', async () => {
		const own = await startOwnRedis();
		const redis = await connectEndingRedis(own.url, { maxRetriesPerRequest: null }, 'ioredis is missing');
		try {
			await eventually(() => redis.status === 'ready', 10_000, 'the client to connect');
			await own.destroy();
			await eventually(() => redis.status === 'reconnecting', 10_000, 'the client to wait to reconnect');
			// The timers that disconnect() itself starts (synchronously): ioredis's own bound on closing a socket among them.
			const started: NodeJS.Timeout[] = [];
			const hook = createHook({
				init(_id, type, _trigger, resource) {
					if (type === 'Timeout') started.push(resource as NodeJS.Timeout);
				},
			}).enable();
			const ended = new Promise((resolve) => redis.once('end', resolve));
			try {
				redis.disconnect();
			} finally {
				hook.disable();
			}
			await ended;
			expect(redis.status).toBe('end');
			// A timer still pending once the client has ended keeps the process alive for nothing (ioredis's was 2 s long).
			const pending = started.filter(
				(timer) => !(timer as unknown as { _destroyed: boolean })._destroyed && timer.hasRef(),
			);
			expect(pending.map((timer) => (timer as unknown as { _idleTimeout: number })._idleTimeout)).toEqual([]);
		} finally {
			redis.disconnectAll();
			await own.destroy();
		}
	});
});
