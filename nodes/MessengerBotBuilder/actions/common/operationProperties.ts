import type { INodeProperties } from 'n8n-workflow';
import type { Operation, Resource } from '../types';

/**
 * The node's resources, as `resources.ts` registers them when it loads. Helpers below the resources (error labels)
 * read an operation's properties from here instead of importing `resources.ts`, which imports every operation.
 */
let registered: readonly Resource[] = [];

export function registerResources(resources: readonly Resource[]): void {
	registered = resources;
}

/** `operation` of `resource`, or undefined when no such operation is registered. */
export function registeredOperation(resource: string, operation: string): Operation | undefined {
	return registered
		.find((candidate) => candidate.value === resource)
		?.operations.find((candidate) => candidate.value === operation);
}

/** The properties of `operation` of `resource`, or undefined when no such operation is registered. */
export function operationProperties(resource: string, operation: string): INodeProperties[] | undefined {
	return registeredOperation(resource, operation)?.properties;
}
