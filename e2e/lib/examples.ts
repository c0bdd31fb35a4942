/** The example workflows in examples/*.json, pointed at a given credential of our type. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { credentialType } from './communityPackage.ts';
import type { WorkflowDefinition } from './n8nApi.ts';
import { examplesDir } from './paths.ts';

export interface ExampleWorkflow {
	file: string;
	workflow: WorkflowDefinition;
}

/** Every example, with its nodes' credential of our type replaced by `credential`; sorted by file name. */
export function loadExamples(credential: { id: string; name: string }): ExampleWorkflow[] {
	if (!existsSync(examplesDir)) return [];
	return readdirSync(examplesDir)
		.filter((file) => file.endsWith('.json'))
		.sort()
		.map((file) => {
			const source = JSON.parse(readFileSync(path.join(examplesDir, file), 'utf8'));
			const nodes = (source.nodes as Array<{ credentials?: Record<string, unknown>; [field: string]: unknown }>).map(
				(node) =>
					node.credentials?.[credentialType]
						? { ...node, credentials: { ...node.credentials, [credentialType]: credential } }
						: node,
			);
			// The public API takes only these fields of a workflow.
			return {
				file,
				workflow: { name: source.name, nodes, connections: source.connections, settings: { executionOrder: 'v1' } },
			};
		});
}
