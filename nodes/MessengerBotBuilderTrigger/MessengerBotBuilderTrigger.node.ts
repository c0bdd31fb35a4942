import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { getBots } from '../MessengerBotBuilder/methods/loadOptions';
import { triggerProperties } from './description';
import { outputsExpression } from './events';
import { checkExists, create, remove } from './lifecycle';
import { receiveDelivery } from './receive';

export class MessengerBotBuilderTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Bot Builder Trigger',
		name: 'messengerBotBuilderTrigger',
		icon: { light: 'file:../MessengerBotBuilder/messengerBotBuilder.svg', dark: 'file:../MessengerBotBuilder/messengerBotBuilder.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		// n8n's node creator shows the action node and this trigger as one entry with the TRIGGER's
		// description above the actions and the triggers, so the text speaks for both nodes.
		description:
			'Manage chatbots built with the messenger-bot builder, and start workflows on their new subscribers, CRM stage changes and payments',
		defaults: { name: 'Messenger Bot Builder Trigger' },
		inputs: [],
		outputs: outputsExpression,
		credentials: [{ name: 'messengerBotBuilderApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: triggerProperties,
	};

	methods = {
		loadOptions: {
			getBots,
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				return await checkExists.call(this);
			},
			async create(this: IHookFunctions): Promise<boolean> {
				return await create.call(this);
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return await remove.call(this);
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await receiveDelivery.call(this);
	}
}
