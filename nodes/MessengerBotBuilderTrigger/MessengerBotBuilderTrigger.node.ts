import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	INodeParameters,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { getBots } from '../MessengerBotBuilder/methods/loadOptions';
import { N8N_API_CREDENTIAL } from './claimLog';
import { REPEAT_CHECK_CLAIM_LOG, RESPOND_WHEN_FINISHED, triggerProperties } from './description';
import { outputsExpression } from './events';
import { emitEvents } from './emit';
import { checkExists, create, remove } from './lifecycle';
import { receiveDelivery } from './receive';

/** n8n-workflow's key for a webhook description's native resolvers (`webhook-description-fields.js`). */
const WEBHOOK_RESOLVERS = Symbol.for('n8n.webhookDescriptionResolvers');

/** A webhook description field that follows "Answer the Service": its expression and the same rule in code. */
function byAnswerTime(whenFinished: string, whenVerified: string) {
	const template = `={{$parameter["options"]["respondWhen"] === "${RESPOND_WHEN_FINISHED}" ? "${whenFinished}" : "${whenVerified}"}}`;
	const resolve = (parameters: INodeParameters) =>
		(parameters.options as IDataObject | undefined)?.respondWhen === RESPOND_WHEN_FINISHED
			? whenFinished
			: whenVerified;
	return { template, resolve };
}

/**
 * "When Verified": n8n answers at once with what webhook() returns as webhookResponse (an empty responseData makes
 * n8n's extractWebhookOnReceivedResponse use it; left unset, n8n 2.x answered the literal text "firstEntryJson").
 * "When the Workflow Has Finished": n8n answers once the execution ends, 200 without a body, or 500 when it failed
 * (n8n's lastNode mode). n8n 2.41.1 reads a field with a resolver from the node's parameters without the expression
 * engine (n8n-workflow `resolveWebhookDescriptionField`), so the choice costs no expression isolate per delivery;
 * older n8n evaluate the expression.
 */
const responseMode = byAnswerTime('lastNode', 'onReceived');
const responseData = byAnswerTime('noData', '');
const deliveryWebhook = {
	name: 'default',
	httpMethod: 'POST',
	path: 'webhook',
	responseMode: responseMode.template,
	responseData: responseData.template,
	[WEBHOOK_RESOLVERS]: { responseMode, responseData },
} as IWebhookDescription;

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
		webhooks: [deliveryWebhook],
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
