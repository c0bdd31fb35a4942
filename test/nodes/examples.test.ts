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

describe('example workflows run against the sandbox', () => {
	const files = readdirSync(EXAMPLES).filter((file) => file.endsWith('.json'));

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

	it.each(files)('%s', async (file) => {
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
