/**
 * Scenario 2: a workflow with the trigger node is published; its hook appears in the service.
 * A new subscriber, a stage change and a payment each start exactly one successful execution that
 * carries the event; unpublishing removes the hook.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { E2eEnvironment } from '../lib/environment.ts';
import { assertSucceeded, nodeOutput, waitForExecutions } from '../lib/executions.ts';
import type { Execution } from '../lib/n8nApi.ts';
import { sleep, waitFor } from '../lib/waitFor.ts';
import { triggerWorkflow } from '../lib/workflows.ts';

interface HookView {
  id: string;
  url: string;
  events: string[];
}

/** How long to keep watching for a second, duplicate execution after the expected ones arrived. */
const DUPLICATE_WATCH_MS = 3000;

async function hooksTo(env: E2eEnvironment, urlPrefix: string): Promise<HookView[]> {
  const { items } = await env.service.api<{ items: HookView[] }>('/hook/list', { limit: 1000 });
  return items.filter((hook) => hook.url.startsWith(urlPrefix));
}

export interface TriggerScenarioResult {
  executions: Execution[];
}

export async function runTriggerScenario(env: E2eEnvironment): Promise<TriggerScenarioResult> {
  const run = randomBytes(3).toString('hex');
  const clientid = `e2e-trigger-${run}`;
  const webhookBase = `${env.n8n.baseUrl}/webhook`;
  const workflow = await env.api.createWorkflow(triggerWorkflow(env.credentialId, `E2E trigger ${run}`));
  const hooksBefore = await hooksTo(env, webhookBase);

  await env.api.publishWorkflow(workflow.id);
  const [hook] = await waitFor(
    async () => {
      const added = (await hooksTo(env, webhookBase)).filter((candidate) => !hooksBefore.some((old) => old.id === candidate.id));
      return added.length ? added : undefined;
    },
    { what: 'the hook that publishing the trigger workflow creates', timeoutMs: 20_000, intervalMs: 500 },
  );
  assert.deepEqual([...hook.events].sort(), ['payment.success', 'subscriber.new', 'subscriber.stage']);

  // One event at a time: each must start its own execution before the next one happens.
  const events: Array<{ type: string; cause: () => Promise<unknown>; check: (data: Record<string, any>) => void }> = [
    {
      type: 'subscriber.new',
      cause: () => env.service.api('/subscriber/create', { botid: 'bot_tg', clientid, name: 'Trigger Tester' }),
      check: (data) => {
        assert.equal(data.subscriber.clientid, clientid);
        assert.equal(data.subscriber.name, 'Trigger Tester');
      },
    },
    {
      type: 'subscriber.stage',
      cause: () => env.service.api('/crm/stage/set', { botid: 'bot_tg', clientid, stage: 'Qualified' }),
      check: (data) => {
        assert.equal(data.subscriber.clientid, clientid);
        assert.equal(data.stage, 'Qualified');
      },
    },
    {
      type: 'payment.success',
      cause: () =>
        env.service.sandboxRoute('/payments', {
          botid: 'bot_tg',
          clientid,
          messenger: 'telegram',
          amount: 42.5,
          currency: 'EUR',
          description: `E2E order ${run}`,
        }),
      check: (data) => {
        assert.equal(data.payment.clientid, clientid);
        assert.equal(data.payment.amount, 42.5);
        assert.equal(data.payment.currency, 'EUR');
      },
    },
  ];
  for (const [index, event] of events.entries()) {
    await event.cause();
    const executions = await waitForExecutions(env.api, workflow.id, index + 1, 30_000);
    const latest = executions[index];
    assertSucceeded(latest);
    const [item] = nodeOutput(latest, 'On Event');
    assert.equal(item.type, event.type, `execution ${latest.id} carries the ${event.type} event`);
    assert.equal(item.hook, hook.id);
    event.check(item.data);
  }

  await sleep(DUPLICATE_WATCH_MS);
  const executions = await waitForExecutions(env.api, workflow.id, events.length);
  assert.equal(executions.length, events.length, 'each event started exactly one execution');
  assert.equal(new Set(executions.map((execution) => nodeOutput(execution, 'On Event')[0].id)).size, events.length);

  await env.api.unpublishWorkflow(workflow.id);
  await waitFor(async () => ((await hooksTo(env, webhookBase)).some((candidate) => candidate.id === hook.id) ? undefined : true), {
    what: `hook ${hook.id} to be deleted after unpublishing`,
    timeoutMs: 20_000,
    intervalMs: 500,
  });
  return { executions };
}
