import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { buildReceiver } from './helpers';

/**
 * The short form of `npm run chaos:receiver` (CI): 500 events per run, paced over 10 s so that the SIGKILLs fall
 * among them, both runs (Redis without persistence; Redis with AOF killed and restarted). About 25 s.
 *
 * `doubled` counts effects applied twice (a counter inside the guarded Lua script: must be 0); `reruns` counts runs
 * that reached the effect step again (a counter before that script, outside the guard). Reruns are expected, but
 * only from kills: each worker SIGKILL can leave at most `concurrency` jobs that reached the effect without being
 * marked completed, and the Redis crash of the aof run at most `concurrency` per worker; receiver kills cause none
 * (the job id deduplicates redeliveries). Each run's line states that bound, and its reruns must stay within it.
 */
it('chaos, short form: every accepted event has its effect exactly once', async () => {
  buildReceiver();
  const script = join(__dirname, '../../chaos/receiver/run.mjs');
  const output = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [script, '--events', '500', '--per-second', '50', '--seconds-limit', '50'], { timeout: 110_000 }, (error, stdout, stderr) =>
      error && !stdout.includes('lost:') ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  const lines = output.trim().split('\n');
  const results = lines.filter((line) => /^run (plain|aof): lost: /.test(line));
  expect(results).toHaveLength(2);
  for (const line of results) {
    const [, reruns, bound] = /reruns: (\d+) \(bound (\d+) /.exec(line) ?? [];
    expect(reruns).toBeDefined();
    expect(Number(reruns)).toBeLessThanOrEqual(Number(bound));
  }
  expect(lines.at(-1)).toMatch(/^lost: 0, doubled: 0, reruns: \d+$/);
}, 120_000);
