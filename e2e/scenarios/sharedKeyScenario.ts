/**
 * Scenario: several executions at once, on two queue-mode workers, all sending messages with one
 * API key (one credential) against the sandbox's limit of 10 requests/s per key. Each worker paces
 * itself alone; they meet only through the service's 429s. None may fail, and the service must
 * record every message exactly once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { E2eEnvironment } from '../lib/environment.ts';
import { assertSucceeded, nodeOutput, waitForExecutions } from '../lib/executions.ts';
import { callProductionWebhook, type Execution } from '../lib/n8nApi.ts';
import { actionNodes, sendManyWorkflow } from '../lib/workflows.ts';

export interface SharedKeyScenarioResult {
	executions: Execution[];
}

export async function runSharedKeyScenario(
	env: E2eEnvironment,
	{ executions: count, messages }: { executions: number; messages: number },
): Promise<SharedKeyScenarioResult> {
	const run = randomBytes(3).toString('hex');
	const clientId = `e2e-shared-${run}`;
	await env.service.api('/subscriber/create', {
		botid: 'bot_tg',
		clientid: clientId,
		messenger: 'telegram',
		name: 'Shared key',
	});
	const workflow = await env.api.createWorkflow(
		sendManyWorkflow({ credentialId: env.credentialId, webhookPath: `e2e-shared-${run}` }),
	);
	await env.api.publishWorkflow(workflow.id);

	const prefixes = Array.from({ length: count }, (_, n) => `shared ${run} execution ${n}`);
	const answers = await Promise.all(
		prefixes.map((prefix) =>
			callProductionWebhook(env.n8n.baseUrl, `e2e-shared-${run}`, {
				prefix,
				count: messages,
				botId: 'bot_tg',
				clientId,
			}),
		),
	);
	for (const answer of answers) assert.equal(answer.status, 200, `the production webhook answered ${answer.status}`);

	const executions = await waitForExecutions(env.api, workflow.id, count, 180_000);
	await env.api.unpublishWorkflow(workflow.id);
	for (const execution of executions) {
		assertSucceeded(execution);
		const sent = nodeOutput(execution, actionNodes.message);
		assert.equal(sent.length, messages, `execution ${execution.id} sent every message`);
		assert.ok(
			sent.every((item) => item.ok === true),
			`execution ${execution.id}: every item succeeded`,
		);
	}

	// What the service recorded: every message exactly once.
	const recorded = new Map<string, number>();
	for (let offset = 0; ; offset += 1000) {
		const page = await env.service.api<{ items: Array<{ text: string }> }>('/subscriber/chat/get', {
			botid: 'bot_tg',
			clientid: clientId,
			limit: 1000,
			offset,
		});
		for (const message of page.items) recorded.set(message.text, (recorded.get(message.text) ?? 0) + 1);
		if (page.items.length === 0) break;
	}
	const expected = prefixes.flatMap((prefix) => Array.from({ length: messages }, (_, n) => `${prefix} ${n}`));
	assert.deepEqual(
		expected.filter((text) => recorded.get(text) !== 1),
		[],
		'every message recorded exactly once',
	);
	return { executions };
}
