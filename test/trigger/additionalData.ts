import { ExternalSecretsProxy } from 'n8n-core';
import type { IWorkflowExecuteAdditionalData } from 'n8n-workflow';
import { ApplicationError } from 'n8n-workflow';
import type { HarnessCredentialsHelper } from '../harness/credentialsHelper';

/** Where n8n would say its webhooks live: the production and the test ("listen for test event") base. */
export interface WebhookBases {
	webhookBaseUrl: string;
	webhookTestBaseUrl: string;
}

/**
 * The `additionalData` n8n-core's hook and webhook contexts read: credentials, webhook base URLs and,
 * for a delivery, the HTTP request and response. Written for the trigger; the workflow harness keeps
 * its own for executions.
 */
export function triggerAdditionalData(
	credentialsHelper: HarnessCredentialsHelper,
	bases: WebhookBases,
	http?: Pick<IWorkflowExecuteAdditionalData, 'httpRequest' | 'httpResponse'>,
): IWorkflowExecuteAdditionalData {
	const unsupported = (what: string) => async () => {
		throw new ApplicationError(`${what} is not available to the trigger harness`);
	};
	return {
		credentialsHelper,
		externalSecretsProxy: new ExternalSecretsProxy(),
		executeWorkflow: unsupported('Executing a sub-workflow'),
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		startRunnerTask: unsupported('The task runner'),
		logAiEvent: () => {},
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formBaseUrl: 'http://127.0.0.1/form',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		formTestBaseUrl: 'http://127.0.0.1/form-test',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		mcpBaseUrl: 'http://127.0.0.1/mcp',
		mcpTestBaseUrl: 'http://127.0.0.1/mcp-test',
		...bases,
		...http,
	} as IWorkflowExecuteAdditionalData;
}
