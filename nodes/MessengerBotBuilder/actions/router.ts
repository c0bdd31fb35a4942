import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { resources } from './resources';
import type { Operation } from './types';
import { ItemWithBinary } from './types';
import { runMemory } from './common/runMemory';

function findOperation(this: IExecuteFunctions, resourceName: string, operationName: string): Operation {
	const operation = resources
		.find((resource) => resource.value === resourceName)
		?.operations.find((candidate) => candidate.value === operationName);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resourceName}" is not known`);
	}
	return operation;
}

/**
 * What continueOnFail puts out for a failed item: `{ error, details }`, the message and, for API
 * errors, the service's code, status, scope and parameter, whether a change may have taken effect,
 * and how long 429s were waited out. Only the keys `error` and `details`,
 * because n8n routes an item to the error output ("On Error: Continue (using error output)") only
 * when its JSON holds no other keys.
 */
export function failureJson(error: Error & { context?: IDataObject; description?: string | null }): IDataObject {
	const details: IDataObject = {};
	// mayHaveTakenEffect and waitedSeconds let a workflow branch on an uncertain change or a long rate-limit wait.
	for (const field of ['code', 'status', 'scope', 'param', 'mayHaveTakenEffect', 'waitedSeconds'] as const) {
		if (error.context?.[field] !== undefined) details[field] = error.context[field];
	}
	if (error.description) details.description = error.description;
	return { error: error.message, details };
}

/** The error to throw for a failed item: API errors stay NodeApiErrors; everything points at the item. */
export function withItemIndex(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	const failure =
		error instanceof NodeApiError ? error : new NodeOperationError(node, error as Error, { itemIndex });
	failure.context.itemIndex ??= itemIndex;
	return failure;
}

/** The output item of a failed input item under continueOnFail. */
export function failedItem(error: unknown, itemIndex: number): INodeExecutionData {
	return { json: failureJson(error as Error), pairedItem: { item: itemIndex } };
}

/** Runs the selected operation: once per item, or once for all items when it batches. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = findOperation.call(this, resource, operationName);

	if (operation.executeAll) return [await operation.executeAll.call(this, items)];

	// Items that went through before an earlier attempt of this run failed are not sent again (Retry On Fail).
	const memory = runMemory.call(this);
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const done = memory?.done(itemIndex);
		if (done) {
			output.push(...done);
			continue;
		}
		try {
			const result = await operation.execute!.call(this, itemIndex);
			const records = Array.isArray(result) ? result : [result];
			const outputs = records.map((record): INodeExecutionData => {
				const item = record instanceof ItemWithBinary ? { json: record.json, binary: record.binary } : { json: record };
				return { ...item, pairedItem: { item: itemIndex } };
			});
			memory?.record(itemIndex, outputs);
			output.push(...outputs);
		} catch (error) {
			if (this.continueOnFail()) {
				output.push(failedItem(error, itemIndex));
				continue;
			}
			throw withItemIndex(this.getNode(), error, itemIndex);
		}
	}
	memory?.finish();
	return [output];
}
