/* eslint-disable n8n-nodes-base/node-param-default-missing -- each Operation parameter defaults to its first operation, computed */
import type { INodeProperties } from 'n8n-workflow';
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

/** Every parameter of the node: Resource, an Operation per resource, and each operation's own fields. */
export const nodeProperties: INodeProperties[] = [
	resourceProperty(),
	...resources.map(operationProperty),
	...resources.flatMap((resource) => resource.operations.flatMap((operation) => scoped(resource, operation))),
];
