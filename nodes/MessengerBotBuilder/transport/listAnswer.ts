import type { IDataObject } from 'n8n-workflow';

/*
 * Reading the records out of one answer of a list method, and telling records apart across pages.
 */

/**
 * The resource each list method returns: some services put the records under its name (e.g.
 * `rows`) instead of under `items`.
 */
export const RESOURCE_OF_PATH: Record<string, string> = {
	'/list/rows/get': 'rows',
	'/list/rows/find': 'rows',
	'/subscriber/list': 'subscribers',
	'/subscriber/find': 'subscribers',
	'/subscriber/chat/get': 'messages',
	'/log/get': 'entries',
	'/hook/list': 'hooks',
};

/** Why the records of a list answer cannot be read; the caller says which method answered. */
export class UnreadableListError extends Error {
	constructor(readonly reason: string) {
		super(`The service's answer ${reason}`);
	}
}

/**
 * The records of a list answer: a bare array, or the array under one of `fields`, under `items`,
 * or (when the object holds exactly one array) under whatever name it has; a known field that is
 * null, or an object with no list in it at all, is an empty list. Throws `UnreadableListError`
 * where reading it as empty could hide records: several unknown arrays, a list inside a wrapper
 * object, a known field that is not a list, an answer that is not JSON object or array.
 */
export function findRecords(answer: unknown, fields: string[]): IDataObject[] {
	if (Array.isArray(answer)) return answer as IDataObject[];
	const names = [...fields, 'items'];
	if (answer === null || typeof answer !== 'object') {
		const what =
			answer === undefined || answer === null || answer === ''
				? 'is empty'
				: `is a ${typeof answer}, not a JSON object`;
		throw new UnreadableListError(`${what}: no list of records in it`);
	}
	const object = answer as IDataObject;
	for (const name of names) if (Array.isArray(object[name])) return object[name] as IDataObject[];
	if (names.some((name) => object[name] === null)) return [];
	const arrays = Object.values(object).filter((value) => Array.isArray(value));
	if (arrays.length === 1) return arrays[0] as IDataObject[];
	if (arrays.length > 1)
		throw new UnreadableListError(
			`holds several lists and none is called ${names.join(' or ')}: the records cannot be told apart`,
		);
	const wrapper = Object.keys(object).find((key) => {
		const value = object[key];
		return value !== null && typeof value === 'object' && Object.values(value).some((inner) => Array.isArray(inner));
	});
	if (wrapper !== undefined)
		throw new UnreadableListError(
			`holds its list inside "${wrapper}" instead of at its top level: it cannot be read as an empty list`,
		);
	const named = names.find((name) => object[name] !== undefined);
	if (named !== undefined) throw new UnreadableListError(`has "${named}" that is not a list`);
	return [];
}

/** What tells a record apart: its id, if it has a usable one, and a key that is its id or its content. */
export interface RecordIdentity {
	id?: string;
	key: string;
}

/** What identifies a record across pages: its `id` (number or string alike), else its content. */
export function identityOf(record: IDataObject): RecordIdentity {
	const id = record?.id;
	// A number id past 2^53 was rounded when the answer was parsed: two records may now share it.
	if ((typeof id === 'number' && Number.isSafeInteger(id)) || typeof id === 'string')
		return { id: String(id), key: `id:${String(id)}` };
	return { key: `json:${JSON.stringify(record)}` };
}
