import type {
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { getBots } from '../MessengerBotBuilder/methods/loadOptions';
import { N8N_API_CREDENTIAL } from './claimLog';
import { REPEAT_CHECK_CLAIM_LOG, triggerProperties } from './description';
import { outputsExpression } from './events';
import { emitEvents } from './emit';
import { checkExists, create, remove } from './lifecycle';
import { receiveDelivery } from './receive';

export class MessengerBotBuilderTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messenger Bot Builder Trigger',
		name: 'messengerBotBuilderTrigger',
		icon: {
			light: 'file:../MessengerBotBuilder/messengerBotBuilder.svg',
			dark: 'file:../MessengerBotBuilder/messengerBotBuilder.dark.svg',
		},
		group: ['trigger'],
		// Not 1: n8n 2.41.1 evaluates an expression for every webhook call of a start node at version 1 exactly
		// (webhook-helpers.js parseRequestBody reads the Webhook node v1's `options.binaryData`), which builds an
		// expression isolate per delivery and makes it most of a webhook process's time per delivery.
		version: 1.1,
		subtitle: '={{$parameter["events"].join(", ")}}',
		// n8n's node creator shows the action node and this trigger as one entry with the TRIGGER's
		// description above the actions and the triggers, so the text speaks for both nodes.
		description:
			'Manage chatbots built with the messenger-bot builder, and start workflows on their new subscribers, CRM stage changes and payments',
		defaults: { name: 'Messenger Bot Builder Trigger' },
		inputs: [],
		outputs: outputsExpression,
		credentials: [
			{ name: 'messengerBotBuilderApi', required: true },
			{
				name: N8N_API_CREDENTIAL,
				required: true,
				displayOptions: { show: { repeatCheck: [REPEAT_CHECK_CLAIM_LOG] } },
			},
		],
		// An empty responseData makes n8n answer with what webhook() returns as webhookResponse (n8n
		// extractWebhookOnReceivedResponse); left unset, n8n 2.x answered the literal text "firstEntryJson".
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', responseData: '', path: 'webhook' }],
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

	/**
	 * Runs first in the execution a delivery started, with the event webhook() verified as its input (n8n-core
	 * WorkflowExecute.runNode runs a node's execute() before any webhook pass-through): the repeat check in n8n's shared
	 * store, then the output.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await emitEvents.call(this);
	}
}
