import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * The fields each kind of record keeps under Output: Simplified. Only fields the service documents
 * (or, where it documents none, the few that say what the record is); everything else stays in Raw.
 */
export const SIMPLIFIED = {
	/** The card's identity and state; variables (often large) come from Subscriber → Get Variables. */
	subscriber: [
		'id',
		'botid',
		'clientid',
		'messenger',
		'name',
		'username',
		'note',
		'tags',
		'active',
		'blocked',
		'dialog',
		'subscribed',
	],
	/** A list row: its number, its values by column name, when it was added (`values` repeats `row` by order). */
	listRow: ['id', 'row', 'created'],
	/** A chat message: who wrote what, and when. */
	chatMessage: ['id', 'direction', 'text', 'time'],
	/** One API call: when, which method, and how it ended. */
	apiLogEntry: ['time', 'method', 'path', 'status', 'code'],
} as const;

/** Output (Simplified, Raw, Selected Fields) and the fields for Selected Fields. */
export function outputFields(simplified: readonly string[]): INodeProperties[] {
	return [
		{
			displayName: 'Output',
			name: 'output',
			type: 'options',
			default: 'simplified',
			description: 'How much of each record to put out',
			options: [
				{ name: 'Raw', value: 'raw', description: 'Every field the service returns' },
				{ name: 'Selected Fields', value: 'fields', description: 'Only the fields you list' },
				{ name: 'Simplified', value: 'simplified', description: `Only these fields: ${simplified.join(', ')}` },
			],
		},
		{
			displayName: 'Fields',
			name: 'fields',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. name, tags, row.Email',
			description: 'Names of the fields to put out, separated by commas; a dot reaches into an object, e.g. row.Email',
			displayOptions: { show: { output: ['fields'] } },
		},
	];
}

function pathValue(record: IDataObject, path: string[]): { found: boolean; value?: unknown } {
	let current: unknown = record;
	for (const key of path) {
		if (!current || typeof current !== 'object' || !Object.prototype.hasOwnProperty.call(current, key))
			return { found: false };
		current = (current as IDataObject)[key];
	}
	return { found: true, value: current };
}

function setPath(target: IDataObject, path: string[], value: unknown): void {
	let current = target;
	for (const key of path.slice(0, -1)) {
		if (!current[key] || typeof current[key] !== 'object') current[key] = {};
		current = current[key] as IDataObject;
	}
	current[path[path.length - 1]] = value as IDataObject[string];
}

/** The fields of `record` named by `paths` (a missing field is left out), nested as in the record. */
export function pick(record: IDataObject, paths: readonly string[]): IDataObject {
	const result: IDataObject = {};
	for (const path of paths) {
		const keys = path.split('.');
		const { found, value } = pathValue(record, keys);
		if (found) setPath(result, keys, value);
	}
	return result;
}

/** Shapes records as the item's Output parameter asks. */
export function shapeRecords(
	this: IExecuteFunctions,
	itemIndex: number,
	records: IDataObject[],
	simplified: readonly string[],
): IDataObject[] {
	const mode = this.getNodeParameter('output', itemIndex, 'simplified') as string;
	if (mode === 'raw') return records;
	if (mode === 'simplified') return records.map((record) => pick(record, simplified));
	const raw = this.getNodeParameter('fields', itemIndex, '') as string | string[];
	const paths = (Array.isArray(raw) ? raw : String(raw).split(',')).map((path) => String(path).trim()).filter(Boolean);
	if (!paths.length) {
		throw new NodeOperationError(this.getNode(), 'The field "Fields" is empty', {
			itemIndex,
			description: 'List the fields to put out, e.g. id, name, tags; or choose Output: Simplified or Raw.',
		});
	}
	// A field found in no record and not one the service documents is most likely misspelled (or `Email`
	// for `row.Email`): putting out records without it would look like success.
	const unknown = records.length
		? paths.filter(
				(path) =>
					!simplified.includes(path.split('.')[0]) &&
					!records.some((record) => pathValue(record, path.split('.')).found),
			)
		: [];
	if (unknown.length) {
		const present = [...new Set(records.flatMap((record) => Object.keys(record)))].sort();
		throw new NodeOperationError(
			this.getNode(),
			`The field "Fields" names ${unknown.map((path) => `"${path}"`).join(', ')}, which no record has`,
			{
				itemIndex,
				description: `The records have: ${present.join(', ')}. A dot reaches into an object, e.g. row.Email.`,
			},
		);
	}
	return records.map((record) => pick(record, paths));
}
