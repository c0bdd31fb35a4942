import type { Endpoint } from '../api/endpoint';
import type { ContractOptions } from './contractOptions';
import { endpointContracts, type EndpointContract } from './endpoints';
import { REVOCATION_RULE } from './endpoints/keys';
import { bodyErrors, internalError, type ErrorResponses } from './errorResponses';
import { exclusiveNote, headerParameters, queryParameters, requestBody } from './request';
import type { RouteContract } from './routes';
import { ref, SANDBOX_MARK, type Schema, withSandboxNote } from './schema';

/** An operationId: the path's words in camelCase, e.g. accountBalanceGet. */
const camel = (path: string) =>
	path
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean)
		.map((part, index) => (index === 0 ? part : part[0].toUpperCase() + part.slice(1)))
		.join('');

/** The name of a method's answer in components.schemas, e.g. SubscriberListAnswer. */
export const answerName = (path: string) => {
	const name = camel(path);
	return `${name[0].toUpperCase()}${name.slice(1)}Answer`;
};

/** An API method's description: what it does, its rules, the sandbox's notes on them and its scope. */
function operationDescription(endpoint: Endpoint, contract: EndpointContract): string {
	return [
		contract.description,
		contract.rules,
		...(contract.needsNotes ?? []).filter(Boolean).map((note) => `Sandbox: ${note}`),
		...(contract.exclusive ?? []).map((pair) => `Sandbox: ${exclusiveNote(pair)}`),
		`Scope: \`${endpoint.scope}\`.`,
	]
		.filter(Boolean)
		.join(' ');
}

/** The headers of a 429 answer under `--retry-after`: none, or the sandbox's Retry-After. */
function rateLimitHeaders(options: ContractOptions): Record<string, unknown> | undefined {
	return options.retryAfter === 'none'
		? undefined
		: {
				'Retry-After': {
					description: withSandboxNote('Seconds to wait.', "The header is the sandbox's."),
					schema: { type: 'integer', minimum: 1 },
					[SANDBOX_MARK]: "The header is the sandbox's.",
				},
			};
}

/** What a 403 means, naming each code the method adds beyond the scope and the bot. */
const FORBIDDEN_CODES: Record<string, string> = {
	bot_forbidden: '`bot_forbidden`: it may not touch the bot.',
	not_creator: '`not_creator`: it may not revoke that key.',
};

/** The sandbox's own rule behind a 403 code, marked on the answer. */
const FORBIDDEN_RULES: Record<string, string> = { not_creator: REVOCATION_RULE };

function forbidden(codes: string[], errorResponses: ErrorResponses): Schema {
	const description = [
		'The key lacks the scope (`forbidden`, `scope` names it).',
		...codes.map((code) => FORBIDDEN_CODES[code]),
	]
		.filter(Boolean)
		.join(' ');
	const rules = codes.map((code) => FORBIDDEN_RULES[code]).filter(Boolean);
	return errorResponses.ref('403', description, ['forbidden', ...codes], undefined, rules.join(' ') || undefined);
}

/** The answers of an API method: its own, the refusals of every method, and the ones its contract adds. */
function apiResponses(
	endpoint: Endpoint,
	contract: EndpointContract,
	options: ContractOptions,
	errorResponses: ErrorResponses,
): Record<string, unknown> {
	const errors = contract.errors ?? {};
	const isRead = endpoint.scope.endsWith(':read');
	return {
		'200': { description: 'Success', content: { 'application/json': { schema: ref(answerName(endpoint.path)) } } },
		...bodyErrors(errorResponses),
		'401': errorResponses.ref('401', 'No API key, or an unknown, revoked or expired one.', ['unauthorized']),
		'403': forbidden(errors[403] ?? [], errorResponses),
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
			rateLimitHeaders(options),
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
}

/** An API method's path item: POST with a JSON body, and for methods that only read, GET with a query string. */
export function apiPathItem(endpoint: Endpoint, options: ContractOptions, errorResponses: ErrorResponses) {
	const contract = endpointContracts[endpoint.path];
	const description = operationDescription(endpoint, contract);
	/** The operation's description and, for the sandbox's extensions and its own reading of the HTTP methods, its `x-sandbox` (said in the description too). */
	const operationText = (method: 'get' | 'post') => {
		const note = [contract.extension, contract.methodsNote?.method === method ? contract.methodsNote.note : undefined]
			.filter(Boolean)
			.join(' ');
		return note ? { description: withSandboxNote(description, note), [SANDBOX_MARK]: note } : { description };
	};
	const responses = apiResponses(endpoint, contract, options, errorResponses);
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
		// A query string has no body to be too large or in an unsupported charset.
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

/** A route outside /api (the sandbox's own and the console's): one operation, marked as the sandbox's. */
export function routePathItem(route: RouteContract, errorResponses: ErrorResponses) {
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
