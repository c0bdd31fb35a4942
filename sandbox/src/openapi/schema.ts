/**
 * Small builders for the JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the sandbox's contract.
 * `sandbox(...)` marks a schema as the sandbox's own answer to a gap in the service's documentation
 * (`x-sandbox`), so nobody mistakes it for the service's promise.
 */
export type Schema = Record<string, unknown>;

export const SANDBOX_MARK = 'x-sandbox';

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

/** The sandbox's decision where the service's documentation is silent; `why` says what the gap is. */
export const sandbox = (schema: Schema, why = 'The sandbox\'s answer to a gap in the service\'s documentation.'): Schema => ({
  ...schema,
  [SANDBOX_MARK]: why,
});

/**
 * An object whose `documented` properties the service names, and whose `extra` properties the
 * sandbox adds (each marked). Both are required in the sandbox's answers; nothing else may appear.
 */
export function object(documented: Record<string, Schema>, extra: Record<string, Schema> = {}, open = false): Schema {
  const properties: Record<string, Schema> = { ...documented };
  for (const [name, schema] of Object.entries(extra)) properties[name] = schema[SANDBOX_MARK] ? schema : sandbox(schema);
  return {
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: open,
  };
}

/** An object the sandbox alone defines (every property is its decision). */
export const sandboxObject = (properties: Record<string, Schema>, why?: string): Schema => sandbox(object(properties), why);
