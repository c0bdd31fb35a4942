import { ExecutionLifecycleHooks, ExternalSecretsProxy } from 'n8n-core';
import type { IConnections, INode, IWorkflowExecuteAdditionalData, WorkflowExecuteMode } from 'n8n-workflow';
import { ApplicationError } from 'n8n-workflow';
import type { HarnessCredentialsHelper } from './credentialsHelper';

/** Where n8n would say its webhooks live: the production and the test ("listen for test event") base. */
export interface WebhookBases {
	webhookBaseUrl: string;
	webhookTestBaseUrl: string;
}

export interface AdditionalDataOptions {
	credentialsHelper: HarnessCredentialsHelper;
	executionId?: string;
	hooks?: ExecutionLifecycleHooks;
	/** Absolute base of the pretend n8n instance. */
	instanceUrl?: string;
	/** Overrides the webhook bases derived from `instanceUrl` (the trigger's tests serve them). */
	webhookBases?: WebhookBases;
	/** For a webhook call: the HTTP request and response n8n hands to the node. */
	http?: Pick<IWorkflowExecuteAdditionalData, 'httpRequest' | 'httpResponse'>;
}

/**
 * The `additionalData` n8n-core's execution, hook and webhook contexts read: the credentials helper,
 * absolute instance URLs, and nothing of n8n's server (sub-workflows and task runners are refused).
 */
export function harnessAdditionalData(options: AdditionalDataOptions): IWorkflowExecuteAdditionalData {
	const base = options.instanceUrl ?? 'http://127.0.0.1:5678';
	const unsupported = (what: string) => async () => {
		throw new ApplicationError(`${what} is not available in the harness`);
	};
	return {
		credentialsHelper: options.credentialsHelper,
		externalSecretsProxy: new ExternalSecretsProxy(),
		executionId: options.executionId,
		hooks: options.hooks,
		executeWorkflow: unsupported('Executing a sub-workflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: unsupported('The task runner'),
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: `${base}/rest`,
		instanceBaseUrl: `${base}/`,
		formBaseUrl: `${base}/form`,
		formWaitingBaseUrl: `${base}/form-waiting`,
		formTestBaseUrl: `${base}/form-test`,
		webhookBaseUrl: `${base}/webhook`,
		webhookWaitingBaseUrl: `${base}/webhook-waiting`,
		webhookTestBaseUrl: `${base}/webhook-test`,
		mcpBaseUrl: `${base}/mcp`,
		mcpTestBaseUrl: `${base}/mcp-test`,
		...options.webhookBases,
		...options.http,
	} as IWorkflowExecuteAdditionalData;
}

/** The lifecycle hooks n8n-core's engine wants for one execution of a workflow (the harness keeps no history). */
export function executionHooks(
	mode: WorkflowExecuteMode,
	executionId: string,
	workflow: { id: string; name: string; active: boolean; nodes: INode[]; connections: IConnections },
): ExecutionLifecycleHooks {
	return new ExecutionLifecycleHooks(mode, executionId, {
		...workflow,
		activeVersionId: null,
		isArchived: false,
		createdAt: new Date(),
		updatedAt: new Date(),
	});
}
