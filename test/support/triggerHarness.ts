import './env';
import { Container } from '@n8n/di';
import { HookContext, WebhookContext, WorkflowExecute } from 'n8n-core';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import type { Request, Response } from 'express';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	IRun,
	IWebhookData,
	WorkflowActivateMode,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { ApplicationError, createRunExecutionData, NodeHelpers, Workflow } from 'n8n-workflow';
import { MessengerBotBuilderApi } from '../../credentials/MessengerBotBuilderApi.credentials';
import { MessengerBotBuilderTrigger } from '../../nodes/MessengerBotBuilderTrigger/MessengerBotBuilderTrigger.node';
import { HarnessCredentialsHelper } from './credentialsHelper';
import { credentialTypes, HarnessNodeTypes, PACKAGE } from './nodeTypes';
import { executionHooks, harnessAdditionalData, type AdditionalDataOptions, type WebhookBases } from './additionalData';
import { processedDataStore } from './processedData';

export const TRIGGER_NAME = 'Messenger Bot Builder Trigger';

/** Production (active workflow) or test ("listen for test event") registration. */
export type WebhookMode = 'production' | 'test';

export interface TriggerHarnessOptions extends WebhookBases {
	/** The credential's base URL (with /api) and API key. */
	apiBaseUrl: string;
	apiKey: string;
	/** The node's parameters; defaults are filled in as n8n does. */
	parameters?: INodeParameters;
	workflowName?: string;
	/**
	 * The node type to drive. Another n8n process is modelled by a copy of the node's modules loaded apart
	 * (`jest.isolateModules`): its own in-process memory, the same workflow and the same shared store.
	 */
	nodeType?: MessengerBotBuilderTrigger;
	/** Shares the saved static data of another harness (the same workflow in another process). */
	sameWorkflowAs?: TriggerHarness;
}

/** One execution a delivery started: the items the trigger put out. */
export type StartedExecution = INodeExecutionData[];

/**
 * One Messenger Bot Builder Trigger in one workflow, driven through n8n-core's own contexts: the
 * hook lifecycle through `HookContext`, deliveries through `WebhookContext`.
 *
 * Queue mode is the model: the workflow's static data exists between calls only as a JSON
 * snapshot (n8n keeps it in its database), each call loads it into a fresh `Workflow`, and the
 * snapshot is replaced after the call, except after a delivery that started an execution (n8n
 * 2.41 drops those changes; see `deliver`). Nothing else carries over from one call to the next.
 */
export class TriggerHarness {
	readonly nodeType: MessengerBotBuilderTrigger;

	/** The trigger's first output in each execution that put an event out (a repeat's execution puts out none). */
	readonly started: StartedExecution[] = [];

	/** Every output of each execution that put an event out (`started` holds the first output only). */
	readonly startedOutputs: StartedExecution[][] = [];

	/** Every execution a delivery started, with what it ran, including those that found the event a repeat. */
	readonly executions: IRun[] = [];

	private readonly nodeTypes: HarnessNodeTypes;

	private readonly credentials = new HarnessCredentialsHelper(credentialTypes([new MessengerBotBuilderApi()]));

	private readonly node: INode;

	/** What n8n keeps in its database for the workflow, shared by the harnesses of one workflow. */
	private readonly stored: { workflowId: string; staticData: string };

	private executionCounter = 0;

	constructor(private readonly options: TriggerHarnessOptions) {
		this.nodeType = options.nodeType ?? new MessengerBotBuilderTrigger();
		this.nodeTypes = new HarnessNodeTypes([this.nodeType]);
		this.stored = options.sameWorkflowAs?.stored ?? {
			workflowId: `wf-trigger-${Math.random().toString(36).slice(2)}`,
			staticData: '{}',
		};
		this.credentials.add({
			id: 'main',
			name: 'main',
			type: 'messengerBotBuilderApi',
			data: { apiKey: options.apiKey, baseUrl: options.apiBaseUrl },
		});
		const parameters = NodeHelpers.getNodeParameters(
			this.nodeType.description.properties,
			options.parameters ?? {},
			true,
			false,
			{ typeVersion: 1.1 },
			this.nodeType.description,
		);
		this.node = {
			id: 'trigger',
			name: TRIGGER_NAME,
			type: `${PACKAGE}.${this.nodeType.description.name}`,
			typeVersion: 1.1,
			position: [0, 0],
			webhookId: '6f1c2f7e-4b8a-4d55-9a55-3c0f9d1e2a7b',
			parameters: parameters ?? {},
			credentials: { messengerBotBuilderApi: { id: 'main', name: 'main' } },
		};
	}

	private additionalData(
		http?: AdditionalDataOptions['http'],
		execution?: Pick<AdditionalDataOptions, 'executionId' | 'hooks'>,
	) {
		const { webhookBaseUrl, webhookTestBaseUrl } = this.options;
		return harnessAdditionalData({
			credentialsHelper: this.credentials,
			webhookBases: { webhookBaseUrl, webhookTestBaseUrl },
			http,
			...execution,
		});
	}

	/** The node's static data as n8n would have stored it. */
	get nodeStaticData(): IDataObject {
		const all = JSON.parse(this.stored.staticData) as IDataObject;
		return (all[`node:${TRIGGER_NAME}`] as IDataObject | undefined) ?? {};
	}

	/**
	 * Ends this harness's "process" as n8n ends one: n8n-core's SSHClientsManager (a singleton of the n8n-core copy this
	 * module was loaded with) adds a process 'exit' listener when made and removes it on shutdown (n8n-core 2.41.1,
	 * dist/execution-engine/ssh-clients-manager.js). A test file that starts many copies apart (`jest.isolateModules`)
	 * added one listener each: Node warned at the eleventh (MaxListenersExceededWarning).
	 */
	shutdown(): void {
		Container.get(SSHClientsManager).onShutdown();
	}

	/** Replaces the stored node static data (to model what another process left). */
	setNodeStaticData(data: IDataObject): void {
		this.stored.staticData = JSON.stringify({ [`node:${TRIGGER_NAME}`]: data });
	}

	private loadWorkflow(): Workflow {
		return new Workflow({
			id: this.stored.workflowId,
			name: this.options.workflowName ?? 'Trigger test',
			nodes: [this.node],
			connections: {},
			active: true,
			nodeTypes: this.nodeTypes,
			staticData: JSON.parse(this.stored.staticData) as IDataObject,
			settings: { executionOrder: 'v1' },
		});
	}

	private save(workflow: Workflow): void {
		this.stored.staticData = JSON.stringify(workflow.staticData);
	}

	private webhookData(workflow: Workflow, mode: WebhookMode): IWebhookData {
		const description = this.nodeType.description.webhooks![0];
		return {
			httpMethod: 'POST',
			node: this.node.name,
			path: String(description.path),
			webhookDescription: description,
			workflowId: workflow.id,
			workflowExecuteAdditionalData: this.additionalData(),
			webhookId: this.node.webhookId,
			isTest: mode === 'test',
		};
	}

	/** Runs one `webhookMethods.default` method as n8n does when it (de)registers the webhook. */
	async lifecycle(method: 'checkExists' | 'create' | 'delete', mode: WebhookMode = 'production'): Promise<boolean> {
		const workflow = this.loadWorkflow();
		const executeMode: WorkflowExecuteMode = mode === 'test' ? 'manual' : 'trigger';
		const activation: WorkflowActivateMode = mode === 'test' ? 'manual' : 'activate';
		const context = new HookContext(
			workflow,
			this.node,
			this.additionalData(),
			executeMode,
			activation,
			this.webhookData(workflow, mode),
		);
		try {
			return await this.nodeType.webhookMethods.default[method].call(context);
		} finally {
			this.save(workflow);
		}
	}

	/** Activation: n8n asks `checkExists` and calls `create` only when it answers false. */
	async activate(mode: WebhookMode = 'production'): Promise<void> {
		if (await this.lifecycle('checkExists', mode)) return;
		if (!(await this.lifecycle('create', mode))) throw new ApplicationError('create answered false');
	}

	/**
	 * Hands one HTTP request to the node's `webhook()` in a `WebhookContext`, then answers it the way
	 * n8n does for `responseMode: 'onReceived'`: the node's own answer if it sent one, otherwise
	 * 200 at once, and the workflow starts when the node returned items.
	 */
	async deliver(request: Request, response: Response, mode: WebhookMode = 'production'): Promise<void> {
		const workflow = this.loadWorkflow();
		const additionalData = this.additionalData({ httpRequest: request, httpResponse: response });
		const context = new WebhookContext(
			workflow,
			this.node,
			additionalData,
			mode === 'test' ? 'manual' : 'webhook',
			this.webhookData(workflow, mode),
			[],
			null,
		);
		let result;
		try {
			result = await this.nodeType.webhook.call(context);
		} catch (error) {
			this.save(workflow);
			if (!response.headersSent) response.status(500).json({ message: (error as Error).message });
			return;
		}
		// As in n8n 2.x: a call that starts an execution loses its static-data changes (n8n wraps the
		// same static data again for the run, clearing the "changed" flag its save after the call reads).
		if (!result.workflowData) this.save(workflow);
		if (result.workflowData && this.startFails) {
			// n8n creates the execution only after webhook() returned (webhook-helpers.js executeWebhook → WorkflowRunner.run);
			// when that fails (its database or Redis away for a moment), it answers 500 and nothing runs.
			if (!response.headersSent)
				response.status(500).json({ code: 0, message: 'There was a problem executing the workflow' });
			return;
		}
		if (!result.noWebhookResponse && !response.headersSent) {
			response
				.status(200)
				.json(
					result.webhookResponse ?? { message: result.workflowData ? 'Workflow was started' : 'Webhook call received' },
				);
		}
		if (result.workflowData) {
			// n8n answers first (responseMode onReceived) and runs the execution after; `settled()` waits for it.
			const running = this.runExecution(result.workflowData, mode).catch(
				(error: Error) => void this.failures.push(error),
			);
			this.running.add(running);
			void running.finally(() => this.running.delete(running));
		}
	}

	private readonly running = new Set<Promise<void>>();

	/** While true, n8n fails to create the execution a delivery would start (see `deliver`). */
	startFails = false;

	/** Errors that ended executions (the trigger's execute() failed); `settled()` throws the first. */
	readonly failures: Error[] = [];

	/** Waits until every execution that deliveries started so far has ended. */
	async settled(): Promise<void> {
		while (this.running.size > 0) await Promise.all([...this.running]);
		if (this.failures.length > 0) throw this.failures[0];
	}

	/**
	 * The execution a delivery starts, run by n8n-core's engine as n8n runs it: the trigger is the start node and what
	 * its `webhook()` returned is its input (n8n `prepareExecutionData` in webhook-helpers, then
	 * `WorkflowExecute.processRunExecutionData`), so the trigger's `execute()` runs with n8n-core's deduplication
	 * helpers over the shared store (test/support/processedData.ts).
	 */
	private async runExecution(workflowData: INodeExecutionData[][], mode: WebhookMode): Promise<void> {
		processedDataStore();
		const workflow = this.loadWorkflow();
		const executionMode: WorkflowExecuteMode = mode === 'test' ? 'manual' : 'webhook';
		const executionId = `${++this.executionCounter}-${Math.random().toString(36).slice(2)}`;
		const hooks = executionHooks(executionMode, executionId, {
			id: workflow.id,
			name: workflow.name ?? 'Trigger test',
			active: true,
			nodes: [this.node],
			connections: {},
		});
		const runExecutionData = createRunExecutionData({
			executionData: { nodeExecutionStack: [{ node: this.node, data: { main: workflowData }, source: null }] },
		});
		const run = await new WorkflowExecute(
			this.additionalData(undefined, { executionId, hooks }),
			executionMode,
			runExecutionData,
		).processRunExecutionData(workflow);
		this.executions.push(run);
		const task = run.data.resultData.runData[TRIGGER_NAME]?.[0];
		if (run.data.resultData.error || task?.error) throw run.data.resultData.error ?? task?.error;
		// n8n pairs each output item with the one input item (pairedItem); the tests look at what the items carry.
		const outputs = (task?.data?.main ?? []).map((output) =>
			(output ?? []).map((paired) => {
				const item = { ...paired };
				delete item.pairedItem;
				return item;
			}),
		);
		if (outputs.some((output) => output.length > 0)) {
			this.started.push(outputs[0]);
			this.startedOutputs.push(outputs);
		}
	}
}

/**
 * The harness class from a copy of its modules loaded apart: what another n8n process (main, webhook, worker) holds,
 * with its own in-process memory. `load` is the calling test file's own `jest.requireActual` of this module: the same
 * call made from this module loads the copy many times slower (a test file's run time showed it).
 */
export function loadTriggerHarnessApart(load: () => { TriggerHarness: typeof TriggerHarness }): typeof TriggerHarness {
	let loaded: typeof TriggerHarness | undefined;
	jest.isolateModules(() => {
		loaded = load().TriggerHarness;
	});
	if (!loaded) throw new ApplicationError('jest.isolateModules did not load the trigger harness');
	return loaded;
}
