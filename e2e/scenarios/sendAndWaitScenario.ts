/**
 * Scenario 5: Message → Send and Wait for Response in a real n8n. Published workflows, started through
 * their production webhook, send a subscriber a question with answer buttons and wait. The test reads
 * the buttons from the subscriber's chat history in the sandbox and "taps" them with plain GETs, as a
 * messenger's browser would:
 * - approve: the execution resumes with { answer: 'Approve', approved: true }, the page thanks;
 * - altered URL: the Approve link with its answer changed is refused (401) and resumes nothing;
 *   then the genuine Decline link resumes it with { approved: false };
 * - own choices: the second of three answers comes out as the answer;
 * - second tap: after an execution finished, its buttons show n8n's "no action required" page (200),
 *   and no node runs again;
 * - time limit: nobody answers; the execution resumes by itself with { answer: null, timedOut: true }.
 * With `screenshotDir`, the waiting execution is photographed in the editor (Chromium).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { launchChromium } from '../lib/browser.ts';
import { credentialType, nodeTypes } from '../lib/communityPackage.ts';
import type { E2eEnvironment } from '../lib/environment.ts';
import { assertSucceeded } from '../lib/executions.ts';
import { callProductionWebhook, defaultOwner, type Execution, type WorkflowDefinition } from '../lib/n8nApi.ts';
import { waitFor } from '../lib/waitFor.ts';

const ASK = 'Ask';
const AFTER = 'After';
const BOT = 'bot_tg';
/** n8n's wait tracker looks for due executions once a minute, so a time limit ends within about a minute. */
const TIME_LIMIT_WAIT_MS = 150_000;

interface Button {
  name: string;
  url: string;
}

function askWorkflow(env: E2eEnvironment, path: string, askParameters: Record<string, unknown>): WorkflowDefinition {
  const nodes = [
    {
      id: randomUUID(),
      name: 'Start',
      type: 'n8n-nodes-base.webhook',
      typeVersion: 2,
      position: [0, 0],
      webhookId: randomUUID(),
      parameters: { path, httpMethod: 'POST', responseMode: 'onReceived' },
    },
    {
      id: randomUUID(),
      name: ASK,
      type: nodeTypes.action,
      typeVersion: 2,
      position: [220, 0],
      parameters: {
        resource: 'message',
        operation: 'sendAndWait',
        botId: { __rl: true, mode: 'id', value: BOT },
        clientId: '={{ $json.body.clientId }}',
        message: '={{ $json.body.question }}',
        ...askParameters,
      },
      credentials: { [credentialType]: { id: env.credentialId, name: 'Messenger Bot Builder (sandbox)' } },
    },
    { id: randomUUID(), name: AFTER, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [440, 0], parameters: {} },
  ];
  return {
    name: `E2E send and wait ${path}`,
    nodes,
    connections: {
      Start: { main: [[{ node: ASK, type: 'main', index: 0 }]] },
      [ASK]: { main: [[{ node: AFTER, type: 'main', index: 0 }]] },
    },
  };
}

async function publishedAskWorkflow(env: E2eEnvironment, askParameters: Record<string, unknown>): Promise<{ id: string; path: string }> {
  const path = `e2e-ask-${randomBytes(4).toString('hex')}`;
  const workflow = await env.api.createWorkflow(askWorkflow(env, path, askParameters));
  await env.api.publishWorkflow(workflow.id);
  return { id: workflow.id, path };
}

async function execution(env: E2eEnvironment, workflowId: string, id: string): Promise<Execution> {
  const found = await env.api.execution(id, { includeData: true });
  assert.equal(String(found.workflowId), workflowId, `execution ${id} belongs to workflow ${workflowId}`);
  return found;
}

/** Starts the workflow for a new subscriber; resolves once its execution waits and the question is in the chat. */
async function ask(env: E2eEnvironment, workflow: { id: string; path: string }, question: string) {
  const clientId = `e2e-ask-${randomBytes(4).toString('hex')}`;
  await env.service.api('/subscriber/create', { botid: BOT, clientid: clientId, name: 'E2E Asked' });
  const before = new Set((await env.api.executions(workflow.id)).map((candidate) => candidate.id));
  const started = await callProductionWebhook(env.n8n.baseUrl, workflow.path, { clientId, question });
  assert.equal(started.status, 200, `the production webhook answered ${started.status}: ${await started.text()}`);
  const waiting = await waitFor(
    async () => (await env.api.executions(workflow.id)).find((candidate) => !before.has(candidate.id) && candidate.status === 'waiting'),
    { what: `a waiting execution of workflow ${workflow.id}`, timeoutMs: 60_000, intervalMs: 300 },
  );
  const chat = await env.service.api<{ items: Array<{ text: string; buttons: Button[] }> }>('/subscriber/chat/get', {
    botid: BOT,
    clientid: clientId,
  });
  const message = chat.items.find((item) => item.text === question);
  assert.ok(message, `the subscriber got the question: ${JSON.stringify(chat.items)}`);
  for (const button of message.buttons) {
    assert.ok(
      button.url.startsWith(`${env.n8n.baseUrl}/webhook-waiting/${waiting.id}/`),
      `the button "${button.name}" leads to n8n's resume URL of execution ${waiting.id}: ${button.url}`,
    );
    assert.match(button.url, /[?&]signature=[0-9a-f]{64}(&|$)/, 'the resume URL is signed');
  }
  return { executionId: waiting.id, clientId, buttons: message.buttons };
}

async function tap(url: string): Promise<{ status: number; type: string; body: string }> {
  const response = await fetch(url);
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
}

async function finished(env: E2eEnvironment, workflowId: string, id: string): Promise<Execution> {
  return waitFor(
    async () => {
      const found = await execution(env, workflowId, id);
      return ['new', 'running', 'waiting'].includes(found.status) ? undefined : found;
    },
    { what: `execution ${id} to finish`, timeoutMs: 60_000, intervalMs: 300 },
  );
}

function outputOf(run: Execution, node: string): Array<Record<string, any>> {
  const runs = run.data?.resultData.runData[node];
  assert.ok(runs?.length, `node ${node} ran in execution ${run.id}`);
  assert.equal(runs.length, 1, `node ${node} ran once in execution ${run.id}`);
  return (runs[0].data?.main[0] ?? []).map((item) => item.json);
}

function assertThanks(page: { status: number; type: string; body: string }, answer: string): void {
  assert.equal(page.status, 200, `the answer page is a success: ${page.body.slice(0, 300)}`);
  assert.match(page.type, /^text\/html/);
  assert.ok(page.body.includes('Thank you') && page.body.includes(answer), `the page thanks for "${answer}": ${page.body.slice(0, 300)}`);
}

/** A second tap: a page that is not an error, and not our thanks (nothing was recorded). */
function assertNothingToDo(page: { status: number; type: string; body: string }): void {
  assert.equal(page.status, 200, `a second tap is not an error: HTTP ${page.status} ${page.body.slice(0, 300)}`);
  assert.match(page.type, /^text\/html/);
  assert.ok(!page.body.includes('Thank you'), 'a second tap records nothing');
}

async function screenshotWaiting(env: E2eEnvironment, workflowId: string, executionId: string, file: string): Promise<void> {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.setDefaultTimeout(30_000);
    await page.goto(`${env.n8n.baseUrl}/signin`);
    await page.locator('#emailOrLdapLoginId').fill(defaultOwner.email);
    await page.locator('#password').fill(defaultOwner.password);
    await page.getByTestId('form-submit-button').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/signin'));
    await page.goto(`${env.n8n.baseUrl}/workflow/${workflowId}/executions/${executionId}`);
    const askNode = page.getByTestId('canvas-node').filter({ hasText: ASK });
    await askNode.waitFor({ state: 'visible' });
    // n8n's first-visit checklist pops over the canvas.
    await page.getByText('Production Checklist').locator('..').getByRole('button').first().click().catch(() => undefined);
    await page.keyboard.press('Escape');
    await page.getByText('Waiting', { exact: true }).first().waitFor({ state: 'visible' });
    await page.waitForTimeout(1000);
    await page.screenshot({ path: file });
  } finally {
    await browser.close();
  }
}

export async function runSendAndWaitScenario(env: E2eEnvironment, options: { screenshotDir?: string } = {}): Promise<Execution[]> {
  // The time limit runs longest: start it first, check it last.
  const limited = await publishedAskWorkflow(env, {
    responseType: 'approval',
    options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0.25, resumeUnit: 'minutes' } } },
  });
  const unanswered = await ask(env, limited, 'Nobody answers this one');

  const approval = await publishedAskWorkflow(env, { responseType: 'approval' });
  const choice = await publishedAskWorkflow(env, {
    responseType: 'choice',
    choices: { values: [{ label: 'Today' }, { label: 'Tomorrow & later' }, { label: 'Never' }] },
  });

  // Approve.
  const approved = await ask(env, approval, 'Approve the refund?');
  assert.deepEqual(approved.buttons.map((button) => button.name), ['Approve', 'Decline']);
  if (options.screenshotDir) {
    await screenshotWaiting(env, approval.id, approved.executionId, path.join(options.screenshotDir, 'send-and-wait-waiting.png'));
  }
  assertThanks(await tap(approved.buttons[0].url), 'Approve');
  const approvedRun = await finished(env, approval.id, approved.executionId);
  assertSucceeded(approvedRun);
  assert.deepEqual(outputOf(approvedRun, ASK), [{ data: { answer: 'Approve', approved: true, timedOut: false } }]);
  assert.deepEqual(outputOf(approvedRun, AFTER), [{ data: { answer: 'Approve', approved: true, timedOut: false } }]);

  // Second taps, on either button, after the execution finished.
  assertNothingToDo(await tap(approved.buttons[0].url));
  assertNothingToDo(await tap(approved.buttons[1].url));
  const afterSecondTaps = await execution(env, approval.id, approved.executionId);
  assert.equal(afterSecondTaps.status, 'success');
  assert.deepEqual(outputOf(afterSecondTaps, ASK), [{ data: { answer: 'Approve', approved: true, timedOut: false } }]);

  // An altered URL is refused; the genuine Decline then resumes the execution.
  const declined = await ask(env, approval, 'Approve the second refund?');
  const altered = new URL(declined.buttons[0].url);
  altered.searchParams.set('approved', 'false');
  const refused = await tap(altered.toString());
  assert.equal(refused.status, 401, `an altered resume URL is refused: HTTP ${refused.status} ${refused.body.slice(0, 200)}`);
  const forgedAnswer = new URL(declined.buttons[1].url);
  forgedAnswer.searchParams.set('answer', 'Approve');
  assert.equal((await tap(forgedAnswer.toString())).status, 401, 'a changed answer is refused');
  assert.equal((await execution(env, approval.id, declined.executionId)).status, 'waiting', 'a refused tap resumes nothing');
  assertThanks(await tap(declined.buttons[1].url), 'Decline');
  const declinedRun = await finished(env, approval.id, declined.executionId);
  assertSucceeded(declinedRun);
  assert.deepEqual(outputOf(declinedRun, ASK), [{ data: { answer: 'Decline', approved: false, timedOut: false } }]);

  // The user's own answers.
  const chosen = await ask(env, choice, 'When shall we deliver?');
  assert.deepEqual(chosen.buttons.map((button) => button.name), ['Today', 'Tomorrow & later', 'Never']);
  assertThanks(await tap(chosen.buttons[1].url), 'Tomorrow &#38; later');
  const chosenRun = await finished(env, choice.id, chosen.executionId);
  assertSucceeded(chosenRun);
  assert.deepEqual(outputOf(chosenRun, ASK), [{ data: { answer: 'Tomorrow & later', timedOut: false } }]);

  // The time limit: nobody tapped; the wait ends by itself.
  const timedOutRun = await waitFor(
    async () => {
      const found = await execution(env, limited.id, unanswered.executionId);
      return ['new', 'running', 'waiting'].includes(found.status) ? undefined : found;
    },
    { what: `execution ${unanswered.executionId} to end at its time limit`, timeoutMs: TIME_LIMIT_WAIT_MS, intervalMs: 1000 },
  );
  assertSucceeded(timedOutRun);
  assert.deepEqual(outputOf(timedOutRun, ASK), [{ data: { answer: null, timedOut: true } }]);
  assert.deepEqual(outputOf(timedOutRun, AFTER), [{ data: { answer: null, timedOut: true } }]);
  assertNothingToDo(await tap(unanswered.buttons[0].url));

  for (const workflow of [limited, approval, choice]) await env.api.unpublishWorkflow(workflow.id);
  return [approvedRun, declinedRun, chosenRun, timedOutRun];
}
