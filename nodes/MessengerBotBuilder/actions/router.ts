import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
// Loading the resources registers them.
import './resources';
import { registeredOperation } from './common/operationProperties';
import type { Operation } from './types';
import { ItemWithBinary } from './types';
import { runMemory } from './common/runMemory';
import { failedItem, withItemIndex } from './common/itemFailures';

function findOperation(this: IExecuteFunctions, resourceName: string, operationName: string): Operation {
	const operation = registeredOperation(resourceName, operationName);
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resourceName}" is not known`);
	}
	return operation;
}

/** Runs the selected operation: once per item, or once for all items when it batches. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as string;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operation = findOperation.call(this, resource, operationName);

	if (operation.executeAll) return [await operation.executeAll.call(this, items)];
	const execute = operation.execute;
	if (!execute) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operationName}" of "${resource}" has nothing to run`,
		);
	}

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
			// An earlier attempt's change may have taken effect: failed again, not sent again.
			const uncertain = memory?.uncertain(itemIndex);
			if (uncertain) throw uncertain;
			const result = await execute.call(this, itemIndex);
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
			// Only a node that throws is run again by Retry On Fail.
			memory?.failed(itemIndex, error);
			throw withItemIndex(this.getNode(), error, itemIndex);
		}
	}
	memory?.finish();
	return [output];
}
