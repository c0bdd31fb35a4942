import { DEFAULT_PAGE_SIZE } from '../http/params';
import type { ContractOptions } from './contractOptions';
import { PAGE_PARAMS, type EndpointContract } from './endpoints';
import { integer, optional, type ParamSpec } from './params';
import { sandbox, SANDBOX_MARK, withSandboxNote, type Schema } from './schema';

/** What `limit` means to a client: the documentation states neither a default nor a maximum. */
const PAGE_SIZE =
	'Page size. A service may answer fewer rows than asked (a cap it does not state): read on until `offset` reaches `total`, or a page comes back empty; a short page is not the end.';
const PAGE_BOUNDS_UNDOCUMENTED = "the service's own default and maximum are not documented.";

/** The operation's `limit` under the page flags (`--max-page`, `--max-page-mode`). */
function pageLimit(options: ContractOptions): ParamSpec {
	if (options.maxPageMode === 'cap') {
		return optional(
			integer(1),
			PAGE_SIZE,
			`Default ${DEFAULT_PAGE_SIZE}; a larger value is served as ${options.maxPage} (this sandbox runs with --max-page ${options.maxPage} --max-page-mode cap): ${PAGE_BOUNDS_UNDOCUMENTED}`,
		);
	}
	return optional(
		integer(1, options.maxPage),
		PAGE_SIZE,
		`Default ${DEFAULT_PAGE_SIZE}, at most ${options.maxPage} (more is a 422): ${PAGE_BOUNDS_UNDOCUMENTED}`,
	);
}

/** The parameters of a method as this sandbox takes them. */
export function paramsOf(contract: EndpointContract, options: ContractOptions): Record<string, ParamSpec> {
	return Object.fromEntries(
		Object.entries(contract.params).map(([name, spec]) => [
			name,
			spec === PAGE_PARAMS.limit ? pageLimit(options) : spec,
		]),
	);
}

/** A parameter's description as published: what it means, then the sandbox's note, if any (generated docs drop `x-sandbox`). */
const described = (spec: ParamSpec): string =>
	spec.sandbox ? withSandboxNote(spec.description, spec.sandbox) : spec.description;
const marked = (spec: ParamSpec): Schema =>
	spec.sandbox ? { ...spec.schema, description: described(spec), [SANDBOX_MARK]: spec.sandbox } : spec.schema;

/** A group of required parameters as a schema that also types them (so generated clients know them). */
const group = (names: string[], params: Record<string, ParamSpec>): Schema => ({
	type: 'object',
	properties: Object.fromEntries(names.map((name) => [name, params[name].schema])),
	required: names,
});

/** A "not both" rule: the documentation says "a or b" without saying that both together are refused. */
export const exclusiveNote = ([first, second]: [string, string]): string =>
	`\`${first}\` and \`${second}\` together are refused (422 invalid_param); the documentation says "${first} or ${second}" without saying whether both may be given.`;

/** What the sandbox says of parameters a method does not name (on the schema of every method's parameters). */
const UNNAMED_IGNORED = 'Parameters the method does not name are ignored.';
const PARAMETERS_NOTE = {
	description: withSandboxNote('The parameters as a JSON object.', UNNAMED_IGNORED),
	[SANDBOX_MARK]: UNNAMED_IGNORED,
};

/**
 * A method's parameters as JSON Schemas: `properties` (each parameter's schema), `base` (the same with the required
 * ones and `dependentRequired`), and `rules`, one schema per rule across parameters (each `needs` entry, then each
 * `exclusive` pair). The sandbox checks them in that order (src/http/validation.ts); {@link requestSchema} publishes them as one.
 */
export function requestParts(
	contract: EndpointContract,
	options: ContractOptions,
): { properties: Schema; base: Schema; rules: Schema[] } {
	const params = paramsOf(contract, options);
	const required = Object.entries(params)
		.filter(([, spec]) => spec.required)
		.map(([name]) => name);
	const properties: Schema = {
		type: 'object',
		properties: Object.fromEntries(
			Object.entries(params).map(([name, spec]) => [name, { ...marked(spec), description: described(spec) }]),
		),
	};
	const base: Schema = {
		...properties,
		...(required.length > 0 ? { required } : {}),
		...(contract.dependent ? { dependentRequired: contract.dependent } : {}),
	};
	const rules: Schema[] = [
		...(contract.needs ?? []).map((alternatives, index) => {
			const rule = { anyOf: alternatives.map((names) => group(names, params)) };
			const note = contract.needsNotes?.[index];
			return note ? sandbox(rule, note) : rule;
		}),
		...(contract.exclusive ?? []).map((pair) => sandbox({ not: { required: pair } }, exclusiveNote(pair))),
	];
	return { properties, base, rules };
}

/**
 * Schemas as `allOf` with two members at most, nested to the right ([a, [b, c]]): some generators turn an `allOf` of
 * n members into a call that takes two (@hey-api's zod plugin writes `z.intersection(a, b, c)`).
 */
function allOfPairs(schemas: Schema[]): Schema {
	return schemas.length === 1 ? schemas[0] : { allOf: [schemas[0], allOfPairs(schemas.slice(1))] };
}

/**
 * The JSON Schema of a method's parameters (a JSON body, or the query string read as an object): each parameter's
 * schema, the required ones, and the rules across parameters (one of two groups, not both, one needs another).
 * With rules, every property sits inside an `allOf` member: a generator that reads `allOf` alone (openapi-zod-client)
 * drops properties beside it.
 */
export function requestSchema(contract: EndpointContract, options: ContractOptions): Schema {
	const { base, rules } = requestParts(contract, options);
	return { ...(rules.length === 0 ? base : allOfPairs([base, ...rules])), ...PARAMETERS_NOTE };
}

export function requestBody(contract: EndpointContract, options: ContractOptions) {
	const schema = requestSchema(contract, options);
	const hasRequired = (schema.required as string[] | undefined)?.length || contract.needs;
	return {
		required: Boolean(hasRequired),
		description: 'The parameters as a JSON object.',
		content: { 'application/json': { schema } },
	};
}

/** The query string of the GET form: its scalars and lists (an object parameter, e.g. `where`, goes in the JSON body of POST). */
export function queryParameters(contract: EndpointContract, options: ContractOptions) {
	return Object.entries(paramsOf(contract, options))
		.filter(([, spec]) => spec.schema.type !== 'object')
		.map(([name, spec]) => ({
			name,
			in: 'query',
			required: spec.required,
			description: described(spec),
			schema: marked(spec),
		}));
}

export function headerParameters(contract: EndpointContract) {
	return Object.entries(contract.headers ?? {}).map(([name, spec]) => ({
		name,
		in: 'header',
		required: spec.required,
		description: described(spec),
		schema: marked(spec),
	}));
}
