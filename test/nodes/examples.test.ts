import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { INode } from 'n8n-workflow';
import { MessengerBotBuilder } from '../../nodes/MessengerBotBuilder/MessengerBotBuilder.node';
import { PACKAGE } from '../harness/nodeTypes';
import type { WorkflowDefinition } from '../harness/runWorkflow';
import { startTestBed } from '../support/sandbox';

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
	{ subscriber: { botid: 'bot_tg', clientid: '100002', messenger: 'telegram', name: 'Bob Jones' }, stage: 'Qualified', previous: 'New' },
	{ payment: { id: 'pay_example', amount: 25, currency: 'USD', botid: 'bot_tg', clientid: '100003', messenger: 'telegram', description: null, paid_at: '2026-11-21T10:00:00.000Z' } },
];

const TRIGGER_TYPE = `${PACKAGE}.messengerBotBuilderTrigger`;

/**
 * A workflow that starts on the trigger, cut to the branch behind one of its outputs: the trigger
 * becomes an items node that puts out a sample event of that output's kind.
 */
function branch(workflow: WorkflowDefinition, output: number): WorkflowDefinition {
	const trigger = workflow.nodes.find((node) => node.type === TRIGGER_TYPE)!;
	const items = { ...trigger, type: `${PACKAGE}.harnessItems`, parameters: { items: JSON.stringify([SAMPLE_EVENTS[output]]) } };
	const next = workflow.connections[trigger.name].main[output] ?? [];
	const reached = new Set(next.map((connection) => connection.node));
	return {
		...workflow,
		nodes: [items, ...workflow.nodes.filter((node) => reached.has(node.name)).map(runnable)],
		connections: { [trigger.name]: { main: [next] } },
	};
}

const startsOnEvents = (workflow: WorkflowDefinition) => workflow.nodes.some((node) => node.type === TRIGGER_TYPE);

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

	it('there is an example for every resource', () => {
		const used = new Set<string>();
		for (const file of files) {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as WorkflowDefinition;
			for (const node of workflow.nodes) if (node.parameters.resource) used.add(String(node.parameters.resource));
		}
		const { nodeProperties } = jest.requireActual('../../nodes/MessengerBotBuilder/actions/versionDescription');
		const resources = nodeProperties[0].options.map((option: { value: string }) => option.value);
		expect([...used].sort()).toEqual([...resources].sort());
	});

	it('every parameter in the examples is one the node shows for that resource and operation', () => {
		const { properties } = new MessengerBotBuilder().description;
		const shownFor = (resource: string, operation: string) =>
			properties
				.filter((property) => {
					const show = property.displayOptions?.show;
					return !show || ((show.resource ?? [resource]).includes(resource) && (show.operation ?? [operation]).includes(operation));
				})
				.map((property) => property.name);
		const unknown: string[] = [];
		for (const file of files) {
			const workflow = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as WorkflowDefinition;
			for (const node of workflow.nodes.filter((candidate) => candidate.type.endsWith('.messengerBotBuilder'))) {
				const { resource, operation } = node.parameters as { resource: string; operation: string };
				const known = new Set(shownFor(resource, operation));
				for (const name of Object.keys(node.parameters)) if (!known.has(name)) unknown.push(`${file} "${node.name}": ${name}`);
			}
		}
		expect(unknown).toEqual([]);
	});

	it.each(manual)('%s', async (file) => {
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
