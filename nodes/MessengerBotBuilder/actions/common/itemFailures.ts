import type { IDataObject, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

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
	const failure = error instanceof NodeApiError ? error : new NodeOperationError(node, error as Error, { itemIndex });
	failure.context.itemIndex ??= itemIndex;
	return failure;
}

/** The output item of a failed input item under continueOnFail. */
export function failedItem(error: unknown, itemIndex: number): INodeExecutionData {
	return { json: failureJson(error as Error), pairedItem: { item: itemIndex } };
}
