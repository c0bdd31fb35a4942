import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import { fieldLabel } from './labels';
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
	return new NodeOperationError(
		this.getNode(),
		`The field "${field}" is empty: nothing was sent, because the service reads an empty ${field} as ${widening.all}`,
		{
			itemIndex,
			description: `Give "${field}" a value (check the expression and the input item), or ${widening.instead} if ${widening.all} is meant.`,
		},
	);
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

/**
 * The fields of a collection of changes (Update Fields and the like). A field that was added but came
 * out empty fails the item, naming it: the service's documentation does not say whether an empty
 * value clears the stored one or leaves it, so sending it could blank a value by accident and leaving
 * it out would report a change that was not made. `only` limits the check to some fields of the collection (the others are returned as they are).
 */
export function fieldsToChange(this: IExecuteFunctions, name: string, itemIndex: number, only?: string[]): IDataObject {
	const fields = this.getNodeParameter(name, itemIndex, {}) as IDataObject;
	const isEmpty = (value: unknown) =>
		value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
	const empty = Object.entries(fields).find(([field, value]) => (!only || only.includes(field)) && isEmpty(value));
	if (empty) {
		const label = fieldLabel.call(this, empty[0]);
		const collection = fieldLabel.call(this, name);
		throw new NodeOperationError(this.getNode(), `The field "${label}" is empty: nothing was sent`, {
			itemIndex,
			description:
				`The service's documentation does not say whether an empty value clears the stored one or leaves it as it is, so the node sends neither. ` +
				`Remove "${label}" from ${collection} to leave it as it is, or give it a value (check the expression and the input item).`,
		});
	}
	return fields;
}

/**
 * A yes/no option that may come from an expression: `true`/`false` or their text, `undefined` when
 * the option was not added. Anything else (an empty result, "yes", a number) fails the item naming
 * the field: n8n does not check the type of an option inside a collection, and reading such a value
 * as "no" would drop a condition of a segment or filter.
 */
export function yesNoOption(
	this: IExecuteFunctions,
	value: unknown,
	field: string,
	itemIndex: number,
): boolean | undefined {
	if (value === undefined) return undefined;
	if (value === true || value === false) return value;
	const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	if (text === 'true' || text === 'false') return text === 'true';
	throw new NodeOperationError(
		this.getNode(),
		`The field "${field}" must be true or false, got ${JSON.stringify(value ?? null)}: nothing was sent`,
		{
			itemIndex,
			description: `Check the expression and the input item, or remove "${field}" if it is not meant.`,
		},
	);
}

/**
 * The chosen value of an options parameter that decides how far a change reaches (one chain or all,
 * a segment or everyone): exactly one of `allowed`, else the item fails naming the field, so that a
 * value from an expression that is empty or mistyped never falls through to the widest choice.
 */
export function choice<T extends string>(
	this: IExecuteFunctions,
	name: string,
	allowed: readonly T[],
	fallback: T,
	itemIndex: number,
): T {
	const value = this.getNodeParameter(name, itemIndex, fallback) as unknown;
	if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
	const field = fieldLabel.call(this, name);
	throw new NodeOperationError(
		this.getNode(),
		`The field "${field}" has the value ${JSON.stringify(value ?? null)}, which is not one of its choices: nothing was sent`,
		{
			itemIndex,
			description: `Choose one of: ${allowed.join(', ')} (check the expression and the input item).`,
		},
	);
}
