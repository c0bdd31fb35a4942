/** The same scenarios in queue mode (main + one worker, Redis); every execution must have run on the worker. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startE2eEnvironment, withN8nLogs, type E2eEnvironment } from '../lib/environment.ts';
import type { Execution } from '../lib/n8nApi.ts';
import { runActionScenario } from '../scenarios/actionScenario.ts';
import { runTriggerScenario } from '../scenarios/triggerScenario.ts';

let env: E2eEnvironment;

before(async () => {
  env = await startE2eEnvironment('queue');
}, { timeout: 240_000 });

after(async () => {
  await env?.close();
});

/** The worker logs the start and the end of every job it runs; main never runs production executions in queue mode. */
function assertRanOnWorker(executions: Execution[]): void {
  const worker = env.n8n.worker!;
  for (const { id } of executions) {
    assert.equal(worker.log.grep(`Worker started execution ${id} `).length, 1, `execution ${id} started on the worker`);
    assert.equal(worker.log.grep(`Worker finished execution ${id} `).length, 1, `execution ${id} finished on the worker`);
    assert.equal(env.n8n.main.log.grep(`Worker started execution ${id} `).length, 0);
  }
}

test('queue mode: action node runs on the worker', { timeout: 180_000 }, async () => {
  await withN8nLogs(env, async () => {
    const { execution } = await runActionScenario(env);
    assertRanOnWorker([execution]);
  });
});

test('queue mode: trigger (test event, events, forged and repeated deliveries), executions run on the worker', { timeout: 120_000 }, async () => {
  await withN8nLogs(env, async () => {
    const { executions } = await runTriggerScenario(env);
    assertRanOnWorker(executions);
  });
});
