import type {
	IHookFunctions,
	ILoadOptionsFunctions,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { searchBots } from '../MessengerBotBuilder/methods/listSearch';
import { triggerProperties } from './description';
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
		description: 'Starts the workflow when a messenger-bot builder reports a new subscriber, a stage change or a payment',
		defaults: { name: 'Messenger Bot Builder Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messengerBotBuilderApi', required: true }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: triggerProperties,
	};

	methods = {
		loadOptions: {
			async getBots(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const { results } = await searchBots.call(this);
				return results.map(({ name, value }) => ({ name, value }));
			},
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
