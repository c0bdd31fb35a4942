import '../support/env';
import type { IDataObject, IExecuteFunctions, INodeParameters, Logger } from 'n8n-workflow';
import { generateHookSecret, signDelivery } from '../../receiver/src/sign';
import { checkRepeat } from '../../nodes/MessengerBotBuilderTrigger/repeatCheck';
import { ProcessedDataStore, processedDataStore } from '../support/processedData';
import { loadTriggerHarnessApart, type TriggerHarness } from '../support/triggerHarness';
import { startWebhookServer, type WebhookServer } from '../support/webhookServer';

/**
 * The repeat check across n8n processes: each "process" is a copy of the node's modules loaded apart (its own
 * in-process memory), all of them over one workflow's saved static data and one store with the semantics of n8n's
 * `processed_data` (test/support/processedData.ts). Deliveries go over HTTP to each process's own endpoint and the
 * executions they start are run by n8n-core's engine, so the trigger's execute() meets n8n-core's own helpers.
 */
const HOOK_ID = 'hook_repeats_test';
const SECRET = generateHookSecret();
const NODE_PATH = '/6f1c2f7e-4b8a-4d55-9a55-3c0f9d1e2a7b/webhook';

interface Process {
	harness: TriggerHarness;
	server: WebhookServer;
}

const processes: Process[] = [];
let sequence = 0;

/** A new n8n process for the workflow of `first` (or a new workflow): fresh modules, the same database. */
async function startProcess(parameters: INodeParameters, first?: TriggerHarness): Promise<Process> {
	const Isolated = loadTriggerHarnessApart(() => jest.requireActual('../support/triggerHarness'));
	const holder: { harness?: TriggerHarness } = {};
	const server = await startWebhookServer(() => holder.harness!);
	holder.harness = new Isolated({
		apiBaseUrl: 'http://127.0.0.1:9/api',
		apiKey: 'unused',
		webhookBaseUrl: server.webhookBaseUrl,
		webhookTestBaseUrl: server.webhookTestBaseUrl,
		parameters,
		sameWorkflowAs: first,
	});
	if (!first) holder.harness.setNodeStaticData({ hookId: HOOK_ID, secret: SECRET });
	const started = { harness: holder.harness, server };
	processes.push(started);
	return started;
}

function subscriberEvent(): { id: string; body: string; data: IDataObject } {
	sequence += 1;
	const data = { subscriber: { botid: 'bot_tg', clientid: `r${sequence}`, messenger: 'telegram', name: 'Ada' } };
	const id = `evt_repeat_${sequence}_${Math.random().toString(36).slice(2, 8)}`;
	return {
		id,
		data,
		body: JSON.stringify({ id, type: 'subscriber.new', created: new Date().toISOString(), hook: HOOK_ID, data }),
	};
}

async function deliver(to: Process, delivery: { id: string; body: string }, path = NODE_PATH) {
	const headers = await signDelivery({ body: delivery.body, eventId: delivery.id, hookId: HOOK_ID, secret: SECRET });
	const response = await fetch(
		`${path.startsWith('/test') ? to.server.webhookTestBaseUrl : to.server.webhookBaseUrl}${path.replace(/^\/test/, '')}`,
		{
			method: 'POST',
			headers: { 'content-type': 'application/json', ...headers },
			body: delivery.body,
		},
	);
	const answer = { status: response.status, body: (await response.json()) as IDataObject };
	await to.harness.settled();
	return answer;
}

beforeEach(() => {
	processedDataStore().readToWriteMs = 0;
});

// Each "process" shuts down its n8n-core copy, which takes back the process 'exit' listener that copy added.
const exitListenersBefore = process.listenerCount('exit');
afterAll(() => expect(process.listenerCount('exit')).toBe(exitListenersBefore));

afterEach(async () => {
	for (const { harness, server } of processes.splice(0)) {
		await server.close();
		harness.shutdown();
	}
});

describe('a repeat that reaches another n8n process, or comes after a restart', () => {
	it('is answered "accepted" there, starts an execution that puts out nothing, and the workflow ran once', async () => {
		const one = await startProcess({ events: ['*'] });
		const two = await startProcess({ events: ['*'] }, one.harness);
		const delivery = subscriberEvent();
		expect(await deliver(one, delivery)).toEqual({ status: 200, body: { status: 'accepted', event: delivery.id } });
		expect(one.harness.started).toEqual([[{ json: delivery.data }]]);

		// The other process never saw the event: it cannot tell in webhook(), its execution's trigger can.
		expect(await deliver(two, delivery)).toEqual({ status: 200, body: { status: 'accepted', event: delivery.id } });
		expect(two.harness.executions).toHaveLength(1);
		expect(two.harness.started).toEqual([]);
		const repeatRun = two.harness.executions[0];
		expect(repeatRun.data.resultData.error).toBeUndefined();
		expect(repeatRun.data.resultData.runData['Messenger Bot Builder Trigger'][0].data?.main).toEqual([[]]);

		// A restart: a third process, nothing in memory, the same database.
		const restarted = await startProcess({ events: ['*'] }, one.harness);
		await deliver(restarted, delivery);
		expect(restarted.harness.executions).toHaveLength(1);
		expect(restarted.harness.started).toEqual([]);

		// The first process still answers from its memory, without an execution.
		expect(await deliver(one, delivery)).toEqual({ status: 200, body: { status: 'duplicate', event: delivery.id } });
		expect(one.harness.executions).toHaveLength(1);
	});

	it('keeps the output options in every process: the event is shaped once, on its own output', async () => {
		const one = await startProcess({ events: ['*'], options: { outputPerEvent: true, output: 'envelope' } });
		const two = await startProcess(
			{ events: ['*'], options: { outputPerEvent: true, output: 'envelope' } },
			one.harness,
		);
		const delivery = subscriberEvent();
		await deliver(two, delivery);
		await deliver(one, delivery);
		expect(two.harness.startedOutputs).toEqual([[[{ json: JSON.parse(delivery.body) }], [], []]]);
		expect(one.harness.startedOutputs).toEqual([]);
		expect(one.harness.executions).toHaveLength(1);
	});

	it('does not check test events ("Listen for test event"): a person asked for that run', async () => {
		const one = await startProcess({ events: ['*'] });
		const two = await startProcess({ events: ['*'] }, one.harness);
		const delivery = subscriberEvent();
		await deliver(one, delivery, `/test${NODE_PATH}`);
		await deliver(two, delivery, `/test${NODE_PATH}`);
		expect([...one.harness.started, ...two.harness.started]).toEqual([
			[{ json: delivery.data }],
			[{ json: delivery.data }],
		]);
		// Nor are they recorded: the live hook's delivery of the same event still runs.
		const three = await startProcess({ events: ['*'] }, one.harness);
		await deliver(three, delivery);
		expect(three.harness.started).toEqual([[{ json: delivery.data }]]);
	});

	it('four processes receiving the same event at once, with a database round trip between read and write: it runs exactly once', async () => {
		const store = processedDataStore();
		store.readToWriteMs = 20;
		const first = await startProcess({ events: ['*'] });
		const others = await Promise.all(Array.from({ length: 3 }, () => startProcess({ events: ['*'] }, first.harness)));
		for (let round = 0; round < 4; round++) {
			const delivery = subscriberEvent();
			const answers = await Promise.all([first, ...others].map((process) => deliver(process, delivery)));
			expect(answers.map(({ status }) => status)).toEqual(Array(4).fill(200));
			const ran = processes
				.flatMap(({ harness }) => harness.started)
				.filter(([item]) => JSON.stringify(item.json) === JSON.stringify(delivery.data));
			expect(ran).toHaveLength(1);
		}
		// Each check pauses for a multiple of the store's answer time and backs off at random when overwritten: on a
		// busy machine the rounds take far longer than the configured default.
	}, 180_000);
});

/** The check on its own, against the store, with n8n-core's helper reduced to the call it makes. */
function contextOver(store: ProcessedDataStore, workflowId: string, logger: Partial<Logger> = {}): IExecuteFunctions {
	return {
		helpers: {
			checkProcessedAndRecord: (items: string[], scope: 'node', options: { mode: 'entries'; maxEntries?: number }) =>
				store.checkProcessedAndRecord(
					items,
					scope,
					{ workflow: { id: workflowId, active: true }, node: { id: 'trigger' } as never },
					options,
				),
		},
		logger: { warn: jest.fn(), info: jest.fn(), debug: jest.fn(), error: jest.fn(), ...logger },
		getNode: () => ({ id: 'trigger', name: 'Trigger' }),
	} as unknown as IExecuteFunctions;
}

describe('checkRepeat(): claims in a store whose writes replace each other', () => {
	it('simultaneous claims of one event: exactly one runs it, 40 times in a row (one check call would let several through)', async () => {
		const store = new ProcessedDataStore();
		store.readToWriteMs = 10;
		let naiveDoubles = 0;
		const naiveRow = (round: number) => ({
			workflow: { id: `wf-naive-${round}`, active: true },
			node: { id: 'n' } as never,
		});
		for (let round = 0; round < 40; round++) {
			const context = contextOver(store, `wf-race-${round}`);
			const verdicts = await Promise.all(
				Array.from({ length: 4 }, (_, worker) =>
					checkRepeat(context, `h/evt_${round}`, `h/evt_${round}@exec-${worker}`, 1000),
				),
			);
			expect(verdicts.filter(({ outcome }) => outcome === 'new')).toHaveLength(1);
			expect(verdicts.filter(({ outcome }) => outcome === 'repeat')).toHaveLength(3);
			// What a single checkProcessedAndRecord call per worker decides over the same store: several "new".
			await store.checkProcessedAndRecord(['an earlier event'], 'node', naiveRow(round), { mode: 'entries' });
			const naive = await Promise.all(
				Array.from({ length: 4 }, () =>
					store.checkProcessedAndRecord([`naive_${round}`], 'node', naiveRow(round), { mode: 'entries' }),
				),
			);
			if (naive.filter((result) => result.new.length === 1).length > 1) naiveDoubles++;
		}
		// The race the claims close is real in this store: without them, most rounds would have run the event twice or more.
		expect(naiveDoubles).toBeGreaterThan(20);
	});

	it('simultaneous different events, whose writes wipe each other out: none is lost, each runs once', async () => {
		const store = new ProcessedDataStore();
		store.readToWriteMs = 10;
		const context = contextOver(store, 'wf-many');
		const ids = Array.from({ length: 20 }, (_, index) => `h/evt_many_${index}`);
		const verdicts = await Promise.all(ids.map((id) => checkRepeat(context, id, `${id}@exec`, 1000)));
		expect(verdicts.map(({ outcome }) => outcome)).toEqual(Array(20).fill('new'));
		// Each is recorded now: a repeat of any of them is caught.
		const repeats = await Promise.all(ids.map((id) => checkRepeat(context, id, `${id}@exec-again`, 1000)));
		expect(repeats.map(({ outcome }) => outcome)).toEqual(Array(20).fill('repeat'));
	});

	it("the same execution run again (a crashed worker's job re-run) finds its own claim and runs the event", async () => {
		const context = contextOver(new ProcessedDataStore(), 'wf-rerun');
		expect(await checkRepeat(context, 'h/evt_rerun', 'h/evt_rerun@exec-7', 1000)).toEqual({ outcome: 'new' });
		expect(await checkRepeat(context, 'h/evt_rerun', 'h/evt_rerun@exec-7', 1000)).toEqual({ outcome: 'new' });
		expect(await checkRepeat(context, 'h/evt_rerun', 'h/evt_rerun@exec-8', 1000)).toEqual({ outcome: 'repeat' });
	});

	it('a full history drops the oldest events first, never fails, and keeps two entries per event', async () => {
		const store = new ProcessedDataStore();
		const context = contextOver(store, 'wf-full');
		for (let index = 0; index < 26; index++)
			expect(await checkRepeat(context, `h/evt_${index}`, `h/evt_${index}@e`, 20)).toEqual({ outcome: 'new' });
		expect(
			await store.getProcessedDataCount('node', {
				workflow: { id: 'wf-full', active: true },
				node: { id: 'trigger' } as never,
			}),
		).toBe(40);
		// The 20 newest are remembered, the 6 oldest forgotten (their repeat would run again).
		expect(await checkRepeat(context, 'h/evt_6', 'h/evt_6@other', 20)).toEqual({ outcome: 'repeat' });
		expect(await checkRepeat(context, 'h/evt_25', 'h/evt_25@other', 20)).toEqual({ outcome: 'repeat' });
		expect(await checkRepeat(context, 'h/evt_5', 'h/evt_5@other', 20)).toEqual({ outcome: 'new' });
	});

	it("two first writes into a new history (n8n's unique row) both succeed: the second is tried again", async () => {
		const store = new ProcessedDataStore();
		store.readToWriteMs = 10;
		const context = contextOver(store, 'wf-first-insert');
		const verdicts = await Promise.all([
			checkRepeat(context, 'h/a', 'h/a@1', 1000),
			checkRepeat(context, 'h/b', 'h/b@2', 1000),
		]);
		expect(verdicts).toEqual([{ outcome: 'new' }, { outcome: 'new' }]);
		expect(await checkRepeat(context, 'h/a', 'h/a@3', 1000)).toEqual({ outcome: 'repeat' });
		expect(await checkRepeat(context, 'h/b', 'h/b@3', 1000)).toEqual({ outcome: 'repeat' });
	});

	it('an n8n without the deduplication helpers runs every event unchecked and says so once', async () => {
		const warn = jest.fn();
		const context = {
			helpers: {},
			logger: { warn },
			getNode: () => ({ name: 'Trigger' }),
		} as unknown as IExecuteFunctions;
		const verdicts = [
			await checkRepeat(context, 'h/x', 'h/x@1', 1000),
			await checkRepeat(context, 'h/x', 'h/x@2', 1000),
		];
		expect(verdicts).toEqual([
			{ outcome: 'unchecked', why: 'no deduplication helpers in this n8n' },
			{ outcome: 'unchecked', why: 'no deduplication helpers in this n8n' },
		]);
		expect(warn).toHaveBeenCalledTimes(1);
		expect(warn.mock.calls[0][0]).toMatch(/starts the workflow again/);
	});
});
