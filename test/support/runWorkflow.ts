import './env';
import { randomUUID } from 'node:crypto';
import { LoadOptionsContext, WorkflowExecute } from 'n8n-core';
import { executionHooks, harnessAdditionalData } from './additionalData';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	IHttpRequestOptions,
	IWorkflowDataProxyAdditionalKeys,
	IConnections,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
} from 'n8n-workflow';
import { ApplicationError, deepCopy, Workflow } from 'n8n-workflow';
import { HarnessCredentialsHelper, type StoredCredential } from './credentialsHelper';
import { credentialTypes, HarnessNodeTypes, PACKAGE } from './nodeTypes';

/** The parts of an n8n workflow export that an execution needs. */
export interface WorkflowDefinition {
	name?: string;
	nodes: INode[];
	connections: IConnections;
}

/** What came out of one execution. */
export class RunResult {
	constructor(readonly run: IRun) {}

	/** The error that stopped the execution, if any. */
	get error() {
		return this.run.data.resultData.error;
	}

	/** Items the node put out on output `outputIndex` (the first by default), in its last run. */
	output(nodeName: string, outputIndex = 0): INodeExecutionData[] {
		const runs = this.run.data.resultData.runData[nodeName];
		if (!runs?.length) throw new ApplicationError(`The node "${nodeName}" did not run`);
		const last = runs[runs.length - 1];
		if (last.error) throw last.error;
		return last.data?.main?.[outputIndex] ?? [];
	}

	/** The error of a node's last run, if it failed. */
	nodeError(nodeName: string) {
		const runs = this.run.data.resultData.runData[nodeName];
		return runs?.[runs.length - 1]?.error;
	}
}

/**
 * Runs workflow definitions through n8n-core's own engine (`WorkflowExecute`), with the node and
 * credential types given, and credentials held in memory.
 */
export class Harness {
	readonly nodeTypes: HarnessNodeTypes;

	readonly credentials: HarnessCredentialsHelper;

	/** n8n's own address as the nodes see it (resume links start with it); harnessAdditionalData's default when unset. */
	instanceUrl?: string;

	constructor(options: { nodes: INodeType[]; credentials: ICredentialType[] }) {
		this.nodeTypes = new HarnessNodeTypes(options.nodes);
		this.credentials = new HarnessCredentialsHelper(credentialTypes(options.credentials));
	}

	addCredential(credential: StoredCredential): void {
		this.credentials.add(credential);
	}

	private workflowOf(definition: WorkflowDefinition): Workflow {
		return new Workflow({
			id: randomUUID(),
			name: definition.name ?? 'harness',
			nodes: definition.nodes,
			connections: definition.connections,
			active: false,
			nodeTypes: this.nodeTypes,
			settings: { executionOrder: 'v1' },
		});
	}

	/**
	 * The context n8n gives a node's listSearch / loadOptions / resourceMapping methods while the
	 * user edits `nodeName` (its current parameters are those of the definition).
	 */
	loadOptionsContext(definition: WorkflowDefinition, nodeName: string): LoadOptionsContext {
		const workflow = this.workflowOf(definition);
		const node = workflow.getNode(nodeName);
		if (!node) throw new ApplicationError(`No node "${nodeName}" in the workflow`);
		const hooks = executionHooks('manual', '', {
			id: workflow.id,
			name: 'harness',
			active: false,
			nodes: definition.nodes,
			connections: definition.connections,
		});
		const data = harnessAdditionalData({ credentialsHelper: this.credentials, executionId: randomUUID(), hooks });
		data.currentNodeParameters = node.parameters as INodeParameters;
		return new LoadOptionsContext(workflow, node, data, 'parameters');
	}

	/**
	 * What n8n's "Test" button does for a credential type with a `test` request: resolve the request
	 * with the credential's values, authenticate it, send it. Returns the HTTP status.
	 */
	async testCredential(type: string, data: ICredentialDataDecryptedObject): Promise<number> {
		const test = this.credentials.types.get(type)?.test;
		if (!test) throw new ApplicationError(`The credential type ${type} has no test request`);
		const nodeName = 'Credential test';
		const workflow = this.workflowOf({
			nodes: [
				{
					id: 'test',
					name: nodeName,
					type: `${PACKAGE}.harnessItems`,
					typeVersion: 1,
					position: [0, 0],
					parameters: {},
				},
			],
			connections: {},
		});
		const additionalKeys = { $credentials: data } as unknown as IWorkflowDataProxyAdditionalKeys;
		const resolve = (value: string | undefined) =>
			String(workflow.expression.getParameterValue(value ?? '', null, 0, 0, nodeName, [], 'internal', additionalKeys));
		const options: IHttpRequestOptions = {
			url: `${resolve(test.request.baseURL)}${resolve(test.request.url)}`,
			method: test.request.method ?? 'GET',
			headers: {},
		};
		const authenticated = await this.credentials.authenticate(
			data,
			type,
			options,
			workflow,
			workflow.getNode(nodeName)!,
		);
		const response = await fetch(authenticated.url, {
			method: authenticated.method,
			headers: authenticated.headers as Record<string, string>,
		});
		return response.status;
	}

	/**
	 * What n8n's Retry of a failed execution does (n8n 2.41.1, ExecutionService.retry, then WorkflowRunner): a new
	 * execution in mode "retry" on a copy of the failed one's data, with its error dropped and the failed node's last
	 * run popped, going on from the node that failed (the engine left it on the execution stack).
	 */
	async retry(definition: WorkflowDefinition, failed: RunResult): Promise<RunResult> {
		const data = deepCopy(failed.run.data);
		const { lastNodeExecuted } = data.resultData;
		if (lastNodeExecuted) {
			delete data.resultData.error;
			const runs = data.resultData.runData?.[lastNodeExecuted];
			if (runs && runs.length > 0 && runs[runs.length - 1].error !== undefined) runs.pop();
		}
		const workflow = this.workflowOf(definition);
		const execute = new WorkflowExecute(this.additionalDataFor('retry', workflow, definition), 'retry', data);
		return new RunResult(await execute.processRunExecutionData(workflow));
	}

	/** Executes the workflow from `startNode` (default: its first node) and waits for the end. */
	async run(definition: WorkflowDefinition, startNode?: string): Promise<RunResult> {
		const workflow = this.workflowOf(definition);
		const start = workflow.getNode(startNode ?? definition.nodes[0].name);
		if (!start) throw new ApplicationError(`No node "${startNode}" in the workflow`);
		const execute = new WorkflowExecute(this.additionalDataFor('manual', workflow, definition), 'manual');
		return new RunResult(await execute.run({ workflow, startNode: start }));
	}

	/** What n8n hands the engine for a new execution of the workflow in `mode`: a fresh id, hooks and credentials. */
	private additionalDataFor(mode: 'manual' | 'retry', workflow: Workflow, definition: WorkflowDefinition) {
		const executionId = randomUUID();
		const hooks = executionHooks(mode, executionId, {
			id: workflow.id,
			name: workflow.name ?? 'harness',
			active: false,
			nodes: definition.nodes,
			connections: definition.connections,
		});
		return harnessAdditionalData({
			credentialsHelper: this.credentials,
			executionId,
			hooks,
			instanceUrl: this.instanceUrl,
		});
	}
}
