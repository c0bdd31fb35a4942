/**
 * Scenario 1: a workflow of action nodes, started by a production webhook, creates a list, adds
 * rows in bulk, reads them all back (Return All), creates a subscriber, tags it and sends it a
 * message. The sandbox's own API then shows exactly that state.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { E2eEnvironment } from '../lib/environment.ts';
import { assertSucceeded, nodeOutput, waitForExecutions } from '../lib/executions.ts';
import { callProductionWebhook, type Execution } from '../lib/n8nApi.ts';
import { actionNodes, actionWorkflow } from '../lib/workflows.ts';

/** More than one bulk request's worth (500 rows), so the node must split them. */
const ROW_COUNT = 650;

export interface ActionScenarioResult {
	execution: Execution;
}

export async function runActionScenario(env: E2eEnvironment): Promise<ActionScenarioResult> {
	const run = randomBytes(3).toString('hex');
	const input = {
		listName: `E2E orders ${run}`,
		rowCount: ROW_COUNT,
		botId: 'bot_tg',
		clientId: `e2e-${run}`,
		message: `Hello from n8n (${env.mode} mode)`,
	};
	const workflow = await env.api.createWorkflow(
		actionWorkflow({ credentialId: env.credentialId, webhookPath: `e2e-action-${run}` }),
	);
	await env.api.publishWorkflow(workflow.id);

	const started = await callProductionWebhook(env.n8n.baseUrl, `e2e-action-${run}`, input);
	assert.equal(started.status, 200, `the production webhook answered ${started.status}: ${await started.text()}`);

	const [execution] = await waitForExecutions(env.api, workflow.id, 1, 120_000);
	assertSucceeded(execution);
	await env.api.unpublishWorkflow(workflow.id);

	// What n8n saw.
	assert.equal(nodeOutput(execution, actionNodes.addRows).length, ROW_COUNT, 'Add Rows outputs one item per row');
	const readBack = nodeOutput<{ row?: { Name?: string } }>(execution, actionNodes.readAllRows);
	assert.equal(readBack.length, ROW_COUNT, 'Return All reads every row, over several pages');
	assert.deepEqual(
		readBack.map((row) => row.row?.Name),
		Array.from({ length: ROW_COUNT }, (_, i) => `Item ${i + 1}`),
	);
	assert.equal(nodeOutput(execution, actionNodes.subscriber)[0].created, true);

	// What the service holds.
	const lists = await env.service.api<{ items: Array<{ id: number; name: string; count: number; headers: string[] }> }>(
		'/list/all',
	);
	const list = lists.items.find((candidate) => candidate.name === input.listName);
	assert.ok(list, `the list "${input.listName}" exists`);
	assert.deepEqual(list.headers, ['Name', 'Qty', 'CreationDate']);
	assert.equal(list.count, ROW_COUNT);
	const rows = await env.service.api<{ items: Array<{ row: Record<string, unknown> }>; total: number }>(
		'/list/rows/get',
		{
			listid: list.id,
			limit: 1000,
		},
	);
	assert.equal(rows.total, ROW_COUNT);
	assert.deepEqual(rows.items[ROW_COUNT - 1].row.Name, `Item ${ROW_COUNT}`);
	assert.match(
		String(rows.items[0].row.CreationDate),
		/^\d{2}\.\d{2}\.\d{4} \d{2}:\d{2}$/,
		'the service filled CreationDate',
	);

	// The rows went in bulk (500 + 150), not one request per row.
	const log = await env.service.api<{ items: Array<{ path: string }> }>('/log/get', { path: '/list/row', limit: 1000 });
	const bulkCalls = log.items.filter((entry) => entry.path.endsWith('/list/rows/add')).length;
	const singleCalls = log.items.filter((entry) => entry.path.endsWith('/list/row/add')).length;
	assert.equal(bulkCalls, Math.ceil(ROW_COUNT / 500), 'one /list/rows/add request per 500 rows');
	assert.equal(singleCalls, 0, 'no row was added one by one');

	const { subscriber } = await env.service.api<{ subscriber: { name: string; tags: string[] } }>('/subscriber/get', {
		botid: input.botId,
		clientid: input.clientId,
	});
	assert.equal(subscriber.name, 'E2E Subscriber');
	assert.deepEqual([...subscriber.tags].sort(), ['e2e', 'vip']);
	const chat = await env.service.api<{ items: Array<Record<string, unknown>> }>('/subscriber/chat/get', {
		botid: input.botId,
		clientid: input.clientId,
	});
	assert.ok(
		chat.items.some((message) => message.text === input.message),
		`the chat history holds the message sent by n8n: ${JSON.stringify(chat.items)}`,
	);
	return { execution };
}
