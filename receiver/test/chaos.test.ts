import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { buildReceiver } from './helpers';

/**
 * The short form of `npm run chaos:receiver` (CI): 500 events per run, paced over 10 s so that the SIGKILLs fall
 * among them, both runs (Redis without persistence; Redis with AOF killed and restarted). About 25 s.
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
  expect(lines.filter((line) => /^run (plain|aof): lost: /.test(line))).toHaveLength(2);
  expect(lines.at(-1)).toMatch(/^lost: 0, doubled: 0, reruns: \d+$/);
}, 120_000);
