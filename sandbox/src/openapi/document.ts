import type { Endpoint } from '../api/endpoint';
import { SANDBOX_READING, type VariantOptions } from '../config';
import { listResourceName } from '../http/listAnswers';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../http/params';
import { componentSchemas } from './components';
import { endpointContracts, PAGE_PARAMS, type EndpointContract } from './endpoints';
import { integer, optional, type ParamSpec } from './params';
import { outsideApiRoutes, type RouteContract } from './routes';
import {
	openAnswer,
	ref,
	sandbox,
	SANDBOX_MARK,
	SANDBOX_SENDS,
	sandboxSendsEveryExtra,
	withSandboxNote,
	type Schema,
} from './schema';

export const OPENAPI_PATH = '/openapi.json';

/** How the sandbox was started, as far as its contract depends on it (the variant flags). */
export type ContractOptions = VariantOptions;

const pascal = (words: string) =>
	words
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean)
		.map((word) => word[0].toUpperCase() + word.slice(1))
		.join('');

/** The error codes the service's documentation names. */
const DOCUMENTED_CODES = new Set(['list_exists']);

/**
 * Error answers, each kept once in components.responses under a name that says its status and codes
 * (e.g. `Status422MissingParamInvalidParamInvalidBodyNotFound`): operations refer to them.
 */
class ErrorResponses {
	readonly components: Record<string, unknown> = {};

	ref(status: string, description: string, codes: string[], headers?: Record<string, unknown>): Schema {
		const unique = [...new Set(codes)];
		const name = `Status${status}${unique.map(pascal).join('')}${headers ? '' : status === '429' ? 'NoRetryAfter' : ''}`;
		this.components[name] ??= {
			description,
			...(headers ? { headers } : {}),
			content: {
				'application/json': {
					schema: {
						allOf: [
							ref('Error'),
							{
								type: 'object',
								properties: {
									// The documentation names one code (list_exists) and leaves the list and their statuses open.
									code: unique.every((code) => DOCUMENTED_CODES.has(code))
										? { type: 'string', enum: unique }
										: sandbox(
												{ type: 'string', enum: unique },
												'The codes the sandbox answers with this status; the documentation names only `list_exists`, and the full list of codes and their statuses is not shown.',
											),
								},
							},
						],
					},
				},
			},
		};
		return { $ref: `#/components/responses/${name}` };
	}
}

/** A failure inside the sandbox (a bug, a store it cannot write): every operation can answer it. */
const internalError = (errors: ErrorResponses) =>
	errors.ref(
		'500',
		'The sandbox failed unexpectedly (a fault of its own, such as a data file it cannot write); a change may or may not have been made.',
		['internal'],
	);

/** Refusals of the request body itself, before any method runs. */
const bodyErrors = (errors: ErrorResponses) => ({
	'400': errors.ref(
		'400',
		'The body is not valid JSON, ended early, or does not match its Content-Type or Content-Encoding.',
		['invalid_json', 'aborted', 'invalid_body'],
	),
	'413': errors.ref('413', 'The body is larger than 10 MB.', ['too_large']),
	'415': errors.ref('415', "The body's charset or Content-Encoding is not supported.", [
		'unsupported_charset',
		'unsupported_encoding',
	]),
});

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
		...(contract.needs ?? []).map((alternatives) => ({ anyOf: alternatives.map((names) => group(names, params)) })),
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

function requestBody(contract: EndpointContract, options: ContractOptions) {
	const schema = requestSchema(contract, options);
	const hasRequired = (schema.required as string[] | undefined)?.length || contract.needs;
	return {
		required: Boolean(hasRequired),
		description: 'The parameters as a JSON object.',
		content: { 'application/json': { schema } },
	};
}

/** The query string of the GET form: its scalars and lists (an object parameter, e.g. `where`, goes in the JSON body of POST). */
function queryParameters(contract: EndpointContract, options: ContractOptions) {
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

function headerParameters(contract: EndpointContract) {
	return Object.entries(contract.headers ?? {}).map(([name, spec]) => ({
		name,
		in: 'header',
		required: spec.required,
		description: described(spec),
		schema: marked(spec),
	}));
}

/** An operationId: the path's words in camelCase, e.g. accountBalanceGet. */
const camel = (path: string) =>
	path
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean)
		.map((part, index) => (index === 0 ? part : part[0].toUpperCase() + part.slice(1)))
		.join('');

/** The name of a method's answer in components.schemas, e.g. SubscriberListAnswer. */
const answerName = (path: string) => {
	const name = camel(path);
	return `${name[0].toUpperCase()}${name.slice(1)}Answer`;
};

/** The answer of a list method in the shape the list flags ask for (`--list-shape`, `--omit-total`). */
function shapedAnswer(path: string, answer: Schema, options: ContractOptions): Schema {
	const name = listResourceName(path);
	if (name && Array.isArray(answer.anyOf)) {
		// Either shape is documented: the page follows the flags (and is all there is of a bare list).
		const branches = answer.anyOf as Schema[];
		const page = branches.find((branch) => (branch.properties as Record<string, Schema> | undefined)?.items);
		if (page && options.listShape === 'bare') return shapedAnswer(path, page, options);
		return { ...answer, anyOf: branches.map((branch) => shapedAnswer(path, branch, options)) };
	}
	const properties = answer.properties as Record<string, Schema> | undefined;
	if (!name || !properties?.items) return answer;
	const { items, total: _total, ...rest } = properties;
	const total = options.omitTotal ? {} : properties.total ? { total: properties.total } : {};
	const note = `This sandbox runs with${options.listShape !== 'items' ? ` --list-shape ${options.listShape}` : ''}${options.omitTotal ? ' --omit-total' : ''}.`;
	if (options.listShape === 'bare') return sandbox(items, `${note} The records, without an envelope.`);
	const key = options.listShape === 'named' ? name : 'items';
	const shapedProperties = { [key]: items, ...rest, ...total };
	const required = new Set(answer.required as string[]);
	const sends = ((answer[SANDBOX_SENDS] as string[] | undefined) ?? []).filter((name) => name in shapedProperties);
	const shaped: Schema = {
		...answer,
		properties: shapedProperties,
		required: Object.keys(shapedProperties).filter((name) => name === key || required.has(name)),
	};
	delete shaped[SANDBOX_SENDS];
	if (sends.length > 0) shaped[SANDBOX_SENDS] = sends;
	return options.listShape === 'items' && !options.omitTotal ? answer : sandbox(shaped, note);
}

function apiPathItem(endpoint: Endpoint, options: ContractOptions, errorResponses: ErrorResponses) {
	const contract = endpointContracts[endpoint.path];
	const isRead = endpoint.scope.endsWith(':read');
	const description = [
		contract.description,
		contract.rules,
		...(contract.exclusive ?? []).map((pair) => `Sandbox: ${exclusiveNote(pair)}`),
		`Scope: \`${endpoint.scope}\`.`,
	]
		.filter(Boolean)
		.join(' ');
	/** The operation's description and, for the sandbox's extensions and its own reading of the HTTP methods, its `x-sandbox` (said in the description too). */
	const operationText = (method: 'get' | 'post') => {
		const note = [contract.extension, contract.methodsNote?.method === method ? contract.methodsNote.note : undefined]
			.filter(Boolean)
			.join(' ');
		return note ? { description: withSandboxNote(description, note), [SANDBOX_MARK]: note } : { description };
	};
	const errors = contract.errors ?? {};
	const rateHeaders =
		options.retryAfter === 'none'
			? undefined
			: {
					'Retry-After': {
						description: withSandboxNote('Seconds to wait.', "The header is the sandbox's."),
						schema: { type: 'integer', minimum: 1 },
						[SANDBOX_MARK]: "The header is the sandbox's.",
					},
				};
	const responses: Record<string, unknown> = {
		'200': { description: 'Success', content: { 'application/json': { schema: ref(answerName(endpoint.path)) } } },
		...bodyErrors(errorResponses),
		'401': errorResponses.ref('401', 'No API key, or an unknown, revoked or expired one.', ['unauthorized']),
		'403': errorResponses.ref('403', 'The key lacks the scope (`scope` names it), or may not touch the bot.', [
			'forbidden',
			...(errors[403] ?? []),
		]),
		...(errors[409] ? { '409': errorResponses.ref('409', 'A conflict with the current state.', errors[409]) } : {}),
		'422': errorResponses.ref(
			'422',
			'A parameter is missing or wrong (`param` names it), or names something that does not exist.',
			[
				'missing_param',
				'invalid_param',
				'invalid_body',
				...(errors[422] ?? []),
				...[...(contract.rules ?? '').matchAll(/422 ([a-z_]+)/g)].map((match) => match[1]),
			],
		),
		'429': errorResponses.ref(
			'429',
			`Too many requests for this key; the request did nothing.${options.retryAfter === 'none' ? ' This sandbox runs with --retry-after none: no Retry-After header.' : ''}`,
			['rate_limited'],
			rateHeaders,
		),
		'500': internalError(errorResponses),
		'503': errorResponses.ref(
			'503',
			isRead && options.failReads > 0
				? `Briefly unavailable; the request did nothing (this sandbox runs with --fail-reads ${options.failReads}).`
				: 'The sandbox is stopping; the request did nothing.',
			isRead && options.failReads > 0 ? ['unavailable', 'stopping'] : ['stopping'],
		),
	};
	const base = {
		tags: [contract.tag],
		summary: contract.summary,
		'x-scope': endpoint.scope,
		responses,
	};
	const headers = headerParameters(contract);
	const item: Record<string, unknown> = {
		post: {
			...base,
			...operationText('post'),
			operationId: camel(endpoint.path),
			...(headers.length > 0 ? { parameters: headers } : {}),
			requestBody: requestBody(contract, options),
		},
	};
	if (endpoint.methods === 'GET or POST') {
		const { '413': _tooLarge, '415': _charset, ...getResponses } = responses;
		item.get = {
			...base,
			...operationText('get'),
			operationId: `${camel(endpoint.path)}ViaGet`,
			parameters: [...queryParameters(contract, options), ...headers],
			responses: getResponses,
		};
	}
	return item;
}

function routePathItem(route: RouteContract, errorResponses: ErrorResponses) {
	const operationId = camel(`${route.method} ${route.path}`);
	const operation = {
		tags: [route.tag],
		summary: route.summary,
		description: withSandboxNote(`${route.summary}.`, route.extension),
		operationId,
		[SANDBOX_MARK]: route.extension,
		...(route.security ? { security: route.security } : { security: [] }),
		...(route.parameters ? { parameters: route.parameters } : {}),
		...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
		responses: {
			'200':
				route.answer === 'html'
					? { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } }
					: { description: 'Success', content: { 'application/json': { schema: route.answer } } },
			...(route.errors
				? { '4XX': { description: 'An error', content: { 'application/json': { schema: ref('Error') } } } }
				: {}),
			'500': internalError(errorResponses),
			...route.otherResponses,
		},
	};
	return { [route.method]: operation };
}

const TAGS: Record<string, string> = {
	Account: 'The account, its balance, bots, projects and the log of API calls.',
	Keys: 'API keys with restricted rights.',
	Subscribers: 'Subscriber cards, tags, variables, chat history and running chains.',
	Messaging: 'Messages, blocks, chains and broadcasts.',
	CRM: 'The CRM funnel.',
	Statistics: 'Subscribers and messages by day.',
	Lists: 'Lists (tables of rows) that bots use as a working database.',
	Catalog: 'Web-app catalogs of goods.',
	Hooks: 'Event subscriptions and their signed deliveries.',
	Sandbox: "The sandbox's own routes outside /api.",
	Console: "The sandbox's browser console.",
};

/** What the document says about the variant flags the sandbox was started with. */
function variantNote(options: ContractOptions): string[] {
	const flags = [
		options.maxPage !== MAX_PAGE_SIZE || options.maxPageMode !== 'reject'
			? `--max-page ${options.maxPage} --max-page-mode ${options.maxPageMode}`
			: '',
		options.omitTotal ? '--omit-total' : '',
		options.listShape !== 'items' ? `--list-shape ${options.listShape}` : '',
		options.failReads > 0 ? `--fail-reads ${options.failReads}` : '',
		options.retryAfter !== 'seconds' ? `--retry-after ${options.retryAfter}` : '',
	].filter(Boolean);
	return flags.length > 0
		? [`This sandbox runs with ${flags.join(' ')}: the document describes the answers those flags give.`]
		: [];
}

type Response = { content?: Record<string, { schema?: Schema }>; headers?: Record<string, { schema?: Schema }> };

/** A response with its body's and headers' schemas opened ({@link openAnswer}); a `$ref` stays as it is. */
function openResponse(response: Response): Response {
	const opened = (entries: Record<string, { schema?: Schema }> | undefined) =>
		entries &&
		Object.fromEntries(
			Object.entries(entries).map(([name, entry]) => [
				name,
				entry.schema ? { ...entry, schema: openAnswer(entry.schema) } : entry,
			]),
		);
	return {
		...response,
		...(response.content ? { content: opened(response.content) } : {}),
		...(response.headers ? { headers: opened(response.headers) } : {}),
	};
}

/** Every answer of the document opened: the operations' responses, components.responses and components.schemas. */
function publishedView<
	T extends {
		paths: Record<string, unknown>;
		components: { responses: Record<string, unknown>; schemas: Record<string, unknown> };
	},
>(document: T): T {
	const paths = Object.fromEntries(
		Object.entries(document.paths).map(([path, item]) => [
			path,
			Object.fromEntries(
				Object.entries(item as Record<string, unknown>).map(([key, operation]) => {
					const responses = (operation as { responses?: Record<string, Response> }).responses;
					if (!responses) return [key, operation];
					return [
						key,
						{
							...(operation as object),
							responses: Object.fromEntries(
								Object.entries(responses).map(([status, response]) => [status, openResponse(response)]),
							),
						},
					];
				}),
			),
		]),
	);
	const responses = Object.fromEntries(
		Object.entries(document.components.responses).map(([name, response]) => [name, openResponse(response as Response)]),
	);
	const schemas = Object.fromEntries(
		Object.entries(document.components.schemas).map(([name, schema]) => [name, openAnswer(schema as Schema)]),
	);
	return { ...document, paths, components: { ...document.components, responses, schemas } };
}

/**
 * Which document: `published`, the contract as `/openapi.json` serves it (answers open to fields and values it does not
 * name), or `sandbox`, the same document as the sandbox's own answers are held to (closed objects and value sets, and
 * every field the sandbox adds required).
 */
export type DocumentView = 'published' | 'sandbox';

/**
 * The sandbox's contract as an OpenAPI 3.1 document, built from the endpoint registry (paths, HTTP
 * methods, scopes) and the contract tables (parameters, answers). Fails when the two disagree, so a new
 * endpoint cannot be served without being documented.
 */
export function openApiDocument(
	endpoints: Endpoint[],
	options: ContractOptions = SANDBOX_READING,
	view: DocumentView = 'published',
) {
	const document = contractDocument(endpoints, options);
	return view === 'published' ? publishedView(document) : sandboxSendsEveryExtra(document);
}

function contractDocument(endpoints: Endpoint[], options: ContractOptions) {
	const registered = new Set(endpoints.map((endpoint) => endpoint.path));
	const undocumented = [...registered].filter((path) => !endpointContracts[path]);
	const unknown = Object.keys(endpointContracts).filter((path) => !registered.has(path));
	if (undocumented.length > 0 || unknown.length > 0) {
		throw new Error(
			`OpenAPI contract and endpoint registry disagree: undocumented ${undocumented.join(', ') || 'none'}; not served ${unknown.join(', ') || 'none'}`,
		);
	}
	const paths: Record<string, unknown> = {};
	const errorResponses = new ErrorResponses();
	for (const endpoint of [...endpoints].sort((a, b) => a.path.localeCompare(b.path)))
		paths[endpoint.path] = apiPathItem(endpoint, options, errorResponses);
	for (const route of outsideApiRoutes) {
		paths[route.path] = {
			...(paths[route.path] as object),
			servers: [{ url: '/', description: 'The sandbox itself, outside /api' }],
			...routePathItem(route, errorResponses),
		};
	}
	return {
		openapi: '3.1.0',
		info: {
			title: 'Messenger Bot Builder API (sandbox)',
			version: '2.0',
			license: { name: 'MIT', identifier: 'MIT' },
			contact: { name: 'Messenger Bot Builder integrations team', email: 'integrations@messenger-bot-builder.dev' },
			description: [
				"The messenger-bot builder service's HTTP API as its documentation describes it, and the sandbox's extensions.",
				`What carries \`${SANDBOX_MARK}\` is the sandbox's own decision where the documentation is silent (answer shapes, \`total\`, page limits, scopes) or a route the service does not have: clients must not depend on it where the real service may differ. A property the sandbox adds to a documented answer is optional here, since the service may not send it; the object's \`${SANDBOX_SENDS}\` names those the sandbox always sends.`,
				'Methods that only read accept GET (query string) and POST (JSON body); methods that change data accept POST only and answer 405 to other methods. An unknown path, or a method a route outside /api does not take, answers 404 `{code: "not_found"}`.',
				'Every call is checked against this document before its method runs: a request the document refuses is answered 422 (`missing_param` or `invalid_param`, with `param`), and the checks of the methods themselves only concern what a schema cannot say (what exists, rules across parameters, stored state).',
				...variantNote(options),
			].join('\n\n'),
		},
		servers: [{ url: '/api', description: 'The base URL: it ends in /api; every API path is relative to it.' }],
		security: [{ apiKey: [] }],
		tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
		paths,
		components: {
			securitySchemes: {
				apiKey: {
					type: 'apiKey',
					in: 'header',
					name: 'Authorization',
					description: 'The API key itself, without a prefix.',
				},
				accountKey: {
					type: 'apiKey',
					in: 'header',
					name: 'Authorization',
					description: withSandboxNote('The account key (every scope).', 'Sandbox control routes.'),
					[SANDBOX_MARK]: 'Sandbox control routes.',
				},
				consoleSession: {
					type: 'apiKey',
					in: 'header',
					name: 'X-Sandbox-Console',
					description: withSandboxNote(
						"The session of the sandbox's browser console, issued in its page; only with the sandbox's own Host and Origin.",
						'The console.',
					),
					[SANDBOX_MARK]: 'The console.',
				},
			},
			responses: errorResponses.components,
			schemas: {
				...componentSchemas,
				...Object.fromEntries(
					endpoints.map((endpoint) => [
						answerName(endpoint.path),
						shapedAnswer(endpoint.path, endpointContracts[endpoint.path].answer, options),
					]),
				),
			},
		},
	};
}

export type OpenApiDocument = ReturnType<typeof contractDocument>;
