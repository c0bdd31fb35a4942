/**
 * The trigger in n8n's production topology (Postgres, Redis, main without production webhooks, workers, `n8n webhook`
 * processes behind a balancer), measured against n8n's own Webhook node in the same stack and the same run:
 *
 * 1. Throughput, in interleaved rounds (trigger, Webhook, trigger, …): deliveries accepted per second (every answer a
 *    200) and executions finished per second (n8n's database counts them). Goal: the trigger at ≥ 0.8 of the Webhook
 *    node on both. Each signed delivery is made before its round's clock starts.
 * 2. The repeat check's cost against its history size: the trigger's history is filled to 1k, 10k, 100k events
 *    (the event history: written straight into n8n's processed_data row, as n8n writes it; the claim log: claims of
 *    other events added to its data table through n8n's API) and the trigger node's own time per event is read from
 *    the executions (n8n's executionTime).
 * 3. The remaining race: the same delivery sent at the same moment to both webhook processes, again and again; how
 *    many times did the workflow run the event (goal: exactly once each time).
 *
 * Either repeat check can be measured (`repeatCheck`): the event history in n8n's processed_data, or the claim log in
 * an n8n data table.
 *
 * Used by `npm run bench:topology` (bench/topology/run.ts, the full form) and, in its short form, by the topology e2e.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { toWebhookProcess } from '../../e2e/lib/balancer.ts';
import { credentialType, n8nApiCredentialType, nodeTypes } from '../../e2e/lib/communityPackage.ts';
import { publishedHook, signatureHeaders, subscriberEvent, type TriggerHook } from '../../e2e/lib/deliveries.ts';
import { createClaimLogCredential, type E2eEnvironment } from '../../e2e/lib/environment.ts';
import { waitFor } from '../../e2e/lib/waitFor.ts';

export interface TopologyBenchOptions {
	/** Deliveries per round and workflow. */
	deliveries: number;
	/** Requests in flight at once. */
	concurrency: number;
	/** Rounds of each workflow, interleaved. */
	rounds: number;
	/** History sizes (events) for the cost curve. */
	historySizes: number[];
	/** Deliveries timed at each history size. */
	historyDeliveries: number;
	/** Same-moment repeats to both webhook processes. */
	races: number;
	/** The same while the database stalls (the stack needs `stallingDatabase`); none when absent. */
	stalledRaces?: number;
	/** Whether the figures are enough to judge the goal; a short form's are not, and its goal line only informs. */
	goalChecked: boolean;
	/** The trigger's repeat check: the event history (n8n's processed_data) or the claim log (an n8n data table). */
	repeatCheck?: RepeatCheck;
}

export type RepeatCheck = 'history' | 'claimLog';

/** The claim log's data table, as the trigger names it (nodes/MessengerBotBuilderTrigger/claimLog.ts). */
export const CLAIM_TABLE_NAME = 'Messenger Bot Builder Trigger claims';

export const FULL: TopologyBenchOptions = {
	deliveries: 100,
	concurrency: 16,
	rounds: 3,
	historySizes: [1000, 10_000, 100_000],
	historyDeliveries: 6,
	races: 30,
	goalChecked: true,
};
export const SHORT: TopologyBenchOptions = {
	deliveries: 20,
	concurrency: 8,
	rounds: 1,
	historySizes: [1000],
	historyDeliveries: 4,
	races: 4,
	goalChecked: false,
};

export const GOAL_RATIO = 0.8;
/** The repeat check's cost per event may grow this much from the smallest history to the largest. */
export const HISTORY_SPREAD_GOAL = 1.2;

interface Request {
	url: string;
	headers: Record<string, string>;
	body: string;
}

export interface RoundFigures {
	acceptedPerSecond: number;
	executionsPerSecond: number;
}

export interface TopologyBenchResult {
	trigger: RoundFigures[];
	webhook: RoundFigures[];
	ratio: { accepted: number; executions: number };
	repeatCheck: RepeatCheck;
	history: Array<{ events: number; triggerMsMedian: number; executionsPerSecond: number }>;
	/** The trigger's time per event at the largest history over that at the smallest. */
	historySpread?: number;
	races: RaceCounts;
	/** The races again while the database stalls (`stalledRaces`). */
	stalledRaces?: RaceCounts & { heldReplies: number };
	/** Events that ran without a settled record (n8n's log: "runs without the repeat check"); they ran, once each. */
	unchecked: number;
	met: boolean;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Sends every request with `concurrency` in flight; resolves with the time the last 2xx came (ms), or throws on any other. */
async function sendAll(requests: Request[], concurrency: number): Promise<number> {
	let next = 0;
	const failures: string[] = [];
	const worker = async () => {
		while (next < requests.length) {
			const { url, headers, body } = requests[next++];
			const response = await fetch(url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...headers },
				body,
			});
			const text = await response.text();
			if (response.status !== 200) failures.push(`${response.status} ${text.slice(0, 200)}`);
		}
	};
	await Promise.all(Array.from({ length: concurrency }, worker));
	if (failures.length)
		throw new Error(
			`${failures.length} of ${requests.length} requests were not answered 200: ${failures.slice(0, 3).join(' | ')}`,
		);
	return performance.now();
}

/** Executions of a workflow in n8n's database, by status. */
async function executionCounts(env: E2eEnvironment, workflowId: string): Promise<Record<string, number>> {
	const rows = await env.n8n.database!.query(
		`SELECT status, count(*) FROM execution_entity WHERE "workflowId" = '${workflowId}' GROUP BY status`,
	);
	return Object.fromEntries(rows.map((row) => row.split('|')).map(([status, count]) => [status, Number(count)]));
}

async function waitForSuccesses(
	env: E2eEnvironment,
	workflowId: string,
	expected: number,
	timeoutMs: number,
): Promise<number> {
	await waitFor(
		async () => {
			const counts = await executionCounts(env, workflowId);
			const failed = Object.entries(counts).filter(([status]) => !['success', 'running', 'new'].includes(status));
			if (failed.length) throw new Error(`executions of ${workflowId} did not succeed: ${JSON.stringify(counts)}`);
			return (counts.success ?? 0) >= expected ? true : undefined;
		},
		{ what: `${expected} successful executions of ${workflowId}`, timeoutMs, intervalMs: 100 },
	);
	return performance.now();
}

const noOp = () => ({
	id: randomUUID(),
	name: 'Done',
	type: 'n8n-nodes-base.noOp',
	typeVersion: 1,
	position: [220, 0],
	parameters: {},
});

async function publish(env: E2eEnvironment, definition: Record<string, unknown>): Promise<string> {
	const workflow = await env.api.createWorkflow(definition as never);
	await env.api.publishWorkflow(workflow.id);
	return workflow.id;
}

/** A published trigger workflow (trigger → No Op) and its hook as the node keeps it. */
async function triggerWorkflow(
	env: E2eEnvironment,
	name: string,
	store: RepeatStore,
	historySize?: number,
): Promise<{ id: string; nodeId: string; hook: TriggerHook }> {
	const nodeId = randomUUID();
	const claimLog = store.kind === 'claimLog';
	const id = await publish(env, {
		name,
		nodes: [
			{
				id: nodeId,
				name: 'On Event',
				type: nodeTypes.trigger,
				typeVersion: 1.1,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: {
					events: ['*'],
					...(claimLog ? { repeatCheck: 'claimLog' } : {}),
					options: { output: 'envelope', ...(historySize && !claimLog ? { historySize } : {}) },
				},
				credentials: {
					[credentialType]: { id: env.credentialId, name: 'Messenger Bot Builder (sandbox)' },
					...(claimLog ? { [n8nApiCredentialType]: store.credential } : {}),
				},
			},
			noOp(),
		],
		connections: { 'On Event': { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	return { id, nodeId, hook: await publishedHook(env.api, id, name) };
}

/** The repeat check the bench's trigger workflows use, with what it needs. */
export type RepeatStore = { kind: 'history' } | { kind: 'claimLog'; credential: { id: string; name: string } };

export async function repeatStore(env: E2eEnvironment, kind: RepeatCheck): Promise<RepeatStore> {
	if (kind === 'history') return { kind };
	return { kind, credential: await createClaimLogCredential(env, `bench ${randomBytes(3).toString('hex')}`) };
}

/** One call to n8n's public API with the owner's key; throws on an answer other than 2xx. */
async function n8nApi<T>(env: E2eEnvironment, method: string, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${env.n8n.mainUrl}/api/v1${path}`, {
		method,
		headers: { 'x-n8n-api-key': env.api.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	if (!response.ok) throw new Error(`${method} /api/v1${path}: HTTP ${response.status} ${text.slice(0, 300)}`);
	return JSON.parse(text) as T;
}

/** The claim log's data table (the trigger made it at its first claim) and how many claims it holds. */
export async function claimTable(env: E2eEnvironment): Promise<{ id: string; rows: number }> {
	const tables = await n8nApi<{ data: Array<{ id: string; name: string }> }>(
		env,
		'GET',
		`/data-tables?filter=${encodeURIComponent(JSON.stringify({ name: CLAIM_TABLE_NAME }))}`,
	);
	const table = tables.data.find((candidate) => candidate.name === CLAIM_TABLE_NAME);
	assert.ok(table, `the trigger made the data table "${CLAIM_TABLE_NAME}"`);
	const [row] = await env.n8n.database!.query(`SELECT count(*) FROM "data_table_user_${table.id}"`);
	return { id: table.id, rows: Number(row) };
}

/** Adds claims of other events (their executions long finished) until the log holds `events` claims. */
async function fillClaimLog(env: E2eEnvironment, events: number): Promise<void> {
	const table = await claimTable(env);
	const run = randomBytes(4).toString('hex');
	for (let added = table.rows; added < events;) {
		const batch = Math.min(1000, events - added);
		const data = Array.from({ length: batch }, (_, index) => ({
			hook: 'hook_fill',
			event: `evt_fill_${run}_${added + index}`,
			execution: '1',
			workflow: 'fill',
		}));
		await n8nApi(env, 'POST', `/data-tables/${table.id}/rows`, { data, returnType: 'count' });
		added += batch;
	}
}

/** A published workflow of n8n's own Webhook node (answers at once) → No Op, and its production URL. */
async function webhookWorkflow(env: E2eEnvironment, name: string): Promise<{ id: string; url: string }> {
	const webhookPath = `bench-${randomBytes(6).toString('hex')}`;
	const id = await publish(env, {
		name,
		nodes: [
			{
				id: randomUUID(),
				name: 'Start',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: randomUUID(),
				parameters: { path: webhookPath, httpMethod: 'POST', responseMode: 'onReceived' },
			},
			noOp(),
		],
		connections: { Start: { main: [[{ node: 'Done', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	});
	const url = `${env.n8n.baseUrl}/webhook/${webhookPath}`;
	// Every webhook process learns of the published workflow on its own; until then it answers 404.
	for (const process of env.n8n.webhookProcesses.keys()) {
		await waitFor(
			async () => {
				const response = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...toWebhookProcess(process + 1) },
					body: '{"warmup":true}',
				});
				await response.body?.cancel();
				return response.status === 200 ? true : undefined;
			},
			{ what: `${url} on webhook process ${process + 1}`, timeoutMs: 30_000, intervalMs: 250 },
		);
	}
	return { id, url };
}

async function signed(hook: TriggerHook, count: number): Promise<Request[]> {
	const run = randomBytes(4).toString('hex');
	return Promise.all(
		Array.from({ length: count }, async (_, index) => {
			const delivery = subscriberEvent(hook.hookId, `evt_bench_${run}_${index}`, `bench-${run}-${index}`);
			const headers = await signatureHeaders(hook, delivery);
			return { url: hook.url, headers, body: delivery.body };
		}),
	);
}

/** One timed round: all requests sent, then every execution finished. */
async function round(
	env: E2eEnvironment,
	workflowId: string,
	requests: Request[],
	concurrency: number,
	before: number,
): Promise<RoundFigures> {
	const started = performance.now();
	const answered = await sendAll(requests, concurrency);
	const finished = await waitForSuccesses(env, workflowId, before + requests.length, 300_000);
	return {
		acceptedPerSecond: requests.length / ((answered - started) / 1000),
		executionsPerSecond: requests.length / ((finished - started) / 1000),
	};
}

/** 2H random md5 digests, base64, as n8n's helper stores them (two entries per event: the id and its claim). */
function filledHistory(events: number): string {
	const data = Array.from({ length: events * 2 }, () => createHash('md5').update(randomBytes(8)).digest('base64'));
	return JSON.stringify({ mode: 'entries', data });
}

async function triggerNodeTimes(env: E2eEnvironment, workflowId: string): Promise<number[]> {
	const executions = await env.api.executions(workflowId, { includeData: true });
	return executions
		.map((execution) => execution.data?.resultData.runData['On Event']?.[0])
		.filter((task) => task?.data?.main[0]?.length === 1)
		.map((task) => Number(task?.executionTime));
}

/** Events raced at once (each sent to both webhook processes at the same moment). */
const RACES_AT_ONCE = 6;

export interface RaceCounts {
	sent: number;
	ranOnce: number;
	ranTwice: number;
	neverRan: number;
	/** Executions that failed (each with n8n's error): they ran nothing of the event. */
	failedExecutions: string[];
}

/**
 * The same delivery at the same moment to both webhook processes, for `count` events, a few at a time: neither process
 * has seen an event, both start an execution, and the repeat check must let exactly one run it.
 */
export async function raceRepeats(
	env: E2eEnvironment,
	store: RepeatStore,
	name: string,
	count: number,
	beforeSending: () => void = () => undefined,
): Promise<RaceCounts> {
	const raced = await triggerWorkflow(env, name, store);
	const requests = await signed(raced.hook, count);
	beforeSending();
	const race = (request: Request) =>
		Promise.all(
			[1, 2].map(async (process) => {
				const response = await fetch(request.url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...request.headers, ...toWebhookProcess(process) },
					body: request.body,
				});
				await response.body?.cancel();
				assert.equal(response.status, 200);
			}),
		);
	// A few events at a time, as a busy bot's deliveries come: each to both webhook processes at the same moment.
	for (let at = 0; at < requests.length; at += RACES_AT_ONCE)
		await Promise.all(requests.slice(at, at + RACES_AT_ONCE).map(race));
	// Every execution ended, whatever its status: one whose repeat check failed (n8n's API could not reach its database)
	// ran nothing, and the event must then have run in the other.
	await waitFor(
		async () => {
			const counts = await executionCounts(env, raced.id);
			const ended = Object.entries(counts).filter(([status]) => !['running', 'new'].includes(status));
			const total = ended.reduce((sum, [, n]) => sum + n, 0);
			return total >= count * 2 && !counts.running && !counts.new ? true : undefined;
		},
		{ what: `${count * 2} ended executions of ${raced.id}`, timeoutMs: 120_000 + count * 2_000, intervalMs: 200 },
	);
	const carried = await env.api.allExecutions(raced.id, { includeData: true });
	assert.equal(carried.length, count * 2, `every execution of ${raced.id} was read`);
	const runsPerEvent = new Map<string, number>();
	for (const execution of carried) {
		const [item] = execution.data?.resultData.runData['On Event']?.[0]?.data?.main[0] ?? [];
		if (item) runsPerEvent.set(String(item.json.id), (runsPerEvent.get(String(item.json.id)) ?? 0) + 1);
	}
	return {
		sent: count,
		ranOnce: [...runsPerEvent.values()].filter((runs) => runs === 1).length,
		ranTwice: [...runsPerEvent.values()].filter((runs) => runs > 1).length,
		neverRan: count - runsPerEvent.size,
		failedExecutions: carried
			.filter((execution) => execution.status !== 'success')
			.map((execution) => `${execution.id}: ${execution.data?.resultData.error?.message ?? execution.status}`),
	};
}

const failures = ({ failedExecutions }: RaceCounts) =>
	failedExecutions.length ? `; ${failedExecutions.length} executions failed (${failedExecutions.join('; ')})` : '';

/** How the database stalls in the stall scenario: a share of its replies held for a random time. */
export const DATABASE_STALLS = { share: 0.05, minMs: 150, maxMs: 600 };

/** raceRepeats while the stack's database proxy holds replies (the stack needs `stallingDatabase`). */
export async function racesUnderStalls(
	env: E2eEnvironment,
	store: RepeatStore,
	count: number,
	stalls = DATABASE_STALLS,
): Promise<RaceCounts & { heldReplies: number }> {
	const proxy = env.n8n.databaseProxy;
	assert.ok(proxy, 'stalls need the database proxy of the stack (stallingDatabase)');
	let heldBefore = proxy.held;
	try {
		// Stalls from the first delivery on: the workflow is published before, as it would be long before a burst.
		const counts = await raceRepeats(env, store, 'Bench trigger races under stalls', count, () => {
			heldBefore = proxy.held;
			proxy.stall(stalls);
		});
		return { ...counts, heldReplies: proxy.held - heldBefore };
	} finally {
		proxy.stall(undefined);
	}
}

export async function measureTopology(
	env: E2eEnvironment,
	options: TopologyBenchOptions,
	log: (line: string) => void = console.log,
): Promise<TopologyBenchResult> {
	assert.ok(
		env.n8n.database && env.n8n.webhookProcesses.length >= 2,
		'the benchmark needs the production topology: Postgres and two webhook processes',
	);
	const kind = options.repeatCheck ?? 'history';
	const store = await repeatStore(env, kind);
	log(
		`repeat check: ${kind === 'claimLog' ? 'the claim log in an n8n data table' : "the event history in n8n's processed_data"}`,
	);
	const trigger = await triggerWorkflow(env, 'Bench trigger', store);
	const webhook = await webhookWorkflow(env, 'Bench webhook');
	// The warm-up call to each webhook process ran once each.
	await waitForSuccesses(env, webhook.id, env.n8n.webhookProcesses.length, 60_000);
	// The trigger gets the same warm-up: one delivery through each webhook process (its modules load on first use).
	const warmups = await signed(trigger.hook, env.n8n.webhookProcesses.length);
	for (const [index, request] of warmups.entries())
		await sendAll([{ ...request, headers: { ...request.headers, ...toWebhookProcess(index + 1) } }], 1);
	await waitForSuccesses(env, trigger.id, warmups.length, 60_000);
	const result: TopologyBenchResult = {
		trigger: [],
		webhook: [],
		ratio: { accepted: 0, executions: 0 },
		repeatCheck: kind,
		history: [],
		races: { sent: 0, ranOnce: 0, ranTwice: 0, neverRan: 0, failedExecutions: [] },
		unchecked: 0,
		met: false,
	};

	let triggerDone = warmups.length;
	let webhookDone = env.n8n.webhookProcesses.length;
	for (let r = 1; r <= options.rounds; r++) {
		const triggerRequests = await signed(trigger.hook, options.deliveries);
		const t = await round(env, trigger.id, triggerRequests, options.concurrency, triggerDone);
		triggerDone += options.deliveries;
		const webhookRequests = Array.from({ length: options.deliveries }, (_, index) => ({
			url: webhook.url,
			headers: {},
			body: JSON.stringify({ round: r, index }),
		}));
		const w = await round(env, webhook.id, webhookRequests, options.concurrency, webhookDone);
		webhookDone += options.deliveries;
		result.trigger.push(t);
		result.webhook.push(w);
		log(
			`round ${r}: trigger ${t.acceptedPerSecond.toFixed(1)} accepted/s, ${t.executionsPerSecond.toFixed(1)} executions/s; Webhook node ${w.acceptedPerSecond.toFixed(1)} accepted/s, ${w.executionsPerSecond.toFixed(1)} executions/s`,
		);
	}
	// Every event ran exactly once: as many successful executions as deliveries, each putting out one item.
	assert.equal((await executionCounts(env, trigger.id)).success, triggerDone, 'one execution per trigger delivery');
	result.ratio = {
		accepted:
			median(result.trigger.map((f) => f.acceptedPerSecond)) / median(result.webhook.map((f) => f.acceptedPerSecond)),
		executions:
			median(result.trigger.map((f) => f.executionsPerSecond)) /
			median(result.webhook.map((f) => f.executionsPerSecond)),
	};
	log(
		`trigger / Webhook node (median of ${options.rounds} rounds): accepted ${result.ratio.accepted.toFixed(2)}, executions ${result.ratio.executions.toFixed(2)}`,
	);

	for (const events of options.historySizes) {
		const sized = await triggerWorkflow(env, `Bench trigger history ${events}`, store, events);
		if (kind === 'claimLog') await fillClaimLog(env, events);
		else
			await env.n8n.database!.query(
				`INSERT INTO processed_data ("workflowId", context, value) VALUES ('${sized.id}', 'n:${sized.nodeId}', '${filledHistory(events)}')`,
			);
		const requests = await signed(sized.hook, options.historyDeliveries);
		const figures = await round(env, sized.id, requests, 2, 0);
		const times = await triggerNodeTimes(env, sized.id);
		assert.equal(times.length, options.historyDeliveries, `every delivery at history ${events} ran once`);
		if (kind === 'claimLog') {
			const { rows } = await claimTable(env);
			assert.ok(rows >= events + options.historyDeliveries, `the claim log holds ${rows} claims`);
		} else {
			const [row] = await env.n8n.database!.query(
				`SELECT json_array_length((value::json)->'data') FROM processed_data WHERE "workflowId" = '${sized.id}'`,
			);
			assert.equal(Number(row), events * 2, `the history stays at its bound of ${events} events`);
		}
		result.history.push({ events, triggerMsMedian: median(times), executionsPerSecond: figures.executionsPerSecond });
		log(
			`history of ${events} events: the trigger takes ${median(times)} ms per event (median${kind === 'history' ? '; it includes the settling pause, at least 50 ms' : ''}), ${figures.executionsPerSecond.toFixed(1)} executions/s at 2 in flight`,
		);
	}

	if (result.history.length > 1) {
		const times = result.history.map(({ triggerMsMedian }) => triggerMsMedian);
		result.historySpread = Math.max(...times) / Math.min(...times);
		log(
			`cost per event, largest history against smallest: ${result.historySpread.toFixed(2)}× (goal ≤ ${HISTORY_SPREAD_GOAL}×)`,
		);
	}

	result.races = await raceRepeats(env, store, 'Bench trigger races', options.races);
	log(
		`the same delivery to both webhook processes at once, ${options.races} times: ran once ${result.races.ranOnce}, twice ${result.races.ranTwice}, never ${result.races.neverRan}${failures(result.races)}`,
	);
	if (options.stalledRaces) {
		result.stalledRaces = await racesUnderStalls(env, store, options.stalledRaces);
		const { ranOnce, ranTwice, neverRan, heldReplies } = result.stalledRaces;
		log(
			`the same, ${options.stalledRaces} times, while the database holds ${DATABASE_STALLS.share * 100} % of its replies ${DATABASE_STALLS.minMs}–${DATABASE_STALLS.maxMs} ms (${heldReplies} held): ran once ${ranOnce}, twice ${ranTwice}, never ${neverRan}${failures(result.stalledRaces)}`,
		);
	}

	result.unchecked = [...env.n8n.workers, ...env.n8n.killed].reduce(
		(sum, worker) => sum + worker.log.grep('runs without the repeat check').length,
		0,
	);
	log(
		`events that ran without a settled record in the history (simultaneous executions kept overwriting it): ${result.unchecked}`,
	);
	result.met = result.ratio.accepted >= GOAL_RATIO && result.ratio.executions >= GOAL_RATIO;
	log(
		`goal (trigger ≥ ${GOAL_RATIO} of the Webhook node, accepted and executions per second): ${!options.goalChecked ? 'informational, not checked in the short form' : result.met ? 'met' : 'NOT met'}`,
	);
	return result;
}
