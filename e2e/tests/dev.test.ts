/**
 * `npm run dev` as a user meets it: a taken port gets one line naming the variable that moves it; a
 * second start on other ports points the sandbox credential at the new sandbox; every example
 * workflow succeeds twice in a row in that n8n.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, test } from 'node:test';
import { loadExamples } from '../lib/examples.ts';
import { assertSucceeded, waitForExecutions } from '../lib/executions.ts';
import { credentialAsEditorSees, PublicApi, runManually, signIn } from '../lib/n8nApi.ts';
import { e2eDir, outDir, repoRoot } from '../lib/paths.ts';
import { freePorts } from '../lib/ports.ts';

const devScript = path.join(e2eDir, 'dev.ts');
mkdirSync(outDir, { recursive: true });
const stateDir = mkdtempSync(path.join(outDir, 'dev-test-'));
const running = new Set<ChildProcess>();

after(async () => {
  for (const child of running) {
    child.kill('SIGINT');
    await once(child, 'exit');
  }
  rmSync(stateDir, { recursive: true, force: true });
});

interface DevRun {
  child: ChildProcess;
  output: () => string;
  stop(): Promise<void>;
}

/** Starts `node e2e/dev.ts` (the package and sandbox are built by the e2e runner) and waits for its banner. */
async function startDev(ports: { n8n: number; sandbox: number }): Promise<DevRun> {
  const child = spawn(process.execPath, [devScript, '--no-watch', '--no-build', '--dir', stateDir], {
    cwd: repoRoot,
    env: { ...process.env, N8N_PORT: String(ports.n8n), SANDBOX_PORT: String(ports.sandbox) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = once(child, 'exit');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run dev did not get ready in 240 s:\n${output.slice(-3000)}`)), 240_000);
    const check = () => {
      if (output.includes('Ctrl+C stops everything.')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm run dev exited (${code}) before it was ready:\n${output.slice(-3000)}`));
    });
  });
  return {
    child,
    output: () => output,
    async stop() {
      child.kill('SIGINT');
      const [code] = await exited;
      running.delete(child);
      assert.equal(code, 0, `npm run dev did not stop cleanly:\n${output.slice(-2000)}`);
    },
  };
}

/** Runs `node e2e/dev.ts` that must refuse to start; returns its exit code and output. */
async function refusedDev(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [devScript, '--no-watch', '--no-build', '--dir', stateDir], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

function listenOn(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

test('a taken port: one line naming the port and the variable that changes it, nothing started', { timeout: 60_000 }, async () => {
  const [n8nPort, sandboxPort] = await freePorts(2);
  for (const [variable, what, taken] of [
    ['SANDBOX_PORT', 'sandbox', sandboxPort],
    ['N8N_PORT', 'n8n', n8nPort],
  ] as const) {
    const blocker = await listenOn(taken);
    try {
      const result = await refusedDev({ N8N_PORT: String(n8nPort), SANDBOX_PORT: String(sandboxPort) });
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      assert.equal(
        result.stderr,
        `dev: port ${taken} (${what}) is already in use on 127.0.0.1; set ${variable} to a free port, e.g. ${variable}=${taken + 1} npm run dev\n`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }
  const invalid = await refusedDev({ N8N_PORT: 'abc' });
  assert.equal(invalid.code, 1);
  assert.equal(invalid.stderr, 'dev: N8N_PORT must be a port number from 1 to 65535, got "abc"\n');
});

test('second start on other ports: the credential follows the sandbox; every example succeeds twice in a row', { timeout: 900_000 }, async () => {
  const [n8nA, sandboxA, n8nB, sandboxB] = await freePorts(4);
  const state = () => JSON.parse(readFileSync(path.join(stateDir, 'state.json'), 'utf8')) as { apiKey: string; credentialId: string };

  const first = await startDev({ n8n: n8nA, sandbox: sandboxA });
  const firstCredential = state().credentialId;
  assert.match(first.output(), new RegExp(`→ http://127\\.0\\.0\\.1:${sandboxA}/api \\(created\\)`));
  await first.stop();

  const second = await startDev({ n8n: n8nB, sandbox: sandboxB });
  const baseUrl = `http://127.0.0.1:${n8nB}`;
  assert.equal(state().credentialId, firstCredential, 'the credential is updated in place, so imported workflows keep it');
  assert.match(second.output(), new RegExp(`→ http://127\\.0\\.0\\.1:${sandboxB}/api \\(updated\\)`));
  const session = await signIn(baseUrl);
  const stored = await credentialAsEditorSees(baseUrl, session, firstCredential);
  assert.equal(stored.data.baseUrl, `http://127.0.0.1:${sandboxB}/api`);
  const api = new PublicApi(baseUrl, state().apiKey);
  // n8n's credential test calls the service at the stored address: only the new sandbox is up.
  assert.deepEqual(await api.testCredential(firstCredential), { status: 'OK', message: 'Connection successful!' });

  const examples = loadExamples({ id: firstCredential, name: 'unused' });
  assert.ok(examples.length >= 15, `expected every example workflow, found ${examples.length}`);
  const ids = new Map((await api.workflows()).map((workflow) => [workflow.name, workflow.id]));
  const failures: string[] = [];
  const eventStarted: string[] = [];
  for (const { file, workflow } of examples) {
    const id = ids.get(workflow.name);
    assert.ok(id, `${file}: workflow "${workflow.name}" was not imported`);
    const trigger = workflow.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger');
    if (!trigger) {
      // A workflow that starts on service events has no manual start: scenario 6 runs it on real deliveries.
      assert.ok(
        workflow.nodes.some((node) => node.type === 'n8n-nodes-messenger-bot-builder.messengerBotBuilderTrigger'),
        `${file}: neither a manual trigger nor the Messenger Bot Builder Trigger`,
      );
      eventStarted.push(file);
      continue;
    }
    for (const round of [1, 2]) {
      await runManually(baseUrl, session, id, String(trigger.name));
      const executions = await waitForExecutions(api, id, round, 120_000);
      assert.equal(executions.length, round, `${file}: one execution per run`);
      try {
        assertSucceeded(executions[round - 1]);
      } catch (error) {
        failures.push(`${file} run ${round}: ${(error as Error).message}`);
      }
    }
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(eventStarted, ['trigger-events.json']);
  await second.stop();
});
