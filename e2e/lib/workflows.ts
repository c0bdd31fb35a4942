/** Workflow definitions (n8n's JSON) that use our nodes, built the way the editor would save them. */
import { randomUUID } from 'node:crypto';
import { credentialType, n8nApiCredentialType, nodeTypes } from './communityPackage.ts';
import type { WorkflowDefinition } from './n8nApi.ts';

type Node = Record<string, unknown> & { name: string };

/** Lays the nodes out left to right and connects each to the next (main output 0 → input 0). */
function chain(name: string, nodes: Node[]): WorkflowDefinition {
	const connections: Record<string, unknown> = {};
	nodes.forEach((node, index) => {
		node.position = [index * 220, 0];
		node.id ??= randomUUID();
		const next = nodes[index + 1];
		if (next) connections[node.name] = { main: [[{ node: next.name, type: 'main', index: 0 }]] };
	});
	return { name, nodes, connections };
}

/** A resource locator value as the editor stores it. */
const locate = (mode: 'id' | 'name' | 'list', value: string) => ({ __rl: true, mode, value });

function action(
	name: string,
	credentialId: string,
	parameters: Record<string, unknown>,
	settings: Record<string, unknown> = {},
): Node {
	return {
		name,
		type: nodeTypes.action,
		typeVersion: 1,
		parameters,
		credentials: { [credentialType]: { id: credentialId, name: 'Messenger Bot Builder (sandbox)' } },
		...settings,
	};
}

/** The node named Start: a production webhook that takes a POST and answers at once. */
function webhookStart(webhookPath: string): Node {
	return {
		name: 'Start',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		webhookId: randomUUID(),
		parameters: { path: webhookPath, httpMethod: 'POST', responseMode: 'onReceived' },
	};
}

export interface ActionWorkflowOptions {
	credentialId: string;
	/** Production webhook path that starts the workflow. Its POST body: `{ listName, rowCount, botId, clientId }`. */
	webhookPath: string;
}

/** The names of the nodes whose output the action scenario reads. */
export const actionNodes = {
	createList: 'Create List',
	addRows: 'Add Rows',
	readAllRows: 'Read All Rows',
	subscriber: 'Create Subscriber',
	tags: 'Add Tags',
	message: 'Send Message',
} as const;

/**
 * Creates a list, adds `rowCount` rows in bulk (one input item per row), reads them all back with
 * Return All, then creates a subscriber, tags it and sends it a message.
 */
export function actionWorkflow({ credentialId, webhookPath }: ActionWorkflowOptions): WorkflowDefinition {
	const body = (field: string) => `={{ $('Start').first().json.body.${field} }}`;
	const list = locate('name', body('listName'));
	const subscriber = { botId: locate('id', body('botId')), clientId: body('clientId') };
	const once = { executeOnce: true };
	return chain(`E2E action ${webhookPath}`, [
		webhookStart(webhookPath),
		action(actionNodes.createList, credentialId, {
			resource: 'list',
			operation: 'create',
			name: body('listName'),
			headers: 'Name, Qty, CreationDate',
		}),
		{
			name: 'Make Rows',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: {
				jsCode:
					"const { rowCount } = $('Start').first().json.body;\n" +
					'return Array.from({ length: rowCount }, (_, i) => ({ json: { Name: `Item ${i + 1}`, Qty: i + 1 } }));',
			},
		},
		action(actionNodes.addRows, credentialId, {
			resource: 'listRow',
			operation: 'add',
			listId: list,
			columns: { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: [] },
		}),
		action(
			actionNodes.readAllRows,
			credentialId,
			{ resource: 'listRow', operation: 'getMany', listId: list, returnAll: true },
			once,
		),
		action(
			actionNodes.subscriber,
			credentialId,
			{
				resource: 'subscriber',
				operation: 'createOrUpdate',
				...subscriber,
				additionalFields: { name: 'E2E Subscriber' },
			},
			once,
		),
		action(actionNodes.tags, credentialId, {
			resource: 'subscriber',
			operation: 'addTags',
			...subscriber,
			tags: 'e2e, vip',
		}),
		action(actionNodes.message, credentialId, {
			resource: 'message',
			operation: 'send',
			...subscriber,
			text: body('message'),
		}),
	]);
}

/**
 * Sends one message per item: a Code node makes `count` items with the texts `<prefix> <n>`, and the
 * action node sends each to the subscriber. Started by a production webhook (body: `{ prefix, count,
 * botId, clientId }`), so many executions can run at once.
 */
export function sendManyWorkflow({ credentialId, webhookPath }: ActionWorkflowOptions): WorkflowDefinition {
	const body = (field: string) => `={{ $('Start').first().json.body.${field} }}`;
	return chain(`E2E send many ${webhookPath}`, [
		webhookStart(webhookPath),
		{
			name: 'Make Messages',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: {
				jsCode:
					"const { prefix, count } = $('Start').first().json.body;\n" +
					'return Array.from({ length: count }, (_, i) => ({ json: { text: `${prefix} ${i}` } }));',
			},
		},
		action(actionNodes.message, credentialId, {
			resource: 'message',
			operation: 'send',
			botId: locate('id', body('botId')),
			clientId: body('clientId'),
			text: '={{ $json.text }}',
		}),
	]);
}

/** The names of the nodes of `rowWritesWorkflow`. */
export const rowWriteNodes = { single: 'Add Row', bulk: 'Add Rows' } as const;

/**
 * Writes rows to an existing list both ways (body: `{ listName, singles, rows }`): first `singles` rows one at a time
 * (Loop Over Items, batch size 1: each run of Add Row gets one item, sent to /list/row/add with an Idempotency-Key),
 * then `rows` rows in one run of Add Rows (bulk /list/rows/add requests of 500, no key).
 */
export function rowWritesWorkflow({ credentialId, webhookPath }: ActionWorkflowOptions): WorkflowDefinition {
	const list = locate('name', "={{ $('Start').first().json.body.listName }}");
	const columns = { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: [] };
	const code = (name: string, jsCode: string): Node => ({
		name,
		type: 'n8n-nodes-base.code',
		typeVersion: 2,
		parameters: { jsCode },
	});
	const nodes: Node[] = [
		webhookStart(webhookPath),
		code(
			'Make Singles',
			"const { singles } = $('Start').first().json.body;\nreturn Array.from({ length: singles }, (_, i) => ({ json: { Name: `Single ${i + 1}`, Qty: i + 1 } }));",
		),
		{ name: 'Loop', type: 'n8n-nodes-base.splitInBatches', typeVersion: 3, parameters: { batchSize: 1, options: {} } },
		action(rowWriteNodes.single, credentialId, { resource: 'listRow', operation: 'add', listId: list, columns }),
		code(
			'Make Rows',
			"const { rows } = $('Start').first().json.body;\nreturn Array.from({ length: rows }, (_, i) => ({ json: { Name: `Bulk ${i + 1}`, Qty: i + 1 } }));",
		),
		action(rowWriteNodes.bulk, credentialId, { resource: 'listRow', operation: 'add', listId: list, columns }),
	];
	nodes.forEach((node, index) => {
		node.id = randomUUID();
		node.position = [index * 220, 0];
	});
	const to = (node: string) => [{ node, type: 'main', index: 0 }];
	return {
		name: `E2E row writes ${webhookPath}`,
		nodes,
		connections: {
			Start: { main: [to('Make Singles')] },
			'Make Singles': { main: [to('Loop')] },
			// Loop Over Items: output 0 is "done", output 1 the next batch.
			Loop: { main: [to('Make Rows'), to(rowWriteNodes.single)] },
			[rowWriteNodes.single]: { main: [to('Loop')] },
			'Make Rows': { main: [to(rowWriteNodes.bulk)] },
		},
	};
}

/** How long each run of the trigger workflow lasts at least: a delivery's answer must come before its run ends. */
export const TRIGGER_RUN_SECONDS = 1;

/**
 * A workflow that starts on every event kind and outputs the whole event (id, type, data), then
 * waits TRIGGER_RUN_SECONDS so that "answered at once" and "answered when the run ended" differ.
 */
export function triggerWorkflow(credentialId: string, name: string): WorkflowDefinition {
	return chain(name, [
		{
			name: 'On Event',
			type: nodeTypes.trigger,
			typeVersion: 1.1,
			webhookId: randomUUID(),
			parameters: { events: ['*'], options: { output: 'envelope' } },
			credentials: { [credentialType]: { id: credentialId, name: 'Messenger Bot Builder (sandbox)' } },
		},
		{
			name: 'Hold',
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			webhookId: randomUUID(),
			parameters: { resume: 'timeInterval', amount: TRIGGER_RUN_SECONDS, unit: 'seconds' },
		},
	]);
}

/** The names of the nodes whose output the n8n 1.x smoke test reads. */
export const smokeNodes = { read: 'Get Balance', write: 'Create Subscriber' } as const;

/**
 * One read and one write, started by a production webhook (body: `{ botId, clientId, name }`): Account → Get
 * Balance, then Subscriber → Create or Update. Only parameters that n8n 1.x and 2.x store alike.
 */
export function smokeWorkflow({ credentialId, webhookPath }: ActionWorkflowOptions): WorkflowDefinition {
	const body = (field: string) => `={{ $('Start').first().json.body.${field} }}`;
	return chain(`E2E smoke ${webhookPath}`, [
		webhookStart(webhookPath),
		action(smokeNodes.read, credentialId, { resource: 'account', operation: 'getBalance' }),
		action(smokeNodes.write, credentialId, {
			resource: 'subscriber',
			operation: 'createOrUpdate',
			botId: locate('id', body('botId')),
			clientId: body('clientId'),
			additionalFields: { name: body('name') },
		}),
	]);
}

/** The claim log's credential as a workflow names it. */
export interface ClaimLogCredential {
	id: string;
	name: string;
}

/** The trigger (node "On Event") with the claim log as its repeat check and `options` of its own. */
function claimLogTrigger(
	credentialId: string,
	n8nApiCredential: ClaimLogCredential,
	options: Record<string, unknown>,
): Node {
	return {
		name: 'On Event',
		type: nodeTypes.trigger,
		typeVersion: 1.1,
		webhookId: randomUUID(),
		parameters: { events: ['*'], repeatCheck: 'claimLog', options: { output: 'envelope', ...options } },
		credentials: {
			[credentialType]: { id: credentialId, name: 'Messenger Bot Builder (sandbox)' },
			[n8nApiCredentialType]: n8nApiCredential,
		},
	};
}

/** The trigger with the claim log → Hold, as `triggerWorkflow` with the claim log as its repeat check. */
export function claimLogTriggerWorkflow(options: {
	name: string;
	credentialId: string;
	n8nApiCredential: ClaimLogCredential;
}): WorkflowDefinition {
	const [, hold] = triggerWorkflow(options.credentialId, options.name).nodes;
	return chain(options.name, [
		claimLogTrigger(options.credentialId, options.n8nApiCredential, {}),
		{ ...(hold as Node), id: undefined, webhookId: randomUUID() },
	]);
}

/** The trigger with the claim log → Stop and Error: every execution that runs the event fails. */
export function failingClaimLogWorkflow(options: {
	name: string;
	credentialId: string;
	n8nApiCredential: ClaimLogCredential;
}): WorkflowDefinition {
	return chain(options.name, [
		claimLogTrigger(options.credentialId, options.n8nApiCredential, {}),
		{
			name: 'Fail',
			type: 'n8n-nodes-base.stopAndError',
			typeVersion: 1,
			parameters: { errorMessage: 'the workflow failed on purpose' },
		},
	]);
}

/** The names of the nodes of `answerWhenFinishedWorkflow`. */
export const answerWhenFinishedNodes = { trigger: 'On Event', hold: 'Hold', row: 'Add Row' } as const;

/**
 * The trigger with the claim log, answering the service when the workflow has finished: On Event → Hold (an
 * in-process wait of `holdSeconds`, under n8n's 65 s, so the execution keeps its worker) → one row named after the
 * event → Add Row (one item: /list/row/add with an Idempotency-Key).
 */
export function answerWhenFinishedWorkflow(options: {
	name: string;
	credentialId: string;
	n8nApiCredential: ClaimLogCredential;
	listName: string;
	holdSeconds: number;
}): WorkflowDefinition {
	const columns = { mappingMode: 'autoMapInputData', value: null, matchingColumns: [], schema: [] };
	return chain(options.name, [
		claimLogTrigger(options.credentialId, options.n8nApiCredential, { respondWhen: 'finished' }),
		{
			name: answerWhenFinishedNodes.hold,
			type: 'n8n-nodes-base.wait',
			typeVersion: 1.1,
			webhookId: randomUUID(),
			parameters: { resume: 'timeInterval', amount: options.holdSeconds, unit: 'seconds' },
		},
		{
			name: 'Row',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			parameters: {
				jsCode: `return [{ json: { Name: $('${answerWhenFinishedNodes.trigger}').first().json.id, Qty: 1 } }];`,
			},
		},
		action(answerWhenFinishedNodes.row, options.credentialId, {
			resource: 'listRow',
			operation: 'add',
			listId: locate('name', options.listName),
			columns,
		}),
	]);
}
