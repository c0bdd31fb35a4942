import fc from 'fast-check';
import { HTTP_URL_PATTERN } from '../src/openapi/params';

/**
 * A pattern without its lookaheads (`(?=…)`), which fast-check cannot generate from: its strings are candidates,
 * and the judge sees the whole pattern.
 */
function withoutLookaheads(pattern: string): string {
	let result = '';
	for (let index = 0; index < pattern.length; index++) {
		if (pattern.startsWith('(?=', index)) {
			let depth = 0;
			let inClass = false;
			for (; index < pattern.length; index++) {
				const char = pattern[index];
				if (char === '\\') index++;
				else if (inClass) inClass = char !== ']';
				else if (char === '[') inClass = true;
				else if (char === '(') depth++;
				else if (char === ')' && --depth === 0) break;
			}
		} else {
			if (pattern[index] === '\\') result += pattern[index++];
			result += pattern[index];
		}
	}
	return result;
}

/** A JSON Schema (2020-12) as the OpenAPI document states a request body: the keywords the samples read. */
export interface JsonSchema {
	type?: string | string[];
	enum?: unknown[];
	const?: unknown;
	format?: string;
	pattern?: string;
	minimum?: number;
	maximum?: number;
	minLength?: number;
	maxLength?: number;
	minItems?: number;
	maxItems?: number;
	items?: JsonSchema;
	properties?: Record<string, JsonSchema>;
	required?: string[];
	additionalProperties?: boolean | JsonSchema;
	propertyNames?: JsonSchema;
	anyOf?: JsonSchema[];
	allOf?: JsonSchema[];
	[keyword: string]: unknown;
}

const MAX_ARRAY = 4;

/**
 * Values for a schema, mostly inside it and sometimes just outside (bounds ±1, blank text): whether a sample is
 * valid is for the judge (ajv) to say, not for the generator. Covers what the sandbox's request schemas use:
 * type (one or several), enum, anyOf, properties/required/additionalProperties/propertyNames, items,
 * min/maxItems, minimum/maximum, maxLength, pattern and the formats date, date-time and uri.
 */
export function sampleOf(schema: JsonSchema, depth = 0): fc.Arbitrary<unknown> {
	if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
	if (schema.const !== undefined) return fc.constant(schema.const);
	if (schema.anyOf && !schema.type)
		return fc.oneof(...(schema.anyOf as JsonSchema[]).map((branch) => sampleOf(branch, depth)));
	const types: string[] = Array.isArray(schema.type)
		? schema.type
		: schema.type
			? [schema.type]
			: ['string', 'number', 'boolean', 'null'];
	return fc.oneof(...types.map((type) => sampleOfType(type, schema, depth)));
}

function sampleOfType(type: string, schema: JsonSchema, depth: number): fc.Arbitrary<unknown> {
	switch (type) {
		case 'string':
			return stringSample(schema);
		case 'integer':
			return integerSample(schema);
		case 'number':
			return fc.oneof(integerSample(schema), fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }));
		case 'boolean':
			return fc.boolean();
		case 'null':
			return fc.constant(null);
		case 'array':
			return arraySample(schema, depth);
		case 'object':
			return objectSample(schema, depth);
		default:
			throw new Error(`sampleOf: type ${type} is not covered`);
	}
}

function stringSample(schema: JsonSchema): fc.Arbitrary<string> {
	const max = schema.maxLength as number | undefined;
	const options: fc.Arbitrary<string>[] = [];
	if (schema.format === 'date')
		options.push(
			fc
				.date({ min: new Date('1990-01-01'), max: new Date('2040-12-31'), noInvalidDate: true })
				.map((date) => date.toISOString().slice(0, 10)),
		);
	if (schema.format === 'date-time')
		options.push(
			fc
				.date({ min: new Date('1990-01-01'), max: new Date('2040-12-31'), noInvalidDate: true })
				.map((date) => date.toISOString()),
		);
	if (schema.format === 'uri' || schema.pattern === HTTP_URL_PATTERN)
		options.push(fc.webPath().map((path) => `http://127.0.0.1:9${path.startsWith('/') ? path : `/${path}`}`));
	if (schema.pattern)
		options.push(
			fc.stringMatching(new RegExp(withoutLookaheads(schema.pattern as string), 'u'), {
				maxLength: Math.min(max ?? 30, 30),
			}),
		);
	if (options.length === 0 || !schema.format)
		options.push(fc.string({ maxLength: Math.min(max ?? 20, 20) }), fc.constantFrom('', ' ', 'x', 'A b'));
	if (max !== undefined) options.push(fc.constantFrom('y'.repeat(max), 'y'.repeat(max + 1)));
	return fc.oneof(...options);
}

function integerSample(schema: JsonSchema): fc.Arbitrary<number> {
	const min = schema.minimum as number | undefined;
	const max = schema.maximum as number | undefined;
	const edges = [min, max, min !== undefined ? min - 1 : undefined, max !== undefined ? max + 1 : undefined].filter(
		(edge): edge is number => edge !== undefined,
	);
	return fc.oneof(
		fc.integer({ min: min ?? -100, max: max ?? Math.max(100, (min ?? 0) + 100) }),
		...(edges.length > 0 ? [fc.constantFrom(...edges)] : []),
	);
}

function arraySample(schema: JsonSchema, depth: number): fc.Arbitrary<unknown[]> {
	const items = depth > 3 ? fc.constant('x') : sampleOf((schema.items as JsonSchema) ?? {}, depth + 1);
	const minLength = (schema.minItems as number | undefined) ?? 0;
	return fc.array(items, {
		minLength: Math.max(0, minLength - 1),
		maxLength: Math.max(minLength, Math.min((schema.maxItems as number | undefined) ?? MAX_ARRAY, MAX_ARRAY)),
	});
}

function objectSample(schema: JsonSchema, depth: number): fc.Arbitrary<Record<string, unknown>> {
	if (depth > 3) return fc.constant({});
	const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
	const required = new Set<string>((schema.required as string[] | undefined) ?? []);
	const named = Object.fromEntries(
		Object.entries(properties).map(([name, property]) => [
			name,
			required.has(name)
				? sampleOf(property, depth + 1)
				: fc.option(sampleOf(property, depth + 1), { nil: undefined, freq: 2 }),
		]),
	);
	const extra =
		schema.additionalProperties && typeof schema.additionalProperties === 'object'
			? fc.dictionary(
					schema.propertyNames?.pattern
						? fc.stringMatching(new RegExp(schema.propertyNames.pattern as string, 'u'), { maxLength: 12 })
						: fc.string({ minLength: 1, maxLength: 12 }),
					sampleOf(schema.additionalProperties as JsonSchema, depth + 1),
					{ maxKeys: 3 },
				)
			: fc.constant({});
	return fc.tuple(fc.record(named), extra).map(([fields, more]) => {
		const object: Record<string, unknown> = { ...more };
		for (const [name, value] of Object.entries(fields)) if (value !== undefined) object[name] = value;
		return object;
	});
}

/** Values that are wrong for most parameters (a wrong type, blank, a day that does not exist, too long, nested). */
const WRONG_VALUES: unknown[] = [
	true,
	false,
	0,
	-1,
	1.5,
	'',
	' ',
	'x',
	'sideways',
	'2026-02-30',
	{},
	[],
	[1],
	['x'],
	[null],
	null,
	{ a: { b: 1 } },
	'z'.repeat(5000),
];

/** A sample changed in one place: a parameter (or a value inside one) replaced by a wrong value, or a required one removed. */
export function mutationOf(schema: JsonSchema, sample: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
	const required = (schema.required as string[] | undefined) ?? [];
	return fc
		.tuple(sample, fc.nat(), fc.constantFrom(...WRONG_VALUES), fc.boolean())
		.map(([value, pick, wrong, remove]) => {
			const body = structuredClone(value) as Record<string, unknown>;
			if (remove && required.length > 0) {
				delete body[required[pick % required.length]];
				return body;
			}
			const paths = pathsOf(body);
			if (paths.length === 0)
				return {
					[Object.keys(schema.properties ?? { x: 0 })[pick % Math.max(1, Object.keys(schema.properties ?? {}).length)]]:
						wrong,
				};
			const path = paths[pick % paths.length];
			// The path leads through objects and arrays of `body` (pathsOf found it there).
			let parent = body as Record<string | number, unknown>;
			for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
			parent[path[path.length - 1]] = wrong;
			return body;
		});
}

/** Every place in a value (object keys, array indexes), outermost first. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
	if (Array.isArray(value))
		return value.flatMap((item, index) => [[...prefix, index], ...pathsOf(item, [...prefix, index])]);
	if (value && typeof value === 'object')
		return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])]);
	return [];
}
