/**
 * n8n's production topology: PostgreSQL, Redis, main with production webhooks off, two workers, two `n8n webhook`
 * processes and a round-robin balancer in front of them all (lib/balancer.ts), whose address n8n puts in every URL it
 * hands out. The sandbox's hook deliveries go to the balancer. Each scenario proves one thing a single process
 * cannot show:
 * a. a sandbox event through the balancer runs the trigger workflow exactly once;
 * b. one signed delivery sent to webhook process 1, to process 2, to 1 again, and to 1 after it restarted runs once;
 * c. a Send and Wait link opened on webhook process 1 and confirmed on process 2 resumes the execution once;
 * d. a question still waiting across a restart of every process is answered after it, and the hook (and its
 *    secret) survived: a new sandbox event runs exactly once;
 * e. a worker killed with SIGKILL in the middle of bulk row writes: what n8n does with the run, and the rows;
 * f. the short form of `npm run bench:topology` on this stack: the trigger against n8n's Webhook node, a filled history,
 *    and the same delivery sent to both webhook processes at once (it must run exactly once each time);
 * g. the same with the claim log in an n8n data table as the repeat check, and a redelivery of an event whose
 *    execution failed: it runs again;
 * h. the trigger answering when the workflow has finished: a redelivery while the first run holds its worker gets 500
 *    and runs nothing; the first run's worker is killed; the redelivery then runs the event, and its row is written
 *    once;
 * i. with the claim log, the same delivery to both webhook processes at once while the database holds a share of its
 *    replies for 150 to 600 ms: every event runs exactly once;
 * j. with the claim log, webhook process 1 killed with SIGKILL while a delivery of a burst from the sandbox is in flight
 *    to it (the balancer then sends everything to process 2, as a health check would): the sandbox delivers again what
 *    got no answer, and every event runs exactly once.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { afterHumanMoment, tokenOfPage } from '../lib/answerPages.ts';
import { toWebhookProcess } from '../lib/balancer.ts';
import { deliver, publishedHook, subscriberEvent, type DeliveryAnswer, type TriggerHook } from '../lib/deliveries.ts';
import { createClaimLogCredential, startE2eEnvironment, withN8nLogs, type E2eEnvironment } from '../lib/environment.ts';
import {
	assertEventRanOnce,
	assertSucceeded,
	describeRuns,
	nodeOutput,
	type EventItem,
	outputIfRan,
	waitForExecutions,
} from '../lib/executions.ts';
import { callProductionWebhook, type Execution } from '../lib/n8nApi.ts';
import type { N8nProcess } from '../lib/n8nProcess.ts';
import { freePorts } from '../lib/ports.ts';
import { waitFor } from '../lib/waitFor.ts';
import {
	answerWhenFinishedNodes,
	answerWhenFinishedWorkflow,
	claimLogTriggerWorkflow,
	failingClaimLogWorkflow,
	rowWritesWorkflow,
	triggerWorkflow,
} from '../lib/workflows.ts';
import {
	claimTable,
	measureTopology,
	racesUnderStalls,
	repeatStore,
	SHORT,
	type TopologyBenchOptions,
} from '../../bench/topology/measure.ts';
import { ASK, AFTER, askWorkflow } from '../scenarios/sendAndWaitScenario.ts';

const BOT = 'bot_tg';
const TRIGGER = { trigger: 'On Event', next: 'Hold' };

let env: E2eEnvironment;

before(
	async () => {
		env = await startE2eEnvironment('queue', {
			name: 'topology',
			database: 'postgres',
			// Every process reaches PostgreSQL through a proxy that holds replies only while scenario i asks it to.
			stallingDatabase: true,
			workers: 2,
			webhookProcesses: 2,
			env: {
				// A job whose worker died is found once its Bull lock expires (n8n's default 60 s) and a stalled check of a
				// surviving worker runs (every 30 s): shortened so that scenario e waits seconds, not minutes. The lock is
				// still renewed every 3 s, so a busy machine does not lose it.
				QUEUE_WORKER_LOCK_DURATION: '15000',
				QUEUE_WORKER_LOCK_RENEW_TIME: '3000',
				QUEUE_WORKER_STALLED_INTERVAL: '5000',
			},
		});
	},
	{ timeout: 300_000 },
);

after(async () => {
	await env?.close();
});

const balancer = () => env.n8n.balancer!;

interface HookView {
	id: string;
	url: string;
	events: string[];
}

interface SandboxDelivery {
	id: string;
	hook: string;
	status: string;
	event: { id: string; type: string; data: { subscriber?: { clientid?: string } } };
	attempts: Array<{ status: number; responseBody: string | null }>;
}

/** The published trigger workflow and its hook as n8n keeps it (static data), shared by scenarios a, b and d. */
interface PublishedTrigger {
	workflowId: string;
	hook: TriggerHook;
}

let published: Promise<PublishedTrigger> | undefined;

async function hookOf(workflowId: string): Promise<TriggerHook> {
	const state = (await env.api.getWorkflow(workflowId)).staticData?.['node:On Event'] ?? {};
	assert.ok(
		typeof state.hookId === 'string' && typeof state.secret === 'string' && typeof state.url === 'string',
		`the trigger's static data holds its hook: ${JSON.stringify(state)}`,
	);
	return { hookId: state.hookId, secret: state.secret, url: state.url };
}

async function publishTrigger(): Promise<PublishedTrigger> {
	const workflow = await env.api.createWorkflow(
		triggerWorkflow(env.credentialId, `E2E topology trigger ${randomBytes(3).toString('hex')}`),
	);
	await env.api.publishWorkflow(workflow.id);
	const hook = await waitFor(
		async () => {
			const { items } = await env.service.api<{ items: HookView[] }>('/hook/list', { limit: 1000 });
			return items.find((candidate) => candidate.url.startsWith(`${env.n8n.baseUrl}/webhook/`));
		},
		{ what: 'the hook that publishing the trigger workflow creates', timeoutMs: 30_000, intervalMs: 500 },
	);
	const stored = await hookOf(workflow.id);
	assert.equal(stored.hookId, hook.id);
	assert.ok(hook.url.startsWith(`${balancer().url}/webhook/`), `the hook points at the balancer: ${hook.url}`);
	return { workflowId: workflow.id, hook: stored };
}

/** Published once, by the first scenario that needs it. */
const triggerPublished = (): Promise<PublishedTrigger> => (published ??= publishTrigger());

/** Every execution of the workflow once none is still running (at least `atLeast`), oldest first, with data. */
const settled = (workflowId: string, atLeast = 0): Promise<Execution[]> =>
	waitForExecutions(env.api, workflowId, atLeast, 90_000);

/** A new subscriber in the sandbox: a `subscriber.new` event for every hook. */
async function newSubscriber(prefix: string): Promise<string> {
	const clientid = `${prefix}-${randomBytes(4).toString('hex')}`;
	await env.service.api('/subscriber/create', { botid: BOT, clientid, messenger: 'telegram', name: 'Topology Tester' });
	return clientid;
}

/** The sandbox's deliveries of the `subscriber.new` events of `clientids` to the hook, once n8n answered each 2xx. */
async function deliveredEvents(hookId: string, clientids: string[], timeoutMs = 90_000): Promise<SandboxDelivery[]> {
	return waitFor(
		async () => {
			const { items } = await env.service.sandboxRoute<{ items: SandboxDelivery[] }>('/deliveries', {
				hook: hookId,
				limit: 1000,
			});
			const ofEach = clientids.map((clientid) =>
				items.find(
					(candidate) =>
						candidate.event.type === 'subscriber.new' && candidate.event.data?.subscriber?.clientid === clientid,
				),
			);
			const failed = ofEach.find((delivery) => delivery?.status === 'failed');
			if (failed)
				throw new Error(`the sandbox gave up delivering ${failed.event.id}: ${JSON.stringify(failed.attempts)}`);
			return ofEach.every((delivery) => delivery?.status === 'delivered') ? (ofEach as SandboxDelivery[]) : undefined;
		},
		{
			what: `the deliveries of the new subscribers ${clientids.join(', ')} to be answered`,
			timeoutMs,
			intervalMs: 300,
			stopOn: (error) => String(error).includes('gave up'),
		},
	);
}

/** The sandbox's delivery of the `subscriber.new` event about `clientid` to the hook, once n8n answered it 2xx. */
async function deliveredEvent(hookId: string, clientid: string): Promise<SandboxDelivery> {
	const [delivery] = await deliveredEvents(hookId, [clientid], 60_000);
	return delivery;
}

/** A sandbox event caused now runs the trigger workflow exactly once; returns that run. */
async function eventRunsOnce(trigger: PublishedTrigger, prefix: string): Promise<Execution> {
	const clientid = await newSubscriber(prefix);
	const delivery = await deliveredEvent(trigger.hook.hookId, clientid);
	const attempt = delivery.attempts.at(-1)!;
	assert.deepEqual(
		JSON.parse(attempt.responseBody ?? '{}'),
		{ status: 'accepted', event: delivery.event.id },
		'the trigger answered "accepted"',
	);
	// The execution exists before n8n answers (an onReceived answer waits for WorkflowRunner.run); now it must end.
	const run = assertEventRanOnce(await settled(trigger.workflowId, 1), delivery.event.id, TRIGGER);
	const [item] = nodeOutput<EventItem>(run, TRIGGER.trigger);
	assert.equal(item.type, 'subscriber.new');
	assert.equal(item.hook, trigger.hook.hookId);
	assert.equal(item.data.subscriber.clientid, clientid);
	return run;
}

/** Which workers (by name) logged the start of the execution, once per start (a resume is a new start). */
function startsOf(executionId: string, workers: N8nProcess[] = [...env.n8n.workers, ...env.n8n.killed]): string[] {
	return workers.flatMap((worker) =>
		worker.log.grep(`Worker started execution ${executionId} `).map(() => worker.name),
	);
}

test(
	'topology a: a sandbox event reaches a webhook process through the balancer and runs exactly once, on a worker',
	{ timeout: 180_000 },
	async () => {
		await withN8nLogs(env, async () => {
			const trigger = await triggerPublished();
			const servedBefore = balancer().served.length;
			const run = await eventRunsOnce(trigger, 'topology-a');
			const hookPath = new URL(trigger.hook.url).pathname;
			const posts = balancer()
				.served.slice(servedBefore)
				.filter((entry) => entry.path === hookPath);
			assert.ok(
				posts.length >= 1 && posts.every((entry) => entry.target.startsWith('webhook-')),
				`the delivery went to a webhook process: ${JSON.stringify(posts)}`,
			);
			assert.equal(env.n8n.main.log.grep('Worker started execution').length, 0, 'main runs no execution');
			assert.equal(startsOf(run.id).length, 1, `execution ${run.id} started once, on a worker`);
		});
	},
);

/** Sends the delivery to one webhook process; returns n8n's answer with its JSON body. */
async function deliverTo(
	processIndex: number,
	hook: TriggerHook,
	delivery: { id: string; body: string },
): Promise<DeliveryAnswer & { json: unknown }> {
	const answer = await deliver(hook, delivery, { headers: toWebhookProcess(processIndex) });
	let json: unknown;
	try {
		json = JSON.parse(answer.body);
	} catch {
		json = undefined;
	}
	return { ...answer, json };
}

test(
	'topology b: one signed delivery sent to webhook process 1, to 2, to 1 again and to 1 after its restart runs the workflow once',
	{ timeout: 240_000 },
	async () => {
		await withN8nLogs(env, async () => {
			const trigger = await triggerPublished();
			const delivery = subscriberEvent(
				trigger.hook.hookId,
				`evt_topology_${randomBytes(6).toString('hex')}`,
				`topology-b-${randomBytes(3).toString('hex')}`,
			);
			const answers: Array<{ step: string; status: number; body: string }> = [];
			const known = new Set((await settled(trigger.workflowId)).map((execution) => execution.id));

			/** Sends, then waits for the execution it made (if any) to end; returns how many executions it made. */
			const send = async (step: string, processIndex: number, expected: 'accepted' | 'duplicate') => {
				const answer = await deliverTo(processIndex, trigger.hook, delivery);
				answers.push({ step, status: answer.status, body: answer.body });
				assert.equal(answer.status, 200, `${step}: n8n answers 200: ${answer.body}`);
				const all = await settled(trigger.workflowId);
				const made = all.filter((execution) => !known.has(execution.id));
				for (const execution of made) known.add(execution.id);
				assertEventRanOnce(all, delivery.id, TRIGGER);
				// "accepted" hands the event to an execution; "duplicate" (a process where the event's execution ran) starts none.
				assert.equal(made.length, expected === 'accepted' ? 1 : 0, `${step}: executions made: ${describeRuns(made)}`);
				assert.deepEqual(answer.json, { status: expected, event: delivery.id }, `${step}: the trigger's answer`);
				return made;
			};

			const [first] = await send('first, to webhook process 1', 1, 'accepted');
			assert.deepEqual(
				outputIfRan(first, TRIGGER.trigger)?.map((item) => item.id),
				[delivery.id],
				'the first delivery runs the event',
			);
			// Process 2 never saw the event: it hands it to an execution, in which the trigger finds it in n8n's shared store.
			const [second] = await send('the same, to webhook process 2', 2, 'accepted');
			assert.deepEqual(outputIfRan(second, TRIGGER.trigger), [], 'the repeat through process 2 puts out nothing');
			// A webhook process remembers only events whose execution checked them in that process; in queue mode executions
			// run on the workers, so process 1 hands the repeat to an execution too (it cannot know that n8n created the first).
			const [again] = await send('the same, to webhook process 1 again', 1, 'accepted');
			assert.deepEqual(outputIfRan(again, TRIGGER.trigger), [], 'the repeat through process 1 puts out nothing');
			await env.n8n.restartWebhookProcess(1);
			const [afterRestart] = await send('the same, to webhook process 1 after its restart', 1, 'accepted');
			assert.deepEqual(outputIfRan(afterRestart, TRIGGER.trigger), [], 'the repeat after the restart puts out nothing');
		});
	},
);

let askPublished: Promise<{ id: string; path: string }> | undefined;

/** The Send and Wait workflow, published once for scenarios c and d. */
function askWorkflowPublished(): Promise<{ id: string; path: string }> {
	askPublished ??= (async () => {
		const webhookPath = `e2e-topology-ask-${randomBytes(4).toString('hex')}`;
		const workflow = await env.api.createWorkflow(askWorkflow(env, webhookPath, { responseType: 'approval' }));
		await env.api.publishWorkflow(workflow.id);
		return { id: workflow.id, path: webhookPath };
	})();
	return askPublished;
}

interface Button {
	name: string;
	url: string;
}

/** Starts the Send and Wait workflow for a new subscriber; resolves once its execution waits and the buttons are in the chat. */
async function ask(question: string): Promise<{ executionId: string; clientId: string; buttons: Button[] }> {
	const workflow = await askWorkflowPublished();
	const clientId = await newSubscriber('topology-ask');
	const before = new Set((await env.api.executions(workflow.id)).map((execution) => execution.id));
	const started = await callProductionWebhook(env.n8n.baseUrl, workflow.path, { clientId, question });
	assert.equal(started.status, 200, `the production webhook answered ${started.status}: ${await started.text()}`);
	const waiting = await waitFor(
		async () =>
			(await env.api.executions(workflow.id)).find(
				(execution) => !before.has(execution.id) && execution.status === 'waiting',
			),
		{ what: `a waiting execution of workflow ${workflow.id}`, timeoutMs: 60_000, intervalMs: 300 },
	);
	const message = await waitFor(
		async () => {
			const chat = await env.service.api<{ items: Array<{ text: string; buttons: Button[] }> }>(
				'/subscriber/chat/get',
				{ botid: BOT, clientid: clientId },
			);
			return chat.items.find((item) => item.text === question);
		},
		{ what: `the question in the chat of ${clientId}`, timeoutMs: 30_000, intervalMs: 300 },
	);
	for (const button of message.buttons) {
		assert.ok(
			button.url.startsWith(`${balancer().url}/webhook-waiting/${waiting.id}/`),
			`the button leads through the balancer to the resume URL: ${button.url}`,
		);
	}
	return { executionId: waiting.id, clientId, buttons: message.buttons };
}

interface Page {
	status: number;
	body: string;
}

async function open(url: string, init: RequestInit = {}): Promise<Page> {
	const response = await fetch(url, { redirect: 'manual', ...init });
	return { status: response.status, body: await response.text() };
}

/**
 * Opens the link's page (GET) on webhook process `processIndex` and reads it as a person does: returns once the
 * page's own moment has passed (a confirmation sooner than that is taken for a program's and asks again).
 */
async function openPage(url: string, processIndex: number): Promise<{ page: Page; token: string }> {
	const page = await open(url, { headers: toWebhookProcess(processIndex) });
	assert.equal(
		page.status,
		200,
		`the question's page opens on webhook process ${processIndex}: ${page.body.slice(0, 300)}`,
	);
	const token = tokenOfPage(page.body, page.status);
	await afterHumanMoment(page.body);
	return { page, token };
}

/**
 * Confirms on the page (the page's form, POSTed by a browser from the page itself) on webhook process `processIndex`;
 * `extra` adds form fields (the hidden control's), `cookie` what the browser keeps.
 */
function confirmOn(
	url: string,
	token: string,
	processIndex: number,
	extra: Record<string, string> = {},
	cookie?: string,
): Promise<Page & { setCookie: string | null }> {
	return fetch(url, {
		redirect: 'manual',
		method: 'POST',
		headers: {
			'content-type': 'application/x-www-form-urlencoded',
			origin: new URL(url).origin,
			'sec-fetch-site': 'same-origin',
			...(cookie ? { cookie } : {}),
			...toWebhookProcess(processIndex),
		},
		body: new URLSearchParams({ token, ...extra }),
	}).then(async (response) => ({
		status: response.status,
		body: await response.text(),
		setCookie: response.headers.get('set-cookie'),
	}));
}

async function finished(workflowId: string, executionId: string, timeoutMs = 90_000): Promise<Execution> {
	return waitFor(
		async () => {
			const execution = await env.api.execution(executionId, { includeData: true });
			assert.equal(String(execution.workflowId), workflowId);
			return ['new', 'running', 'waiting'].includes(execution.status) ? undefined : execution;
		},
		{ what: `execution ${executionId} to finish`, timeoutMs, intervalMs: 300 },
	);
}

/** The answered execution: it succeeded, Ask ran once with `answer` by the asked subscriber, After ran once with it. */
function assertAnswered(run: Execution, answer: string, clientId: string): void {
	assertSucceeded(run);
	const askRuns = run.data?.resultData.runData[ASK] ?? [];
	assert.equal(askRuns.length, 1, `Ask ran once in execution ${run.id}`);
	const [output] = nodeOutput<{ data: Record<string, unknown> }>(run, ASK);
	assert.equal(output.data.answer, answer);
	assert.equal(output.data.approved, answer === 'Approve');
	assert.deepEqual(output.data.askedSubscriber, { botid: BOT, clientid: clientId, messenger: 'telegram' });
	assert.equal(output.data.answeredThrough, 'answerLink');
	assert.equal(run.data?.resultData.runData[AFTER]?.length, 1, `After ran once in execution ${run.id}`);
	assert.deepEqual(nodeOutput(run, AFTER), nodeOutput(run, ASK));
}

test(
	'topology c: a Send and Wait link opened on webhook process 1 and confirmed on webhook process 2 resumes the execution once',
	{ timeout: 180_000 },
	async () => {
		await withN8nLogs(env, async () => {
			const workflow = await askWorkflowPublished();
			const asked = await ask('Approve the transfer between processes?');
			const approve = asked.buttons.find((button) => button.name === 'Approve')!;
			// A scanner presses the hidden control on webhook process 1, and its browser keeps the mark. It opens the link
			// again on webhook process 2, which never saw the press, and presses on: refused there too.
			const scanned = await openPage(approve.url, 1);
			const pressed = await confirmOn(approve.url, scanned.token, 1, { checked: '1' });
			assert.equal(pressed.status, 403, pressed.body.slice(0, 300));
			const mark = pressed.setCookie?.split(';')[0];
			assert.match(mark ?? '', /^mbb_pressed=\d+\.[0-9a-f]{64}$/, `the press is marked: ${pressed.setCookie}`);
			const reopened = await openPage(approve.url, 2);
			const refused = await confirmOn(approve.url, reopened.token, 2, {}, mark);
			assert.equal(refused.status, 403, `the marked browser is refused on process 2: ${refused.body.slice(0, 300)}`);
			assert.ok(refused.body.includes('this page can no longer confirm'), refused.body.slice(0, 300));
			// The person's browser carries no mark.
			const { token } = await openPage(approve.url, 1);
			const servedBefore = balancer().served.length;
			const confirmed = await confirmOn(approve.url, token, 2);
			assert.equal(confirmed.status, 200, `the confirmation on process 2 is received: ${confirmed.body.slice(0, 300)}`);
			assert.ok(confirmed.body.includes('Your answer “Approve” has been received.'), confirmed.body.slice(0, 300));
			const link = approve.url.slice(new URL(approve.url).origin.length);
			assert.deepEqual(
				balancer()
					.served.slice(servedBefore)
					.filter((entry) => entry.path === link)
					.map((entry) => `${entry.method} ${entry.target}`),
				['POST webhook-2'],
				'the confirmation went to webhook process 2',
			);
			const run = await finished(workflow.id, asked.executionId);
			assertAnswered(run, 'Approve', asked.clientId);
			// Once when it started, once when it resumed: the resume ran once, on a worker.
			assert.equal(
				startsOf(run.id).length,
				2,
				`execution ${run.id} started and resumed once each: ${startsOf(run.id).join(', ')}`,
			);
			// A second tap after the run ended resumes nothing.
			const later = await confirmOn(approve.url, token, 1);
			assert.ok(
				!later.body.includes('has been received'),
				`a later tap is not received: ${later.status} ${later.body.slice(0, 200)}`,
			);
			assert.equal((await env.api.execution(run.id, { includeData: true })).data?.resultData.runData[ASK]?.length, 1);
		});
	},
);

test(
	'topology d: a question waiting across a restart of every process is answered after it; the hook survived: a new event runs exactly once',
	{ timeout: 420_000 },
	async () => {
		await withN8nLogs(env, async () => {
			const trigger = await triggerPublished();
			const workflow = await askWorkflowPublished();
			const asked = await ask('Still there after the restart?');
			const { hookId, secret } = trigger.hook;

			await env.n8n.restart();

			const decline = asked.buttons.find((button) => button.name === 'Decline')!;
			assert.equal(
				(await env.api.execution(asked.executionId)).status,
				'waiting',
				'the execution still waits after the restart',
			);
			const { token } = await openPage(decline.url, 2);
			const confirmed = await confirmOn(decline.url, token, 1);
			assert.equal(
				confirmed.status,
				200,
				`the confirmation after the restart is received: ${confirmed.body.slice(0, 300)}`,
			);
			assert.ok(confirmed.body.includes('Your answer “Decline” has been received.'), confirmed.body.slice(0, 300));
			const run = await finished(workflow.id, asked.executionId);
			assertAnswered(run, 'Decline', asked.clientId);
			assert.equal(startsOf(run.id).length, 1, 'the resume ran once, on a worker started by the restart');

			// The hook and its secret survived: n8n found the hook at reactivation (checkExists) and kept it.
			const { items } = await env.service.api<{ items: HookView[] }>('/hook/list', { limit: 1000 });
			assert.deepEqual(
				items.filter((hook) => hook.url === trigger.hook.url).map((hook) => hook.id),
				[hookId],
				'the same single hook',
			);
			assert.deepEqual(await hookOf(trigger.workflowId), { hookId, secret, url: trigger.hook.url });
			await eventRunsOnce(trigger, 'topology-d');
		});
	},
);

/** Rows written one at a time first (/list/row/add, each with an Idempotency-Key), then in bulk (/list/rows/add, 500 a request). */
const SINGLES = 3;
const BULK_ROWS = 2500;
/** The worker dies just before the sandbox answers this bulk request (its rows are stored): 2 of 5 requests in. */
const KILL_AT_BULK = 2;

/** How many rows of the list hold each Name. */
async function rowNames(listName: string): Promise<Map<string, number>> {
	const counts = new Map<string, number>();
	for (let offset = 0; ; offset += 1000) {
		const page = await env.service.api<{ items: Array<{ row: Record<string, unknown> }>; total: number }>(
			'/list/rows/get',
			{ list: listName, limit: 1000, offset },
		);
		for (const { row } of page.items) counts.set(String(row.Name), (counts.get(String(row.Name)) ?? 0) + 1);
		if (page.items.length === 0 || offset + page.items.length >= page.total) return counts;
	}
}

/** Names that should each be there once: `Single 1..singles`, `Bulk 1..bulk`. */
function assertRowsOnce(counts: Map<string, number>, singles: number, bulk: number, what: string): void {
	const expected = [
		...Array.from({ length: singles }, (_, i) => `Single ${i + 1}`),
		...Array.from({ length: bulk }, (_, i) => `Bulk ${i + 1}`),
	];
	const doubled = [...counts].filter(([, count]) => count > 1).map(([name, count]) => `${name} ×${count}`);
	const missing = expected.filter((name) => !counts.has(name));
	const extra = [...counts.keys()].filter((name) => !expected.includes(name));
	assert.deepEqual(
		{ doubled: doubled.slice(0, 5), missing: missing.slice(0, 5), extra: extra.slice(0, 5) },
		{ doubled: [], missing: [], extra: [] },
		what,
	);
}

test(
	'topology e: a worker killed with SIGKILL during bulk row writes: n8n fails the run as stalled, no worker runs it again, no row is written twice',
	{ timeout: 300_000 },
	async (t) => {
		await withN8nLogs(env, async () => {
			const run = randomBytes(3).toString('hex');
			const listName = `E2E topology kill ${run}`;
			await env.service.api('/list/create', { name: listName, headers: ['Name', 'Qty', 'CreationDate'] });
			const webhookPath = `e2e-topology-rows-${run}`;
			const workflow = await env.api.createWorkflow(rowWritesWorkflow({ credentialId: env.credentialId, webhookPath }));
			await env.api.publishWorkflow(workflow.id);

			// The kill happens in the sandbox, synchronously, just before it answers the KILL_AT_BULK-th bulk request: the
			// rows of that request are stored, the worker never reads the answer, and no later request leaves it.
			let executionId: string | undefined;
			let bulkAnswered = 0;
			let listening = true;
			let kill: { worker: N8nProcess; atBulk: number; done: Promise<void> } | undefined;
			env.sandbox.observeAnswers((answer) => {
				if (!listening || kill || answer.path !== '/api/list/rows/add' || answer.status !== 200) return;
				bulkAnswered++;
				const worker =
					executionId &&
					env.n8n.workers.find(
						(candidate) => candidate.log.grep(`Worker started execution ${executionId} `).length > 0,
					);
				if (bulkAnswered >= KILL_AT_BULK && worker)
					kill = { worker, atBulk: bulkAnswered, done: env.n8n.killWorker(worker) };
			});
			try {
				const started = await callProductionWebhook(env.n8n.baseUrl, webhookPath, {
					listName,
					singles: SINGLES,
					rows: BULK_ROWS,
				});
				assert.equal(started.status, 200, `the production webhook answered ${started.status}: ${await started.text()}`);
				// The execution exists once the webhook answered.
				const [execution] = await env.api.executions(workflow.id);
				executionId = execution.id;
				await waitFor(
					async () =>
						kill ?? (['new', 'running'].includes((await env.api.execution(execution.id)).status) ? undefined : 'ended'),
					{
						what: `the worker running execution ${execution.id} to be killed at bulk request ${KILL_AT_BULK}`,
						timeoutMs: 120_000,
						intervalMs: 200,
					},
				);
			} finally {
				listening = false;
			}
			assert.ok(
				kill,
				`the worker was killed during the bulk writes (execution ${executionId} ended first after ${bulkAnswered} bulk requests)`,
			);
			await kill.done;
			const killedAt = Date.now();

			// n8n 2.41.1 sets Bull's maxStalledCount to 0 (scaling.service.js setupQueue): once the dead worker's lock has
			// expired, a surviving worker's stalled check moves the job to failed instead of back to the queue; the process
			// that enqueued it (the webhook process that took the production webhook) gets "job stalled more than
			// maxStalledCount", turns it into MaxStalledCountError, re-reads the execution for 30 s (it may have finished
			// after all) and then saves it as failed (workflow-runner.js enqueueExecution, processError).
			const ended = await finished(workflow.id, executionId, 150_000);
			// The kill is deliberate: a passing run says so rather than printing n8n's error as if something went wrong.
			t.diagnostic(
				`expected after the deliberate kill: n8n settled execution ${ended.id} as ${ended.status} ${Math.round((Date.now() - killedAt) / 1000)} s later`,
			);
			assert.equal(
				ended.status,
				'error',
				`the killed run ends failed, not crashed nor re-run: ${describeRuns([ended])}`,
			);
			assert.match(
				ended.data?.resultData.error?.message ?? '',
				/failed to be processed too many times and will no longer retry/,
			);
			assert.deepEqual(
				startsOf(ended.id),
				[kill.worker.name],
				'only the killed worker ever started the execution: no worker ran it again',
			);
			const enqueuedBy = env.n8n.webhookProcesses.filter(
				(process) => process.log.grep(`Problem with execution ${ended.id}: `).length > 0,
			);
			assert.equal(enqueuedBy.length, 1, 'the webhook process that enqueued the job recorded the failure');
			// processError saves a fresh run (createRunExecutionData: the error, no run data, an empty node stack): what the
			// nodes did before the kill is not in the execution.
			assert.deepEqual(Object.keys(ended.data?.resultData.runData ?? {}), [], 'the failed execution keeps no run data');

			// The rows: those the run wrote before it died, each once.
			const written = await rowNames(listName);
			t.diagnostic(
				`rows after the kill: ${[...written.values()].reduce((sum, count) => sum + count, 0)} (singles ${SINGLES}, bulk ${kill.atBulk} × 500)`,
			);
			assertRowsOnce(written, SINGLES, kill.atBulk * 500, 'after the kill, every row written before it is there once');

			// A person retries the failed execution (n8n's Retry): a new execution from the saved one, which has nothing left
			// to run, so it fails at once and writes nothing.
			const retried = await env.api.retryExecution(ended.id);
			assert.equal(String(retried.retryOf), ended.id);
			const retriedRun = await finished(workflow.id, retried.id, 150_000);
			t.diagnostic(
				`expected after the deliberate kill: n8n's Retry (execution ${retriedRun.id}, ${retriedRun.status}) had no node left to run`,
			);
			assert.equal(retriedRun.status, 'error');
			assert.deepEqual(Object.keys(retriedRun.data?.resultData.runData ?? {}), [], 'the retry ran no node');
			assertRowsOnce(await rowNames(listName), SINGLES, kill.atBulk * 500, 'after the retry, still every row once');
			await env.api.unpublishWorkflow(workflow.id);
		});
	},
);

test(
	'topology f: bench:topology (short form): every delivery runs once, a full history stays bounded, simultaneous repeats on both webhook processes run once',
	{ timeout: 300_000 },
	async (t) => {
		await withN8nLogs(env, async () => {
			// Its figures are too small to judge a rate (the full form, `npm run bench:topology`, is for that); the
			// benchmark's own checks are the point here, and the races.
			const result = await measureTopology(env, SHORT, (line) => t.diagnostic(line));
			assert.deepEqual(result.races, {
				sent: SHORT.races,
				ranOnce: SHORT.races,
				ranTwice: 0,
				neverRan: 0,
				failedExecutions: [],
			});
			assert.deepEqual(
				result.history.map(({ events }) => events),
				SHORT.historySizes,
			);
		});
	},
);

/**
 * The short form with the claim log: few throughput deliveries and no filled history (scenario f measures those, and
 * the full bench the claim log's), more races.
 */
const CLAIM_LOG_SHORT: TopologyBenchOptions = {
	...SHORT,
	deliveries: 4,
	historySizes: [],
	races: 8,
	repeatCheck: 'claimLog',
};

/** A published trigger (claim log) → Stop and Error: every execution that runs the event fails. */
async function failingClaimLogTrigger(apiBaseUrl?: string): Promise<PublishedTrigger> {
	const run = randomBytes(3).toString('hex');
	const name = `E2E topology failing claim log ${run}`;
	const workflow = await env.api.createWorkflow(
		failingClaimLogWorkflow({
			name,
			credentialId: env.credentialId,
			n8nApiCredential: await createClaimLogCredential(env, `topology g ${run}`, apiBaseUrl),
		}),
	);
	await env.api.publishWorkflow(workflow.id);
	return { workflowId: workflow.id, hook: await publishedHook(env.api, workflow.id, name) };
}

test(
	'topology g: with the claim log in an n8n data table, simultaneous repeats on both webhook processes run once, and a redelivery of a failed run runs again',
	{ timeout: 300_000 },
	async (t) => {
		await withN8nLogs(env, async () => {
			const result = await measureTopology(env, CLAIM_LOG_SHORT, (line) => t.diagnostic(line));
			assert.deepEqual(result.races, {
				sent: CLAIM_LOG_SHORT.races,
				ranOnce: CLAIM_LOG_SHORT.races,
				ranTwice: 0,
				neverRan: 0,
				failedExecutions: [],
			});
			assert.equal(result.repeatCheck, 'claimLog');

			const trigger = await failingClaimLogTrigger();
			const delivery = subscriberEvent(
				trigger.hook.hookId,
				`evt_topology_g_${randomBytes(6).toString('hex')}`,
				`topology-g-${randomBytes(3).toString('hex')}`,
			);
			const claimsBefore = (await claimTable(env)).rows;
			for (const [attempt, processIndex] of [1, 2, 1].entries()) {
				const answer = await deliverTo(processIndex, trigger.hook, delivery);
				assert.deepEqual(answer.json, { status: 'accepted', event: delivery.id }, `delivery ${attempt + 1}`);
				const runs = await settled(trigger.workflowId, attempt + 1);
				assert.equal(runs.length, attempt + 1, `delivery ${attempt + 1} made one execution: ${describeRuns(runs)}`);
				const latest = runs.at(-1)!;
				assert.equal(latest.status, 'error', `execution ${latest.id} failed at Fail`);
				assert.deepEqual(
					outputIfRan(latest, TRIGGER.trigger)?.map((item) => item.id),
					[delivery.id],
					`delivery ${attempt + 1}: the earlier executions failed, so this one runs the event again`,
				);
			}
			assert.equal((await claimTable(env)).rows - claimsBefore, 3, 'each delivery added one claim');
			await env.api.unpublishWorkflow(trigger.workflowId);

			// n8n's API out of reach (nothing listens at the credential's address): the execution fails at the trigger,
			// saying so, and runs no other node.
			const [closedPort] = await freePorts(1);
			const unreachable = await failingClaimLogTrigger(`http://127.0.0.1:${closedPort}`);
			const lost = subscriberEvent(
				unreachable.hook.hookId,
				`evt_topology_g_${randomBytes(6).toString('hex')}`,
				`topology-g-${randomBytes(3).toString('hex')}`,
			);
			assert.equal((await deliverTo(1, unreachable.hook, lost)).status, 200);
			const [failed] = await settled(unreachable.workflowId, 1);
			assert.equal(failed.status, 'error');
			assert.equal(failed.data?.resultData.error?.message, "n8n's API did not answer the trigger's claim log");
			assert.deepEqual(Object.keys(failed.data?.resultData.runData ?? {}), [TRIGGER.trigger], 'only the trigger ran');
			await env.api.unpublishWorkflow(unreachable.workflowId);
		});
	},
);

/** How long each run of scenario h's workflow holds its worker before it writes its row (n8n waits in-process under 65 s). */
const HOLD_SECONDS = 12;

test(
	'topology h: answering when the workflow has finished, a redelivery while the first run holds gets 500 and runs nothing, a worker killed mid-run gets the event run again by its redelivery, and the row is written once',
	{ timeout: 300_000 },
	async (t) => {
		await withN8nLogs(env, async () => {
			const run = randomBytes(3).toString('hex');
			const listName = `E2E topology answer when finished ${run}`;
			await env.service.api('/list/create', { name: listName, headers: ['Name', 'Qty', 'CreationDate'] });
			const name = `E2E topology answer when finished ${run}`;
			const workflow = await env.api.createWorkflow(
				answerWhenFinishedWorkflow({
					name,
					credentialId: env.credentialId,
					n8nApiCredential: await createClaimLogCredential(env, `topology h ${run}`),
					listName,
					holdSeconds: HOLD_SECONDS,
				}),
			);
			await env.api.publishWorkflow(workflow.id);
			const hook = await publishedHook(env.api, workflow.id, name);
			// One worker dies below; another must be there to run the redelivery.
			if (env.n8n.workers.length < 2) await env.n8n.addWorker();
			const delivery = subscriberEvent(hook.hookId, `evt_topology_h_${run}`, `topology-h-${run}`);

			// 1. The first delivery: its execution holds a worker for HOLD_SECONDS; n8n answers only when it ends.
			const first = deliverTo(1, hook, delivery).then(
				(answer) => answer,
				(error: Error) => ({ status: 0, body: String(error), json: undefined }),
			);
			const firstRun = await waitFor(
				async () => (await env.api.executions(workflow.id)).find((execution) => execution.status === 'running'),
				{ what: 'the first delivery to be running', timeoutMs: 60_000, intervalMs: 100 },
			);
			const worker = await waitFor(
				async () =>
					env.n8n.workers.find(
						(candidate) => candidate.log.grep(`Worker started execution ${firstRun.id} `).length > 0,
					),
				{ what: `the worker of execution ${firstRun.id}`, timeoutMs: 30_000, intervalMs: 100 },
			);

			// 2. The same delivery while the first run holds: refused with 500, so that the service delivers it again.
			const whileRunning = await deliverTo(2, hook, delivery);
			assert.equal(whileRunning.status, 500, `a redelivery while the first run holds: ${whileRunning.body}`);
			// Not `settled`: that waits for the first run too, which must still hold its worker when it is killed below.
			const refused = await waitFor(
				async () =>
					(await env.api.executions(workflow.id, { includeData: true })).find(
						(execution) => execution.id !== firstRun.id && execution.status === 'error',
					),
				{ what: 'the refused redelivery to end', timeoutMs: 30_000, intervalMs: 100 },
			);
			assert.match(
				refused.data?.resultData.error?.message ?? '',
				new RegExp(`still being run by execution ${firstRun.id}$`),
			);
			assert.equal(refused.data?.resultData.runData[answerWhenFinishedNodes.hold], undefined, 'it ran no node');
			assert.equal((await env.api.execution(firstRun.id)).status, 'running', 'the first run still holds its worker');

			// 3. The first run's worker dies under it: n8n fails the run, and the first delivery is not answered 2xx.
			await env.n8n.killWorker(worker);
			const firstAnswer = await first;
			t.diagnostic(`expected after the deliberate kill: the first delivery was answered ${firstAnswer.status}`);
			assert.ok(
				firstAnswer.status < 200 || firstAnswer.status >= 300,
				`no 2xx for the killed run: ${firstAnswer.body}`,
			);
			const failed = await finished(workflow.id, firstRun.id, 150_000);
			assert.equal(failed.status, 'error', `the killed run ended failed: ${describeRuns([failed])}`);

			// 4. The redelivery runs the event (the failed run's claim does not count) and writes its row.
			const again = await deliverTo(1, hook, delivery);
			assert.equal(again.status, 200, `the redelivery after the failed run: ${again.body}`);
			const recovered = (await settled(workflow.id, 3)).at(-1)!;
			assertSucceeded(recovered);
			assert.deepEqual(
				outputIfRan(recovered, answerWhenFinishedNodes.trigger)?.map((item) => item.id),
				[delivery.id],
				'the redelivery ran the event',
			);

			// 5. Once it has succeeded, a redelivery is answered 200 and runs nothing.
			const repeat = await deliverTo(2, hook, delivery);
			assert.equal(repeat.status, 200, `a redelivery after the success: ${repeat.body}`);
			const runs = await settled(workflow.id, 4);
			assert.deepEqual(outputIfRan(runs.at(-1)!, answerWhenFinishedNodes.trigger), [], 'the repeat ran nothing');
			assert.deepEqual(
				Object.fromEntries(await rowNames(listName)),
				{ [delivery.id]: 1 },
				'the event wrote its row once',
			);
			await env.api.unpublishWorkflow(workflow.id);
		});
	},
);

const STALLED_RACES = 6;

test(
	'topology i: with the claim log, simultaneous repeats on both webhook processes run once while the database answers late now and then',
	{ timeout: 300_000 },
	async (t) => {
		await withN8nLogs(env, async () => {
			const { heldReplies, failedExecutions, ...races } = await racesUnderStalls(
				env,
				await repeatStore(env, 'claimLog'),
				STALLED_RACES,
			);
			assert.deepEqual(races, { sent: STALLED_RACES, ranOnce: STALLED_RACES, ranTwice: 0, neverRan: 0 });
			assert.ok(heldReplies > 0, 'the database held some of its replies while the events ran');
			// A run whose repeat check n8n's API could not complete ran nothing of the event (the other run did).
			t.diagnostic(`replies held: ${heldReplies}; executions that failed: ${JSON.stringify(failedExecutions)}`);
		});
	},
);

const BURST = 12;

/** newSubscriber, sent again after the pause the sandbox names when it answers 429 (its 10 requests per second). */
async function newSubscriberWithinLimit(prefix: string): Promise<string> {
	for (;;) {
		try {
			return await newSubscriber(prefix);
		} catch (error) {
			const retryAfter = /HTTP 429 .*"retryAfter":(\d+)/.exec(String(error))?.[1];
			if (retryAfter === undefined) throw error;
			await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000));
		}
	}
}

test(
	'topology j: with the claim log, a webhook process killed in the middle of a burst of deliveries: every event runs exactly once',
	{ timeout: 300_000 },
	async () => {
		await withN8nLogs(env, async () => {
			// A new subscriber is an event for every hook: the triggers earlier scenarios left published are unpublished,
			// so that the burst is this trigger's alone.
			for (const { id } of await env.api.workflows()) await env.api.unpublishWorkflow(id).catch(() => undefined);
			const name = `E2E topology burst ${randomBytes(3).toString('hex')}`;
			const workflow = await env.api.createWorkflow(
				claimLogTriggerWorkflow({
					name,
					credentialId: env.credentialId,
					n8nApiCredential: await createClaimLogCredential(env, name),
				}),
			);
			await env.api.publishWorkflow(workflow.id);
			const hook = await publishedHook(env.api, workflow.id, name);
			const hookPath = new URL(hook.url).pathname;
			// The burst goes to webhook process 1 alone; it is killed as the third delivery is passed on to it: that one is
			// in flight (the sandbox gets no answer and sends it again), the two before it were answered there. Then the
			// balancer sends everything to process 2, as a health-checking balancer would once process 1 is gone.
			let passedToFirst = 0;
			const killed = env.n8n.webhookProcesses[0];
			let killing: Promise<void> | undefined;
			balancer().setUp(2, false);
			const stopListening = balancer().onForward(({ target, path }) => {
				if (path !== hookPath || target !== 'webhook-1' || ++passedToFirst !== 3) return;
				killing = killed.kill();
				balancer().setUp(1, false);
				balancer().setUp(2, true);
			});
			// The burst: a new subscriber is an event for every hook; the sandbox delivers them round-robin.
			const creating = Promise.all(Array.from({ length: BURST }, () => newSubscriberWithinLimit('topology-j')));
			const clientids = await creating;
			const deliveries = await deliveredEvents(hook.hookId, clientids);
			stopListening();
			assert.ok(killing, `webhook process 1 was killed in the burst (${passedToFirst} deliveries passed to it)`);
			await killing;
			const runs = await settled(workflow.id, BURST);
			for (const delivery of deliveries) assertEventRanOnce(runs, delivery.event.id, TRIGGER);
			assert.ok(
				deliveries.some((delivery) => delivery.attempts.length > 1),
				`the delivery in flight at the kill was sent again: ${JSON.stringify(deliveries.map((d) => d.attempts.length))}`,
			);
			await env.api.unpublishWorkflow(workflow.id);
			await env.n8n.restartWebhookProcess(1);
		});
	},
);
