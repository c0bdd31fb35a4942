import type { IBinaryKeyData, IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** An output item with binary data, for operations that put out files. */
export class ItemWithBinary {
	constructor(
		readonly json: IDataObject,
		readonly binary: IBinaryKeyData,
	) {}
}

/**
 * One operation of a resource. Its `properties` carry no resource/operation display rules: the
 * node's description adds them. Implement `execute` (called once per input item) or, for
 * operations that batch many items into one request, `executeAll`.
 */
export interface Operation {
	value: string;
	name: string;
	/** Shown in the node picker and used by AI agents as the tool's action. */
	action: string;
	description: string;
	properties: INodeProperties[];
	/** Returns the JSON of the output item(s) for input item `itemIndex`. */
	execute?(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[] | ItemWithBinary>;
	/**
	 * Handles every input item at once. Must return items with `pairedItem` set and honour
	 * `continueOnFail()` per item itself.
	 */
	executeAll?(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}

export interface Resource {
	value: string;
	name: string;
	description: string;
	operations: Operation[];
	/**
	 * The Operation a saved workflow gets when it left Operation at its default (n8n does not store
	 * defaults). Fixed once released: otherwise the first operation by name, which an added operation could change.
	 */
	defaultOperation?: string;
}
