import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { locatorValue } from './params';

/*
 * Where the service reads an empty or missing value as "all" (every subscriber, every chain, every
 * bot, every row), "all" is an explicit choice in the node and an empty value fails its item.
 */

/**
 * The error for a value that came out empty where the service reads empty as "all" (every
 * subscriber, every chain, every bot): nothing is sent, and the field is named as the user sees it.
 * `widening.instead` says how to ask for "all" explicitly.
 */
export function emptyWouldWiden(
	this: IExecuteFunctions,
	field: string,
	widening: { all: string; instead: string },
	itemIndex: number,
): NodeOperationError {
	return new NodeOperationError(this.getNode(), `The field "${field}" is empty: nothing was sent, because the service reads an empty ${field} as ${widening.all}`, {
		itemIndex,
		description: `Give "${field}" a value (check the expression and the input item), or ${widening.instead} if ${widening.all} is meant.`,
	});
}

/**
 * Checks the options of a filter collection: one that was added (it is in the collection) but came
 * out empty would silently stop filtering, so it fails the item naming the option. `fields` maps
 * the option names to check onto their labels.
 */
export function assertAddedFiltersGiven(
	this: IExecuteFunctions,
	collection: IDataObject,
	fields: Record<string, string>,
	all: string,
	itemIndex: number,
): void {
	for (const [name, label] of Object.entries(fields)) {
		if (name in collection && locatorValue(collection[name]) === undefined) {
			throw emptyWouldWiden.call(this, label, { all, instead: 'remove the option' }, itemIndex);
		}
	}
}
