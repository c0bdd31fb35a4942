import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { sendAndWaitWebhook, sendAndWaitWebhooks } from './actions/message/sendAndWait/webhook';
import { KEPT_ANSWER_RULES } from './actions/message/sendAndWait/decision';
import { N8N_API_CREDENTIAL } from '../shared/n8nDataTable';
import { router } from './actions/router';
import { nodeProperties } from './actions/description';
import { listSearch, loadOptions, resourceMapping } from './methods';

export class MessengerBotBuilder implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Bot Builder',
		name: 'messengerBotBuilder',
		icon: { light: 'file:messengerBotBuilder.svg', dark: 'file:messengerBotBuilder.dark.svg' },
		group: ['transform'],
		// One version before the first release. Version 1 is safe for the Send and Wait resume webhook: n8n's
		// parseRequestBody (webhooks/webhook-helpers.js) reads `options.binaryData` of a version-1 node that a webhook
		// resumes, which this node does not have (it comes out undefined), and parses every body, which the answer
		// pages' form posts need anyway.
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Manage chatbots built with the messenger-bot builder: subscribers, messages, chains, broadcasts, lists, catalogs, CRM, statistics, webhooks and API keys',
		defaults: { name: 'Messenger Bot Builder' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [
			{ name: 'messengerBotBuilderApi', required: true },
			// Send and Wait keeps the answers of a question that several answers decide in an n8n data table.
			{
				name: N8N_API_CREDENTIAL,
				required: true,
				displayOptions: { show: { decideBy: KEPT_ANSWER_RULES } },
			},
		],
		webhooks: sendAndWaitWebhooks,
		properties: nodeProperties,
	};

	methods = { listSearch, loadOptions, resourceMapping };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await sendAndWaitWebhook.call(this);
	}
}
