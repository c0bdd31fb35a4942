/**
 * Scenario 2. First "listen for test event" in a draft workflow: a hook for n8n's test URL appears,
 * one event starts one manual execution, and n8n's removal of the test webhook removes the hook.
 * Then a workflow with the trigger node is published; its hook appears in the service.
 * A new subscriber, a stage change and a payment each start exactly one successful execution that
 * carries the event. Deliveries sent by hand to n8n's webhook URL (tampered, wrongly signed, unsigned,
 * stale) answer 401 and start nothing; a repeat of an accepted event answers 200 and starts nothing;
 * a genuine one is answered 200 before its run ends and starts exactly one execution. Unpublishing
 * removes the hook.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { credentialType } from '../lib/communityPackage.ts';
import { otherSecret, sendDelivery, subscriberEvent, type SendOptions, type TriggerHook } from '../lib/deliveries.ts';
import type { E2eEnvironment } from '../lib/environment.ts';
import {
	assertEventRanOnce,
	assertSucceeded,
	describeRuns,
	nodeOutput,
	type EventItem,
	outputIfRan,
	waitForExecutions,
} from '../lib/executions.ts';
import { listenForTestEvent, type Execution } from '../lib/n8nApi.ts';
import { SandboxClient, startSandbox } from '../lib/sandbox.ts';
import { sleep, waitFor } from '../lib/waitFor.ts';
import { TRIGGER_RUN_SECONDS, triggerWorkflow } from '../lib/workflows.ts';
import { payFromConsole } from '../lib/console.ts';

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

/** The trigger's hook as n8n stores it in the node's static data. */
async function storedHook(env: E2eEnvironment, workflowId: string, hook: HookView): Promise<TriggerHook> {
	const state = (await env.api.getWorkflow(workflowId)).staticData?.['node:On Event'] ?? {};
	assert.equal(state.hookId, hook.id, "the node's static data holds the id of the hook it created");
	assert.equal(state.url, hook.url);
	assert.ok(
		typeof state.secret === 'string' && state.secret.startsWith('whsec_'),
		"the node's static data holds the hook secret",
	);
	return { hookId: hook.id, secret: state.secret, url: hook.url };
}

/**
 * Deliveries POSTed by hand to the live webhook URL. Forgeries and stale signatures answer 401, a
 * correctly signed repeat of an accepted event answers 200; none of them may start an execution
 * (the caller counts). Last, the untouched delivery the forgeries were made from is sent genuinely:
 * it must be accepted, so the refusals were about the forgery and not about the signing.
 */
async function sendDeliveriesByHand(
	env: E2eEnvironment,
	workflowId: string,
	hook: HookView,
	acceptedEvent: EventItem,
	clientid: string,
): Promise<{ id: string; answeredAt: number }> {
	const trigger = await storedHook(env, workflowId, hook);
	const genuine = subscriberEvent(hook.id, `evt_by_hand_${randomBytes(6).toString('hex')}`, clientid);
	const tampered = genuine.body.replace(clientid, `${clientid}-changed`);
	const now = Math.floor(Date.now() / 1000);
	const refused: Array<[string, SendOptions]> = [
		['a tampered body under the JWT', { scheme: 'jwt', sentBody: tampered }],
		['a tampered body under Standard Webhooks', { scheme: 'standard-webhooks', sentBody: tampered }],
		['a delivery signed with another secret', { secret: otherSecret() }],
		['an unsigned delivery', { scheme: 'none' }],
		['a signature ten minutes old (a replay outside the window)', { timestamp: now - 600 }],
		['a signature ten minutes ahead', { timestamp: now + 600 }],
	];
	for (const [what, options] of refused) {
		assert.equal(await sendDelivery(trigger, genuine, options), 401, `n8n answers 401 to ${what}`);
	}
	const repeat = { id: String(acceptedEvent.id), body: JSON.stringify(acceptedEvent) };
	assert.equal(await sendDelivery(trigger, repeat), 200, 'a correctly signed repeat of an accepted event answers 200');
	assert.equal(await sendDelivery(trigger, genuine), 200, 'the untouched delivery, genuinely signed, is accepted');
	return { id: genuine.id, answeredAt: Date.now() };
}

/** "Listen for test event" in the editor's sense, with a payment as the event. */
async function checkTestEvent(env: E2eEnvironment, run: string, clientid: string): Promise<void> {
	const testBase = `${env.n8n.baseUrl}/webhook-test/`;
	const workflow = await env.api.createWorkflow(triggerWorkflow(env.credentialId, `E2E trigger test event ${run}`));
	await listenForTestEvent(env.n8n.baseUrl, env.sessionCookie, workflow.id, 'On Event');
	const [hook] = await waitFor(
		async () => {
			const hooks = await hooksTo(env, testBase);
			return hooks.length ? hooks : undefined;
		},
		{ what: "the hook for n8n's test webhook URL", timeoutMs: 20_000, intervalMs: 500 },
	);

	await env.service.sandboxRoute('/payments', {
		botid: 'bot_tg',
		clientid,
		messenger: 'telegram',
		amount: 7,
		currency: 'USD',
	});
	const [execution] = await waitForExecutions(env.api, workflow.id, 1, 30_000);
	assertSucceeded(execution);
	assert.equal(execution.mode, 'manual', 'the test event started a manual execution');
	const [item] = nodeOutput<EventItem>(execution, 'On Event');
	assert.equal(item.type, 'payment.success');
	assert.equal(item.hook, hook.id);
	assert.equal(item.data.payment.amount, 7);
	await waitFor(async () => ((await hooksTo(env, testBase)).length ? undefined : true), {
		what: `the test hook ${hook.id} to be deleted after the test event`,
		timeoutMs: 20_000,
		intervalMs: 500,
	});
}

export interface TriggerScenarioResult {
	executions: Execution[];
}

export async function runTriggerScenario(env: E2eEnvironment): Promise<TriggerScenarioResult> {
	const run = randomBytes(3).toString('hex');
	const clientid = `e2e-trigger-${run}`;
	await checkTestEvent(env, run, `${clientid}-test`);

	const webhookBase = `${env.n8n.baseUrl}/webhook/`;
	const workflow = await env.api.createWorkflow(triggerWorkflow(env.credentialId, `E2E trigger ${run}`));
	const hooksBefore = await hooksTo(env, webhookBase);

	await env.api.publishWorkflow(workflow.id);
	const [hook] = await waitFor(
		async () => {
			const added = (await hooksTo(env, webhookBase)).filter(
				(candidate) => !hooksBefore.some((old) => old.id === candidate.id),
			);
			return added.length ? added : undefined;
		},
		{ what: 'the hook that publishing the trigger workflow creates', timeoutMs: 20_000, intervalMs: 500 },
	);
	assert.deepEqual([...hook.events].sort(), ['payment.success', 'subscriber.new', 'subscriber.stage']);

	// One event at a time: each must start its own execution before the next one happens.
	const events: Array<{ type: string; cause: () => Promise<unknown>; check: (data: EventItem['data']) => void }> = [
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
			// Caused from the sandbox's console in Chromium, as a developer watching the integration would.
			cause: () => payFromConsole(env.service.url, { botid: 'bot_tg', clientid, amount: 42.5, currency: 'EUR' }),
			check: (data) => {
				assert.equal(data.payment.clientid, clientid);
				assert.equal(data.payment.amount, 42.5);
				assert.equal(data.payment.currency, 'EUR');
			},
		},
	];
	const accepted: EventItem[] = [];
	for (const [index, event] of events.entries()) {
		await event.cause();
		const executions = await waitForExecutions(env.api, workflow.id, index + 1, 30_000);
		const latest = executions[index];
		assertSucceeded(latest);
		const [item] = nodeOutput<EventItem>(latest, 'On Event');
		assert.equal(item.type, event.type, `execution ${latest.id} carries the ${event.type} event`);
		assert.equal(item.hook, hook.id);
		event.check(item.data);
		accepted.push(item);
	}

	const byHand = await sendDeliveriesByHand(env, workflow.id, hook, accepted[0], `${clientid}-by-hand`);

	await sleep(DUPLICATE_WATCH_MS);
	const all = await waitForExecutions(env.api, workflow.id, events.length + 1);
	// A repeat that reaches a process where the event's execution did not run (in queue mode they run on the worker)
	// makes an execution in which the trigger finds the event in n8n's shared store and puts out nothing.
	const executions = all.filter((execution) => (outputIfRan(execution, 'On Event') ?? []).length > 0);
	assert.equal(
		executions.length,
		events.length + 1,
		`each event ran exactly once, no refused or repeated delivery did: ${describeRuns(all)}`,
	);
	for (const item of [...accepted, { id: byHand.id }])
		assertEventRanOnce(all, String(item.id), { trigger: 'On Event', next: 'Hold' });
	if (env.mode === 'regular')
		assert.equal(all.length, executions.length, 'in one process a repeat starts no execution at all');
	const eventIds = executions.map((execution) => nodeOutput<EventItem>(execution, 'On Event')[0].id);
	assertSucceeded(executions[events.length]);
	assert.equal(eventIds[events.length], byHand.id, 'the last execution carries the genuine delivery sent by hand');
	const byHandRun = executions[events.length];
	assert.ok(
		Date.parse(byHandRun.stoppedAt!) > byHand.answeredAt,
		`n8n answered 200 before the run ended (the run lasts ${TRIGGER_RUN_SECONDS} s; it stopped at ${byHandRun.stoppedAt})`,
	);

	await env.api.unpublishWorkflow(workflow.id);
	await waitFor(
		async () => ((await hooksTo(env, webhookBase)).some((candidate) => candidate.id === hook.id) ? undefined : true),
		{
			what: `hook ${hook.id} to be deleted after unpublishing`,
			timeoutMs: 20_000,
			intervalMs: 500,
		},
	);
	return { executions };
}

/**
 * Scenario 2b. A service whose hooks sign with Standard Webhooks `v1a` (Ed25519) only: a second sandbox started with
 * `signingAlgorithm: 'v1a'`. Publishing a trigger workflow against it creates a hook whose /hook/create answer carries
 * a public key `whpk_…` and no secret; the node keeps that key in its static data, and a new subscriber starts exactly
 * one execution with the event: the delivery, signed by nothing but `v1a`, verified inside n8n.
 */
export async function runV1aTriggerScenario(env: E2eEnvironment): Promise<void> {
	const run = randomBytes(3).toString('hex');
	const sandbox = await startSandbox({ retrySchedule: [1, 2, 4], signingAlgorithm: 'v1a' });
	try {
		const service = new SandboxClient(sandbox.url, sandbox.adminKey);
		const credential = await env.api.createCredential(`Messenger Bot Builder (v1a sandbox ${run})`, credentialType, {
			apiKey: sandbox.adminKey,
			baseUrl: sandbox.baseUrl,
		});
		const workflow = await env.api.createWorkflow(triggerWorkflow(credential.id, `E2E trigger v1a ${run}`));
		await env.api.publishWorkflow(workflow.id);
		const [hook] = await waitFor(
			async () => {
				const { items } = await service.api<{ items: HookView[] }>('/hook/list', { limit: 1000 });
				return items.length ? items : undefined;
			},
			{ what: 'the hook that publishing the v1a trigger workflow creates', timeoutMs: 20_000, intervalMs: 500 },
		);
		const state = (await env.api.getWorkflow(workflow.id)).staticData?.['node:On Event'] ?? {};
		assert.equal(state.hookId, hook.id);
		assert.ok(
			typeof state.publicKey === 'string' && /^whpk_[A-Za-z0-9+/]{43}=$/.test(state.publicKey),
			"the node's static data holds the hook public key",
		);
		assert.equal(state.secret, undefined, 'a v1a hook has no secret to keep');

		const clientid = `e2e-v1a-${run}`;
		await service.api('/subscriber/create', { botid: 'bot_tg', clientid, name: 'V1a Tester' });
		const executions = await waitForExecutions(env.api, workflow.id, 1, 30_000);
		assertSucceeded(executions[0]);
		const [item] = nodeOutput<EventItem>(executions[0], 'On Event');
		assert.equal(item.type, 'subscriber.new');
		assert.equal(item.hook, hook.id);
		assert.equal(item.data.subscriber.clientid, clientid);
		const deliveries = await service.api<{ items: Array<{ status: string; attempts: Array<{ status: number }> }> }>(
			'/hook/deliveries',
			{ hook: hook.id },
		);
		assert.deepEqual(
			deliveries.items.map((delivery) => [delivery.status, delivery.attempts.map((attempt) => attempt.status)]),
			[['delivered', [200]]],
			'the v1a delivery was accepted at its first attempt',
		);
		await sleep(DUPLICATE_WATCH_MS);
		assert.equal((await waitForExecutions(env.api, workflow.id, 1)).length, 1, 'one event, one execution');
		await env.api.unpublishWorkflow(workflow.id);
	} finally {
		await sandbox.close();
	}
}
