/**
 * Small builders for the JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the sandbox's contract.
 * `sandbox(...)` marks a schema as the sandbox's own answer to a gap in the service's documentation
 * (`x-sandbox`), so nobody mistakes it for the service's promise.
 */
export type Schema = Record<string, unknown>;

export const SANDBOX_MARK = 'x-sandbox';
/** On an object: the optional properties the sandbox always sends (its additions, which the service may not send). */
export const SANDBOX_SENDS = 'x-sandbox-sends';

export const str: Schema = { type: 'string' };
export const int: Schema = { type: 'integer' };
export const num: Schema = { type: 'number' };
export const bool: Schema = { type: 'boolean' };
export const isoTime: Schema = { type: 'string', format: 'date-time' };
export const strings: Schema = { type: 'array', items: str };
/** An object whose properties the contract leaves open (documented as such, so generated types keep them readable). */
export const anyObject: Schema = { type: 'object', additionalProperties: true };
/** A value a variable or a list cell holds. */
export const scalar: Schema = { type: ['string', 'number', 'boolean'] };

export const nullable = (schema: Schema): Schema =>
	typeof schema.type === 'string' ? { ...schema, type: [schema.type, 'null'] } : { anyOf: [schema, { type: 'null' }] };
export const arrayOf = (items: Schema): Schema => ({ type: 'array', items });
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const oneOf = (...schemas: Schema[]): Schema => ({ anyOf: schemas });
export const describe = (schema: Schema, description: string): Schema => ({ ...schema, description });

/**
 * A description with the sandbox's note after it ("… Sandbox: <why>"). Generators put descriptions into the code
 * and docs they make (JSDoc, zod `.describe`), but drop extensions such as `x-sandbox`: the text carries the mark there.
 */
export const withSandboxNote = (description: unknown, why: string): string =>
	[typeof description === 'string' ? description : undefined, `Sandbox: ${why}`].filter(Boolean).join(' ');

/** The sandbox's decision where the service's documentation is silent; `why` says what the gap is (in `x-sandbox` and the description). */
export const sandbox = (
	schema: Schema,
	why = "The sandbox's answer to a gap in the service's documentation.",
): Schema => ({
	...schema,
	description: withSandboxNote(schema.description, why),
	[SANDBOX_MARK]: why,
});

/**
 * An object whose `documented` properties the service names (required), and whose `extra` properties the
 * sandbox adds (each marked, and optional: the real service may not send them, so a client generated from the
 * contract must not count on them). The sandbox itself always sends them: `x-sandbox-sends` names them, and its
 * tests hold it to that (see {@link sandboxSendsEveryExtra}); nothing else may appear.
 */
export function object(documented: Record<string, Schema>, extra: Record<string, Schema> = {}, open = false): Schema {
	const properties: Record<string, Schema> = { ...documented };
	for (const [name, schema] of Object.entries(extra))
		properties[name] = schema[SANDBOX_MARK] ? schema : sandbox(schema);
	return {
		type: 'object',
		properties,
		required: Object.keys(documented),
		...(Object.keys(extra).length > 0 ? { [SANDBOX_SENDS]: Object.keys(extra) } : {}),
		additionalProperties: open,
	};
}

/** A set of values that may grow (Zalando's convention): generated types read the value as a string. */
export const EXTENSIBLE_ENUM = 'x-extensible-enum';

const SUBSCHEMA_LISTS = ['anyOf', 'allOf', 'oneOf', 'prefixItems'];
const SUBSCHEMAS = ['items', 'not', 'additionalProperties', 'propertyNames', 'contains', 'if', 'then', 'else'];

/**
 * An answer's schema as the published contract states it. The service's documentation names fields and values
 * without promising there are no others ("not shown"), so a validator a client generates from the contract must take
 * an answer with a field or a value it does not know: objects are left open, and a set of strings becomes
 * `x-extensible-enum`. The sandbox's own answers are held to the closed schemas ({@link sandboxSendsEveryExtra}'s view).
 */
export function openAnswer(schema: Schema): Schema {
	const open: Schema = {};
	for (const [key, value] of Object.entries(schema)) {
		if (key === 'additionalProperties' && value === false) continue;
		if (key === 'enum' && Array.isArray(value) && value.every((entry) => typeof entry === 'string')) {
			open[EXTENSIBLE_ENUM] = value;
			if (schema.type === undefined) open.type = 'string';
		} else if ((key === 'properties' || key === 'patternProperties') && value && typeof value === 'object') {
			open[key] = Object.fromEntries(
				Object.entries(value).map(([name, property]) => [name, openAnswer(property as Schema)]),
			);
		} else if (SUBSCHEMA_LISTS.includes(key) && Array.isArray(value)) {
			open[key] = value.map((entry) => openAnswer(entry as Schema));
		} else if (SUBSCHEMAS.includes(key) && value && typeof value === 'object') {
			open[key] = openAnswer(value as Schema);
		} else {
			open[key] = value;
		}
	}
	return open;
}

/**
 * The document as the sandbox answers it: the properties each object's `x-sandbox-sends` names are required as well.
 * The published contract leaves them optional (the service may not send them); the sandbox's own answers are
 * checked against this.
 */
export function sandboxSendsEveryExtra<T>(document: T): T {
	const walk = (value: unknown): unknown => {
		if (Array.isArray(value)) return value.map(walk);
		if (value === null || typeof value !== 'object') return value;
		const copy = Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, walk(entry)])) as Schema;
		const sends = copy[SANDBOX_SENDS];
		if (Array.isArray(sends))
			copy.required = [...new Set([...((copy.required as string[] | undefined) ?? []), ...(sends as string[])])];
		return copy;
	};
	return walk(document) as T;
}

/** An object the sandbox alone defines (every property is its decision). */
export const sandboxObject = (properties: Record<string, Schema>, why?: string): Schema =>
	sandbox(object(properties), why);
