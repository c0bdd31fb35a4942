import type { INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';
import { resources } from './resources';
import type { Operation, Resource } from './types';

const byName = <T extends { name: string }>(a: T, b: T) => a.name.localeCompare(b.name);

function resourceProperty(): INodeProperties {
	return {
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [...resources].sort(byName).map(({ name, value, description }) => ({ name, value, description })),
		default: 'subscriber',
	};
}

function operationProperty(resource: Resource): INodeProperties {
	const options = [...resource.operations].sort(byName);
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.value] } },
		options: options.map(({ name, value, action, description }) => ({ name, value, action, description })),
		default: options[0].value,
	};
}

/** An operation's own properties, shown only when its resource and operation are selected. */
function scoped(resource: Resource, operation: Operation): INodeProperties[] {
	return operation.properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: {
				...property.displayOptions?.show,
				resource: [resource.value],
				operation: [operation.value],
			},
		},
	}));
}

export const versionDescription: INodeTypeDescription = {
	displayName: 'Messenger Bot Builder',
	name: 'messengerBotBuilder',
	icon: { light: 'file:messengerBotBuilder.svg', dark: 'file:messengerBotBuilder.dark.svg' },
	group: ['transform'],
	version: 1,
	subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
	description:
		'Manage chatbots built with the messenger-bot builder: subscribers, messages, chains, broadcasts, lists, catalogs, CRM, statistics, hooks and API keys',
	defaults: { name: 'Messenger Bot Builder' },
	usableAsTool: true,
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'messengerBotBuilderApi', required: true }],
	properties: [
		resourceProperty(),
		...resources.map(operationProperty),
		...resources.flatMap((resource) => resource.operations.flatMap((operation) => scoped(resource, operation))),
	],
};
