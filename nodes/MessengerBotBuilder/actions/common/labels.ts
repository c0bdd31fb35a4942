import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { operationProperties } from './operationProperties';

/** The property called `name` among `properties`, looking inside collections and fixed collections too. */
function findProperty(properties: INodeProperties[], name: string): INodeProperties | undefined {
	for (const property of properties) {
		if (property.name === name) return property;
		for (const option of (property.options ?? []) as Array<Partial<INodeProperties> & { values?: INodeProperties[] }>) {
			const nested = option.values
				? findProperty(option.values, name)
				: 'type' in option
					? findProperty([option as INodeProperties], name)
					: undefined;
			if (nested) return nested;
		}
	}
	return undefined;
}

/**
 * The name the user sees for parameter `name` (e.g. "List" for `listId`) in the operation being run,
 * for error messages; a dotted path names its last field (`options.limitWaitTime.values` → "Limit Wait Time").
 */
export function fieldLabel(this: IExecuteFunctions, name: string): string {
	const field =
		name
			.split('.')
			.filter((part) => part !== 'values')
			.pop() ?? name;
	try {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const properties = operationProperties(resource, operation);
		return (properties && findProperty(properties, field)?.displayName) || field;
	} catch {
		return field;
	}
}
