import { findRecords } from '../../transport/pagination';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Paging } from '../../transport/pagination';
import { fieldLabel } from './labels';

/** Reads a text parameter, trimmed; an empty required one is an error that names it. */
export function text(this: IExecuteFunctions, name: string, itemIndex: number, required = false): string {
	const raw = this.getNodeParameter(name, itemIndex, '', { extractValue: true }) as unknown;
	const value = raw === undefined || raw === null ? '' : String(raw).trim();
	if (required && value === '') {
		const label = fieldLabel.call(this, name);
		throw new NodeOperationError(this.getNode(), `The field "${label}" is empty`, {
			itemIndex,
			description: `Give a value for "${label}" (an expression such as {{ $json.${name} }} works too).`,
		});
	}
	return value;
}

/** Bot and subscriber as the service addresses a subscriber: botid + clientid. */
export function subscriberKey(this: IExecuteFunctions, itemIndex: number): IDataObject {
	return {
		botid: text.call(this, 'botId', itemIndex, true),
		clientid: text.call(this, 'clientId', itemIndex, true),
	};
}

export function paging(this: IExecuteFunctions, itemIndex: number): Paging {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? 0 : (this.getNodeParameter('limit', itemIndex, 50) as number);
	return { returnAll, limit };
}

/**
 * Name/value pairs of a fixedCollection (`{ values: [{ name, value }] }`) as one object. A blank row
 * (no name, no value) is skipped; a value whose name is empty (e.g. from an expression) fails the item
 * naming the field, since leaving it out would report a write that was not made.
 */
export function pairs(this: IExecuteFunctions, name: string, itemIndex: number): IDataObject {
	const collection = this.getNodeParameter(name, itemIndex, {}) as {
		values?: Array<{ name: unknown; value: unknown }>;
	};
	const result: IDataObject = {};
	for (const [position, entry] of (collection.values ?? []).entries()) {
		const key = entry.name === undefined || entry.name === null ? '' : String(entry.name);
		if (key.trim() !== '') {
			result[key] = entry.value as IDataObject[string];
			continue;
		}
		if (entry.value === undefined || entry.value === null || entry.value === '') continue;
		const field = fieldLabel.call(this, name);
		throw new NodeOperationError(
			this.getNode(),
			`The field "${field}" has a value without a name (entry ${position + 1}): nothing was sent`,
			{
				itemIndex,
				description: `Give entry ${position + 1} of "${field}" a name (check the expression and the input item), or remove it.`,
			},
		);
	}
	return result;
}

/**
 * A comma-separated text or an array from an expression, as a list of non-empty strings. An array entry that is
 * missing (`[$json.tag1, $json.tag2]` with tag2 not there) fails the item naming the field: sent, it would be the
 * word "undefined" (a tag, a column); left out, a row to delete or a column would silently go missing.
 */
export function stringList(this: IExecuteFunctions, name: string, itemIndex: number): string[] {
	const raw = this.getNodeParameter(name, itemIndex, '') as unknown;
	if (Array.isArray(raw)) {
		const missing = raw.findIndex((part) => part === undefined || part === null);
		if (missing !== -1) {
			const field = fieldLabel.call(this, name);
			throw new NodeOperationError(
				this.getNode(),
				`The field "${field}" has an empty entry (entry ${missing + 1} is ${String(raw[missing])}): nothing was sent`,
				{
					itemIndex,
					description: `Check the expression of "${field}" and the input item: every entry of its list must have a value.`,
				},
			);
		}
	}
	const parts = Array.isArray(raw) ? raw.map(String) : String(raw ?? '').split(',');
	return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** The records of a list answer, whatever field the service put them in; fails where reading it as empty could hide records. */
export function recordsOf(answer: unknown, ...fields: string[]): IDataObject[] {
	return findRecords(answer, fields);
}

/** The link buttons of a message as the service takes them: `[{ name, url }]`, or undefined when none. */
export function buttons(this: IExecuteFunctions, itemIndex: number): IDataObject[] | undefined {
	const collection = this.getNodeParameter('buttons', itemIndex, {}) as { values?: IDataObject[] };
	const list = (collection.values ?? []).filter((button) => button.name || button.url);
	for (const button of list) {
		if (!button.name || !button.url) {
			throw new NodeOperationError(this.getNode(), 'Every button needs both a text and a URL', { itemIndex });
		}
	}
	return list.length ? list.map(({ name, url }) => ({ name, url })) : undefined;
}

/** The number a text of digits only writes, when a JavaScript number holds it exactly (below 2^53). */
function digitsNumber(value: string): number | undefined {
	const number = Number(value);
	return /^\d+$/.test(value) && Number.isSafeInteger(number) ? number : undefined;
}

/**
 * A record number (row, catalog item) as the service takes it: digits only, 1 or more, exactly
 * representable. `Number()` alone would read "0x1f" as 31, "1e2" as 100 and round a long id to
 * another record's, or send "abc" as null.
 */
export function recordNumber(this: IExecuteFunctions, raw: string, field: string, itemIndex: number): number {
	const value = raw.trim();
	const number = digitsNumber(value);
	if (number === undefined || number < 1) {
		throw new NodeOperationError(
			this.getNode(),
			`The field "${field}" must hold record numbers (1, 2, 3…), got "${value}"`,
			{ itemIndex },
		);
	}
	return number;
}

/** Whether a text is a day of the calendar written YYYY-MM-DD (2026-02-28, not 2026-02-30). */
export function isCalendarDay(text: string): boolean {
	if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
	const date = new Date(`${text}T00:00:00Z`);
	return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(text);
}

/** A day, or a date-time at midnight (as n8n's date picker and {{ $today }} give it), with or without an offset. */
const DAY_OR_MIDNIGHT = /^(\d{4}-\d{2}-\d{2})(?:[T ]00:00(?::00(?:\.0+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/**
 * A date as the service takes it (YYYY-MM-DD), from a date parameter or filter. The service filters
 * by whole days: a time other than midnight is refused rather than widened to its whole day.
 */
export function dayOf(this: IExecuteFunctions, value: unknown, label: string, itemIndex: number): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	const written = String(value).trim();
	const matched = DAY_OR_MIDNIGHT.exec(written);
	if (!matched || !isCalendarDay(matched[1])) {
		throw new NodeOperationError(this.getNode(), `The field "${label}" takes a day, got "${written}"`, {
			itemIndex,
			description:
				"The service filters by whole days, so a time of day would widen the filter to the whole day. Give a date (YYYY-MM-DD) or a time of 00:00, e.g. {{ $today }} or {{ $now.startOf('day') }}.",
		});
	}
	return matched[1];
}

/** A date parameter as the service takes it: YYYY-MM-DD (see {@link dayOf}). */
export function day(this: IExecuteFunctions, name: string, itemIndex: number): string | undefined {
	return dayOf.call(this, this.getNodeParameter(name, itemIndex, ''), fieldLabel.call(this, name), itemIndex);
}

/** The list parameter as the service takes it: `{ listid }`, or `{ list }` when given by name. */
export function listRef(this: IExecuteFunctions, itemIndex: number): IDataObject {
	const raw = this.getNodeParameter('listId', itemIndex) as { mode?: string; value?: unknown } | string | number;
	const mode = typeof raw === 'object' && raw !== null ? raw.mode : 'id';
	const value = text.call(this, 'listId', itemIndex, true);
	if (mode === 'name') return { list: value };
	const listid = digitsNumber(value);
	if (listid === undefined) {
		// Digits past 2^53 would be rounded to another list's number.
		throw new NodeOperationError(this.getNode(), `The field "List" must be a list number, got "${value}"`, {
			itemIndex,
			description: 'Choose "By Name" to give the list by its name.',
		});
	}
	return { listid };
}

/** The value of a resource locator found inside a collection (or a plain value given instead). */
export function locatorValue(raw: unknown): string | undefined {
	const value = raw && typeof raw === 'object' && 'value' in raw ? (raw as { value: unknown }).value : raw;
	const result = value === undefined || value === null ? '' : String(value).trim();
	return result === '' ? undefined : result;
}
