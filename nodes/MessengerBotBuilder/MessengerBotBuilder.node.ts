import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { sendAndWaitWebhook, sendAndWaitWebhooks } from './actions/message/sendAndWaitWebhook';
import { router } from './actions/router';
import { nodeProperties } from './actions/versionDescription';
import { listSearch, loadOptions, resourceMapping } from './methods';

export class MessengerBotBuilder implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Bot Builder',
		name: 'messengerBotBuilder',
		icon: { light: 'file:messengerBotBuilder.svg', dark: 'file:messengerBotBuilder.dark.svg' },
		group: ['transform'],
		// Version 2: output modes default to Simplified, deletes put out { deleted: true }. Version 3: Send
		// and Wait for Response says who answered and when. Version 4: Send and Wait names the subscriber it asked and
		// that the answer came through the question's link (a bearer secret), not who answered (see CHANGELOG).
		version: [1, 2, 3, 4],
		defaultVersion: 4,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description:
			'Manage chatbots built with the messenger-bot builder: subscribers, messages, chains, broadcasts, lists, catalogs, CRM, statistics, webhooks and API keys',
		defaults: { name: 'Messenger Bot Builder' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messengerBotBuilderApi', required: true }],
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
