import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INode } from 'n8n-workflow';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import { PACKAGE } from '../support/nodeTypes';
import type { WorkflowDefinition } from '../support/runWorkflow';
import { startTestBed } from '../support/sandbox';
import { NodeRunner } from '../support/nodeRun';
import type { TriggerHarness } from '../support/triggerHarness';
import { startTriggerTestBed } from '../support/triggerTestBed';
import { EXAMPLE_ANSWERS, EXAMPLE_SUBSCRIBER } from '../../e2e/lib/exampleAnswers';
import { waitFor } from '../support/wait';
import { WaitingWebhookServer } from '../support/waitingWebhooks';

const EXAMPLES = join(__dirname, '..', '..', 'examples');

/**
 * The example workflows as n8n exports them use n8n's Manual Trigger and a Code node with sample
 * items; the harness has neither, so both become its items node with the same items.
 */
function runnable(node: INode): INode {
	if (node.type === 'n8n-nodes-base.manualTrigger') {
		return { ...node, type: `${PACKAGE}.harnessItems`, parameters: { items: '[{}]' } };
	}
	if (node.type === 'n8n-nodes-base.code') {
		const items = /^return (\[.*\])\.map\(/s.exec(String(node.parameters.jsCode))?.[1];
		if (!items) throw new Error(`The Code node "${node.name}" does not hold sample items`);
		return { ...node, type: `${PACKAGE}.harnessItems`, parameters: { items } };
	}
	return { ...node, credentials: { messengerBotBuilderApi: { id: 'main', name: 'main' } } };
}

/** Sample events of each documented kind, in the order of the trigger's outputs (One Output per Event Kind). */
const SAMPLE_EVENTS = [
	{ subscriber: { botid: 'bot_tg', clientid: '100001', messenger: 'telegram', name: 'Alice Smith' } },
	{
		subscriber: { botid: 'bot_tg', clientid: '100002', messenger: 'telegram', name: 'Bob Jones' },
		stage: 'Qualified',
		previous: 'New',
	},
	{
		payment: {
			id: 'pay_example',
			amount: 25,
			currency: 'USD',
			botid: 'bot_tg',
			clientid: '100003',
			messenger: 'telegram',
			description: null,
			paid_at: '2026-11-21T10:00:00.000Z',
		},
	},
];

const TRIGGER_TYPE = `${PACKAGE}.messengerBotBuilderTrigger`;
const ACTION_TYPE = `${PACKAGE}.messengerBotBuilder`;

/**
 * A workflow that starts on the trigger, cut to the branch behind one of its outputs: the trigger
 * becomes an items node that puts out a sample event of that output's kind.
 */
function branch(
	workflow: WorkflowDefinition,
	output: number,
	events: unknown[] = [SAMPLE_EVENTS[output]],
): WorkflowDefinition {
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE)!;
	const items = { ...trigger, type: `${PACKAGE}.harnessItems`, parameters: { items: JSON.stringify(events) } };
	const next = workflow.connections[trigger.name].main[output] ?? [];
	const reached = new Set(next.map((connection) => connection.node));
	return {
		...workflow,
		nodes: [items, ...workflow.nodes.filter((node) => reached.has(node.name)).map(runnable)],
		connections: { [trigger.name]: { main: [next] } },
	};
}

const startsOnEvents = (workflow: WorkflowDefinition) => workflow.nodes.some((node) => node.type === TRIGGER_TYPE);

/** The node of a workflow that sends a question and waits for the answer, if it has one. */
const askingNode = (workflow: WorkflowDefinition) =>
	workflow.nodes.find((node) => node.type === ACTION_TYPE && node.parameters.operation === 'sendAndWait');
const asksAndWaits = (workflow: WorkflowDefinition) => askingNode(workflow) !== undefined;

/** The nodes that run after `name`, following the workflow's connections. */
function downstreamOf(workflow: WorkflowDefinition, name: string) {
	const reached = new Set<string>();
	const next = [name];
	for (let current = next.pop(); current !== undefined; current = next.pop())
		for (const output of workflow.connections[current]?.main ?? [])
			for (const connection of output ?? [])
				if (!reached.has(connection.node)) {
					reached.add(connection.node);
					next.push(connection.node);
				}
	return workflow.nodes.filter((node) => reached.has(node.name));
}

describe('example workflows run against the sandbox', () => {
	const files = readdirSync(EXAMPLES).filter((file) => file.endsWith('.json'));
	const read = (file: string) => JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as WorkflowDefinition;
	const manual = files.filter((file) => !startsOnEvents(read(file)));
	const onEvents = files.filter((file) => startsOnEvents(read(file)));

	it('an example starts on events, with one output per event kind', () => {
		expect(onEvents).toEqual(['trigger-events.json']);
		const trigger = read(onEvents[0]).nodes.find((node) => node.type === TRIGGER_TYPE)!;
		expect(trigger.parameters).toMatchObject({ options: { outputPerEvent: true } });
	});

	it.each(onEvents.flatMap((file) => SAMPLE_EVENTS.map((_, output) => [file, output] as const)))(
		'%s, branch of output %i, runs on a sample event',
		async (file, output) => {
			const workflow = branch(read(file), output);
			expect(workflow.nodes.length).toBeGreaterThan(1);
			const bed = await startTestBed({ rateLimit: 0 });
			try {
				const result = await bed.node.harness.run(workflow);
				expect(result.error).toBeUndefined();
				for (const node of workflow.nodes) expect(result.output(node.name).length).toBeGreaterThan(0);
			} finally {
				await bed.close();
			}
		},
	);

	it('a Send and Wait example for every response type, each answered below', () => {
		const asking = files.filter((file) => asksAndWaits(read(file))).sort();
		expect(asking).toEqual(Object.keys(EXAMPLE_ANSWERS).sort());
		expect(asking.map((file) => askingNode(read(file))!.parameters.responseType).sort()).toEqual([
			'approval',
			'choice',
			'customForm',
			'freeText',
		]);
	});

	/**
	 * A Send and Wait example runs up to its question; the demo subscriber answers it through the sandbox, at a server
	 * that serves the waiting execution's resume address as n8n does; the nodes after the question then run on what the
	 * node resumed with, and the reply reaches the subscriber's chat.
	 */
	it.concurrent.each(manual.filter((file) => asksAndWaits(read(file))))(
		'%s: asks, is answered through the sandbox, replies',
		async (file) => {
			const workflow = read(file);
			const asking = askingNode(workflow)!;
			const bed = await startTestBed({ rateLimit: 0 });
			const server = await new WaitingWebhookServer(bed.node).start();
			try {
				bed.node.harness.instanceUrl = server.origin;
				const definition = { ...workflow, nodes: workflow.nodes.map(runnable) };
				const asked = await bed.node.harness.run(definition);
				expect(asked.error).toBeUndefined();
				expect(asked.run.status).toBe('waiting');
				const chat = async () =>
					(
						await bed.api.call<{ items: Array<{ text: string; buttons: Array<{ url: string }> }> }>(
							'/subscriber/chat/get',
							EXAMPLE_SUBSCRIBER,
						)
					).items;
				const [question] = await chat();
				const executionId = new URL(question.buttons[0].url).pathname.split('/')[2];
				server.keep(executionId, asked, { definition, nodeName: asking.name });

				const { answer, reply } = EXAMPLE_ANSWERS[file];
				const played = await fetch(`${bed.baseUrl.replace(/\/api$/, '')}/sandbox/answer`, {
					method: 'POST',
					headers: { authorization: bed.sandbox.adminKey, 'content-type': 'application/json' },
					body: JSON.stringify({ ...EXAMPLE_SUBSCRIBER, ...answer }),
				});
				const steps = ((await played.json()) as { steps: Array<{ status: number; heading: string }> }).steps;
				expect(steps.map((step) => `${step.status} ${step.heading}`)).toEqual([
					expect.stringMatching(/^200 (Confirm your answer|Your answer)$/),
					'200 Thank you',
				]);
				const resumedWith = server.executions.get(executionId)?.resumedWith;
				expect(resumedWith).toHaveLength(1);

				// The rest of the example, from the question on: the question's node puts out what it resumed with.
				const after = downstreamOf(workflow, asking.name);
				const rest: WorkflowDefinition = {
					...workflow,
					nodes: [
						{
							...asking,
							type: `${PACKAGE}.harnessItems`,
							parameters: { items: JSON.stringify(resumedWith!.map((item) => item.json)) },
						},
						...after.map(runnable),
					],
				};
				const replied = await bed.node.harness.run(rest);
				expect(replied.error).toBeUndefined();
				expect(after.map((node) => node.name)).toHaveLength(1);
				for (const node of after) expect(replied.output(node.name)).toHaveLength(1);
				expect((await chat())[0].text).toBe(reply);
			} finally {
				await server.close();
				await bed.close();
			}
		},
	);

	it('there is an example for every resource', () => {
		const used = new Set<string>();
		for (const file of files) {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as WorkflowDefinition;
			for (const node of workflow.nodes) if (node.parameters.resource) used.add(String(node.parameters.resource));
		}
		const { nodeProperties } = jest.requireActual('../../nodes/MessengerBotBuilder/actions/description');
		const resources = nodeProperties[0].options.map((option: { value: string }) => option.value);
		expect([...used].sort()).toEqual([...resources].sort());
	});

	it('every parameter in the examples is one the node shows for that resource and operation', () => {
		const { properties } = new MessengerBotBuilder().description;
		const shownFor = (resource: string, operation: string) =>
			properties
				.filter((property) => {
					const show = property.displayOptions?.show;
					return (
						!show ||
						((show.resource ?? [resource]).includes(resource) && (show.operation ?? [operation]).includes(operation))
					);
				})
				.map((property) => property.name);
		const unknown: string[] = [];
		for (const file of files) {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as WorkflowDefinition;
			for (const node of workflow.nodes.filter((candidate) => candidate.type.endsWith('.messengerBotBuilder'))) {
				const { resource, operation } = node.parameters as { resource: string; operation: string };
				const known = new Set(shownFor(resource, operation));
				for (const name of Object.keys(node.parameters))
					if (!known.has(name)) unknown.push(`${file} "${node.name}": ${name}`);
			}
		}
		expect(unknown).toEqual([]);
	});

	it.each(manual.filter((file) => !asksAndWaits(read(file))))('%s', async (file) => {
		const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as WorkflowDefinition;
		const bed = await startTestBed({ rateLimit: 0 });
		try {
			const result = await bed.node.harness.run({ ...workflow, nodes: workflow.nodes.map(runnable) });
			expect(result.error).toBeUndefined();
			for (const node of workflow.nodes) {
				expect(result.output(node.name).length).toBeGreaterThan(0);
			}
		} finally {
			await bed.close();
		}
	});
});

/**
 * What a user does with `npm run dev`: publishes the trigger example (its hook now exists in the
 * service), then runs the examples one after another, each twice in a row, in the state the others
 * left: hooks, subscribers, rows, tags and chains added by earlier examples. Then once more in the
 * reverse order, so each example also meets what the later ones leave. The events the service sent
 * meanwhile reach the published trigger, and each runs its branch of the trigger example.
 */
describe('every example twice in a row, after the trigger example was published, in the state the others leave', () => {
	const files = readdirSync(EXAMPLES)
		.filter((file) => file.endsWith('.json'))
		.sort();
	const read = (file: string) =>
		JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as WorkflowDefinition & { name: string };
	const manual = files.filter((file) => !startsOnEvents(read(file)));
	const triggerExample = read(files.find((file) => startsOnEvents(read(file)))!);
	let harness: TriggerHarness;

	it('each succeeds, the published hook survives, and the events sent meanwhile run the trigger example', async () => {
		const bed = await startTriggerTestBed(() => harness);
		try {
			const trigger = triggerExample.nodes.find((node) => node.type === TRIGGER_TYPE)!;
			harness = bed.harness({ parameters: trigger.parameters, workflowName: triggerExample.name });
			await harness.activate();
			const hooks = (await bed.api.call('/hook/list', { limit: 1000 })).items as Array<{ id: string }>;
			expect(hooks.map((hook) => hook.id)).toEqual([harness.nodeStaticData.hookId]);

			const runner = new NodeRunner(bed.sandbox.baseUrl, bed.sandbox.adminKey);
			const failures: string[] = [];
			for (const [pass, order] of [
				['forward', manual],
				['reverse', [...manual].reverse()],
			] as const) {
				for (const file of order) {
					const workflow = read(file);
					for (const round of [1, 2]) {
						const result = await runner.harness.run({ ...workflow, nodes: workflow.nodes.map(runnable) });
						const failed = result.error ?? workflow.nodes.map((node) => result.nodeError(node.name)).find(Boolean);
						if (failed) failures.push(`${file}, ${pass} pass, run ${round}: ${failed.message}`);
					}
				}
			}
			expect(failures).toEqual([]);
			// The published trigger's hook is still there, untouched by the webhook example's Delete.
			const after = (await bed.api.call('/hook/list', { limit: 1000 })).items as Array<{ id: string }>;
			expect(after.map((hook) => hook.id)).toEqual([harness.nodeStaticData.hookId]);

			// subscriber.json creates new subscribers (its first run) and crm.json changes a stage: both kinds reach the trigger.
			const kinds = (outputs: typeof harness.startedOutputs) =>
				outputs.map((execution) => execution.findIndex((output) => output.length > 0));
			await waitFor(
				'a new-subscriber and a stage-change event at the trigger',
				() => {
					const seen = kinds(harness.startedOutputs);
					return seen.includes(0) && seen.includes(1) ? true : undefined;
				},
				30_000,
			);
			for (const execution of harness.startedOutputs) {
				const output = execution.findIndex((items) => items.length > 0);
				const workflow = branch(
					triggerExample,
					output,
					execution[output].map((item) => item.json),
				);
				const result = await runner.harness.run(workflow);
				expect(result.error).toBeUndefined();
				for (const node of workflow.nodes) expect(result.output(node.name).length).toBeGreaterThan(0);
			}
		} finally {
			if (harness) await harness.lifecycle('delete');
			await bed.close();
		}
	}, 120_000);
});
