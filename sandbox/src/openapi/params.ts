import { sandbox, type Schema } from './schema';

/**
 * The parameters of the API's methods, each defined once: its JSON Schema (the same for the JSON body of POST and
 * the query string of GET, whose values arrive as strings), whether it is required, what it means, and how a
 * refusal reads. The OpenAPI document publishes the schemas; the sandbox validates every call against them before
 * the method runs (src/http/validation.ts), so the two cannot disagree.
 */
export interface ParamSpec {
	schema: Schema;
	required: boolean;
	description: string;
	/** Completes `Parameter "<name>" …` when a value does not match the schema, e.g. "must be an integer from 1 to 1000". */
	expect: string;
	/** Set when the parameter (or its rule) is the sandbox's decision where the documentation is silent. */
	sandbox?: string;
	/** An array with more entries than `maxItems` is refused with this code (and `max`) instead of invalid_param. */
	tooManyCode?: string;
	/** A list of records (rows, catalog items): a refusal's `param` names the record or field at fault, e.g. items[2].price. */
	namesEntries?: boolean;
}

/** A parameter before it is said to be required or optional; `sandbox` carries what its shape decides (a bound the documentation does not state). */
export type ParamShape = Omit<ParamSpec, 'required' | 'description'>;

const notes = (...parts: (string | undefined)[]): string | undefined => parts.filter(Boolean).join(' ') || undefined;

export const required = (shape: ParamShape, description: string, sandbox?: string): ParamSpec => ({
	...shape,
	required: true,
	description,
	sandbox: notes(shape.sandbox, sandbox),
});
export const optional = (shape: ParamShape, description: string, sandbox?: string): ParamSpec => ({
	...shape,
	required: false,
	description,
	sandbox: notes(shape.sandbox, sandbox),
});

/** Said of every bound the sandbox sets where the service's documentation states none. */
export const UNDOCUMENTED_LIMIT = "the service's own limit is not documented";

/** A shape with a bound of the sandbox's own (`what`, e.g. "at most 10 buttons"), said in its `x-sandbox` note. */
export const sandboxLimit = (shape: ParamShape, what: string): ParamShape => ({
	...shape,
	sandbox: notes(shape.sandbox, `${what}: ${UNDOCUMENTED_LIMIT}.`),
});

/** Text that holds at least one character other than white space. */
const NOT_BLANK = '\\S';

/** Said of every text the sandbox refuses when it is empty or white space only. */
export const NOT_BLANK_NOTE =
	'Not blank: an empty value or one of white space only is refused (422 invalid_param); the documentation does not say whether the service takes one.';

/** Said of a parameter the sandbox requires where the documentation's table does not mark it required (`*`). */
export const REQUIRED_NOTE =
	'Required by the sandbox (422 missing_param without it): the documentation does not mark it required.';

/** A "one of these" rule the documentation does not state: it names the parameters without marking any required. */
export const needsNote = (alternatives: string[][]): string =>
	`One of ${alternatives.map((names) => names.map((name) => `\`${name}\``).join(' with ')).join(' or ')} is required (422 missing_param without them): the documentation names them without marking them required.`;

/**
 * A URI as RFC 3986 spells it: the expression of ajv-formats' `uri` format (jmrware's, with a scheme), its letters in
 * both cases since a pattern takes no flags.
 */
const RFC3986_URI = String.raw`(?:[a-zA-Z][a-zA-Z0-9+\-.]*:)(?:[/]?[/](?:(?:[a-zA-Z0-9\-._~!$&'()*+,;=:]|%[0-9a-fA-F]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-fA-F]{1,4}:){6}|::(?:[0-9a-fA-F]{1,4}:){5}|(?:[0-9a-fA-F]{1,4})?::(?:[0-9a-fA-F]{1,4}:){4}|(?:(?:[0-9a-fA-F]{1,4}:){0,1}[0-9a-fA-F]{1,4})?::(?:[0-9a-fA-F]{1,4}:){3}|(?:(?:[0-9a-fA-F]{1,4}:){0,2}[0-9a-fA-F]{1,4})?::(?:[0-9a-fA-F]{1,4}:){2}|(?:(?:[0-9a-fA-F]{1,4}:){0,3}[0-9a-fA-F]{1,4})?::[0-9a-fA-F]{1,4}:|(?:(?:[0-9a-fA-F]{1,4}:){0,4}[0-9a-fA-F]{1,4})?::)(?:[0-9a-fA-F]{1,4}:[0-9a-fA-F]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-fA-F]{1,4}:){0,5}[0-9a-fA-F]{1,4})?::[0-9a-fA-F]{1,4}|(?:(?:[0-9a-fA-F]{1,4}:){0,6}[0-9a-fA-F]{1,4})?::)|[Vv][0-9a-fA-F]+\.[a-zA-Z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-zA-Z0-9\-._~!$&'()*+,;=]|%[0-9a-fA-F]{2})*)(?::\d*)?(?:[/](?:[a-zA-Z0-9\-._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})*)*|[/](?:(?:[a-zA-Z0-9\-._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+(?:[/](?:[a-zA-Z0-9\-._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})*)*)?|(?:[a-zA-Z0-9\-._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})+(?:[/](?:[a-zA-Z0-9\-._~!$&'()*+,;=:@]|%[0-9a-fA-F]{2})*)*)(?:\?(?:[a-zA-Z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-fA-F]{2})*)?(?:#(?:[a-zA-Z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-fA-F]{2})*)?`;

/**
 * An absolute http or https URL without user information (a hook's receiver, a link button), a valid URI: one pattern
 * takes exactly what `format: uri` with the http(s) pattern takes. kubb turns `format: uri` into `.url()` and drops a
 * pattern beside it, so the document states the URI rule in the pattern. A slash is `[/]`: openapi-zod-client escapes
 * every `/` (an escaped one breaks its regular expression) and kubb reads `//` as one escaped slash.
 */
export const HTTP_URL_PATTERN = `^(?=(?:${RFC3986_URI})$)https?:[/][/][^\\s/?#@]+(?:[/?#]\\S*)?$`;

/** Why the sandbox takes only such URLs: `what` names the URL in the documentation's words. */
export const httpUrlNote = (what: string): string =>
	`An absolute http or https URL without a user name or password (otherwise 422 invalid_param): the documentation says "${what}" without saying which URLs are taken.`;

/** A parameter the sandbox requires although the documentation does not star it. */
export const requiredBySandbox = (shape: ParamShape, description: string, sandbox?: string): ParamSpec =>
	required(shape, description, notes(REQUIRED_NOTE, sandbox));

/**
 * The pattern of a text: not blank, and at most `max` characters when the text may also be a number. kubb drops
 * `maxLength` from a string that shares its schema with other JSON types (it keeps the pattern), so the length is
 * in the pattern too; `maxLength` stays for the generators that read it.
 */
export function lengthPattern(notBlank: boolean, max?: number): string | undefined {
	if (max === undefined) return notBlank ? NOT_BLANK : undefined;
	return notBlank ? `^(?=[\\s\\S]*\\S)[\\s\\S]{1,${max}}$` : `^[\\s\\S]{0,${max}}$`;
}

/**
 * Text: a string (JSON numbers are taken as their text, since the service declares most scalars as strings).
 * `blank` allows an empty string (which clears a field or means "all"); `numbers: false` takes strings only.
 */
export function text(
	options: { max?: number; blank?: boolean; numbers?: boolean; pattern?: string; format?: string; what?: string } = {},
): ParamShape {
	const numbers = options.numbers ?? true;
	const notBlank = !options.blank && options.pattern === undefined;
	const pattern = options.pattern ?? lengthPattern(notBlank, numbers ? options.max : undefined);
	const schema: Schema = {
		type: numbers ? ['string', 'number'] : 'string',
		...(options.max !== undefined ? { maxLength: options.max } : {}),
		...(pattern ? { pattern } : {}),
		...(options.format ? { format: options.format } : {}),
	};
	const what = options.what ?? (numbers ? 'a string or a number' : 'a string');
	const parts = [
		options.blank ? what : `${what}, not blank`,
		options.max !== undefined ? `at most ${options.max} characters` : undefined,
	];
	const shape: ParamShape = {
		schema,
		expect: `must be ${parts.filter(Boolean).join(', ')}`,
		sandbox: notBlank ? NOT_BLANK_NOTE : undefined,
	};
	// Every text bound is the sandbox's: the documentation states no length.
	return options.max !== undefined ? sandboxLimit(shape, `At most ${options.max} characters`) : shape;
}

/** Digits of an integer from `min` to `max` as a regular expression (no sign, no leading zeros). */
export function integerPattern(min: number, max?: number): string {
	if (max === undefined) {
		if (min > 1) throw new Error('integerPattern: an open range starts at 0 or 1');
		return min === 0 ? '^(?:0|[1-9][0-9]*)$' : '^[1-9][0-9]*$';
	}
	return `^(?:${rangeAlternatives(min, max).join('|')})$`;
}

/** Splits [min, max] into ranges whose ends have the same number of digits and differ in a tail of 0…9 (after to-regex-range's method). */
function rangeAlternatives(min: number, max: number): string[] {
	const stops = new Set<number>([max]);
	for (let nines = 1; ; nines++) {
		const stop = Number(`${String(min).slice(0, -nines) || ''}${'9'.repeat(nines)}`);
		if (!(min <= stop && stop < max)) break;
		stops.add(stop);
	}
	for (let zeros = 1; ; zeros++) {
		const stop = max + 1 - ((max + 1) % 10 ** zeros) - 1;
		if (!(min < stop && stop < max)) break;
		stops.add(stop);
	}
	const sorted = [...stops].sort((a, b) => a - b);
	const alternatives: string[] = [];
	let start = min;
	for (const stop of sorted) {
		alternatives.push(digitsBetween(String(start), String(stop)));
		start = stop + 1;
	}
	return alternatives;
}

function digitsBetween(start: string, stop: string): string {
	let pattern = '';
	let any = 0;
	for (let index = 0; index < start.length; index++) {
		const [low, high] = [start[index], stop[index]];
		if (low === high) pattern += low;
		else if (low === '0' && high === '9') any++;
		else pattern += `[${low}-${high}]`;
	}
	return any > 0 ? `${pattern}[0-9]${any > 1 ? `{${any}}` : ''}` : pattern;
}

/** An integer, as a JSON number or as its decimal digits. */
export function integer(min = 1, max?: number): ParamShape {
	const bounds = { minimum: min, ...(max !== undefined ? { maximum: max } : {}) };
	return {
		schema: {
			anyOf: [
				{ type: 'integer', ...bounds },
				{ type: 'string', pattern: integerPattern(min, max) },
			],
		},
		expect:
			max === undefined
				? `must be an integer of at least ${min}`
				: `must be an integer of at least ${min} and at most ${max}`,
	};
}

/**
 * A yes/no flag as the service takes it: JSON true/false, 1/0, or their text. One branch per JSON type, each with
 * values of that type only: an enum mixing true and "true" is one no generator can turn into a TypeScript enum
 * (kubb names both members `true`).
 */
export const FLAG_SCHEMA: Schema = {
	anyOf: [
		{ type: 'boolean' },
		{ type: 'string', enum: ['true', 'false', '1', '0'] },
		{ type: 'integer', enum: [1, 0] },
	],
};
export const flag: ParamShape = {
	schema: FLAG_SCHEMA,
	expect: 'must be true or false (or 1 or 0)',
};

/** One word of a fixed list. */
export const choice = (values: readonly string[]): ParamShape => ({
	schema: { type: 'string', enum: [...values] },
	expect: `must be one of: ${values.join(', ')}`,
});

/** A calendar day YYYY-MM-DD that exists. */
export const day: ParamShape = { schema: { type: 'string', format: 'date' }, expect: 'must be a date YYYY-MM-DD' };

/** An ISO 8601 time with seconds and a zone, e.g. 2026-01-31T12:00:00Z. */
const INSTANT =
	'^[0-9]{4}-[0-9]{2}-[0-9]{2}T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})$';

/** A day (compared in the account's time zone) or an instant. */
export const dayOrTime: ParamShape = {
	schema: {
		anyOf: [
			{ type: 'string', format: 'date' },
			{ type: 'string', format: 'date-time', pattern: INSTANT },
		],
	},
	expect: 'must be a date YYYY-MM-DD or an ISO 8601 time such as 2026-01-31T12:00:00Z',
};

/** One string or a non-empty array of strings, each matching `item`. */
export function oneOrMany(item: Schema, expect: string, options: { empty?: boolean } = {}): ParamShape {
	return {
		schema: { anyOf: [item, { type: 'array', items: item, ...(options.empty ? {} : { minItems: 1 }) }] },
		expect,
	};
}

/** An array of `items`. */
export function list(
	items: Schema,
	expect: string,
	bounds: { min?: number; max?: number; unique?: boolean; tooManyCode?: string } = {},
): ParamShape {
	return {
		schema: {
			type: 'array',
			items,
			...(bounds.min !== undefined ? { minItems: bounds.min } : {}),
			...(bounds.max !== undefined ? { maxItems: bounds.max } : {}),
			...(bounds.unique ? { uniqueItems: true } : {}),
		},
		expect,
		...(bounds.tooManyCode ? { tooManyCode: bounds.tooManyCode, namesEntries: true } : {}),
	};
}

/** An object whose every key is free (a column, a variable) with values matching `values`. */
export function dictionary(values: Schema, expect: string, options: { keys?: Schema; min?: number } = {}): ParamShape {
	return {
		schema: {
			type: 'object',
			additionalProperties: values,
			...(options.keys ? { propertyNames: options.keys } : {}),
			...(options.min !== undefined ? { minProperties: options.min } : {}),
		},
		expect,
	};
}

/** A value of a list cell as a caller sends it: text, number or flag; null leaves the cell empty. */
export const CELL: Schema = { type: ['string', 'number', 'boolean', 'null'] };

/** A non-blank string (for array items and object properties), marked as the sandbox's rule. */
export const nonBlank = (max?: number): Schema =>
	sandbox({ type: 'string', pattern: NOT_BLANK, ...(max !== undefined ? { maxLength: max } : {}) }, NOT_BLANK_NOTE);
