import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_RATE_LIMIT_WAIT_SECONDS } from '../transport/request';
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
		description: 'The kind of record to work with',
	};
}

function operationProperty(resource: Resource): INodeProperties {
	const options = [...resource.operations].sort(byName);
	const defaultOperation = resource.defaultOperation ?? options[0].value;
	return {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.value] } },
		options: options.map(({ name, value, action, description }) => ({ name, value, action, description })),
		default: defaultOperation,
		description: `What to do with the ${resource.name.toLowerCase()}`,
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

/** How every request of the node behaves; shown under every operation. */
const requestOptionsProperty: INodeProperties = {
	displayName: 'Request Options',
	name: 'requestOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	description: "How the node's requests to the service behave",
	options: [
		{
			displayName: 'Wait on Rate Limit (Seconds)',
			name: 'rateLimitWait',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: DEFAULT_RATE_LIMIT_WAIT_SECONDS,
			description:
				'How long one request may wait in total while the service answers "too many requests" (429) before its item fails. A refused request did nothing, so waiting is always safe.',
		},
	],
};

/** Every parameter of the node: Resource, an Operation per resource, each operation's own fields, and request options. */
export const nodeProperties: INodeProperties[] = [
	resourceProperty(),
	...resources.map(operationProperty),
	...resources.flatMap((resource) => resource.operations.flatMap((operation) => scoped(resource, operation))),
	requestOptionsProperty,
];
