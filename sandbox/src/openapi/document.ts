import type { Endpoint } from '../api/endpoint';
import { SANDBOX_READING } from '../config';
import { MAX_PAGE_SIZE } from '../http/params';
import { componentSchemas } from './components';
import type { ContractOptions } from './contractOptions';
import { endpointContracts } from './endpoints';
import { ErrorResponses } from './errorResponses';
import { shapedAnswer } from './listShape';
import { answerName, apiPathItem, routePathItem } from './pathItems';
import { publishedView } from './publishedView';
import { outsideApiRoutes } from './routes';
import { SANDBOX_MARK, SANDBOX_SENDS, sandboxSendsEveryExtra, withSandboxNote } from './schema';

export type { ContractOptions } from './contractOptions';

export const OPENAPI_PATH = '/openapi.json';

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
