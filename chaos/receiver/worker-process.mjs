// One queue worker of the chaos run. Its listener applies the payment's effect and marks the event done in one
// Redis transaction (a Lua script), the idempotent pattern the receiver README recommends; it also counts its runs
// and makes 5 % of first attempts throw.
//
// Two counters per event tell what happened: `reached` (HINCRBY before the guarded script, so outside the guard)
// counts every run that got as far as applying the effect: above 1, the event ran again after a run had reached the
// effect (a rerun the guard had to absorb); `effects` (inside the guarded script) counts the effects applied: above
// 1 would be an effect applied twice, the guard failing.
// Environment: REDIS_URL, QUEUE_PREFIX, CHAOS_PREFIX, WORKER_CONCURRENCY.
import { createHash } from 'node:crypto';
import Redis from 'ioredis';
import { createQueueWorker } from '@messenger-bot-builder/receiver';
import './exitWithParent.mjs';

const env = process.env;
const k = env.CHAOS_PREFIX;
const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
redis.on('error', () => undefined);

// KEYS: done marker of the event, effects per payment, balance per client. ARGV: payment id, client, amount.
// Returns 1 when applied, 0 when the event was done already.
const APPLY = `if redis.call('SET', KEYS[1], '1', 'NX') then
  redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
  redis.call('HINCRBYFLOAT', KEYS[3], ARGV[2], ARGV[3])
  return 1
end
return 0`;

/** 5 % of events, chosen by their id (so every process agrees). */
const failsFirst = (id) => createHash('sha256').update(id).digest().readUInt32BE(0) % 100 < 5;

const concurrency = Number(env.WORKER_CONCURRENCY ?? 8);
const worker = createQueueWorker({
	url: env.REDIS_URL,
	prefix: env.QUEUE_PREFIX,
	concurrency,
	lockMs: 4000,
	stalledIntervalMs: 2000,
	maxStalledCount: 10,
});
worker
	.on('payment.success', async (event) => {
		const run = await redis.hincrby(`${k}runs`, event.id, 1);
		if (run === 1 && failsFirst(event.id)) {
			await redis.sadd(`${k}injected`, event.id);
			throw new Error('chaos: the first attempt of this event fails');
		}
		const { id, clientid, amount } = event.data.payment;
		await redis.hincrby(`${k}reached`, event.id, 1);
		await redis.eval(APPLY, 3, `${k}done:${event.id}`, `${k}effects`, `${k}balance`, id, clientid, String(amount));
	})
	.onError(() => undefined);
await worker.start();
console.log(JSON.stringify({ ready: true }));
