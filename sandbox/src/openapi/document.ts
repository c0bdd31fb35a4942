import type { Endpoint } from '../api/endpoint';
import { componentSchemas } from './components';
import { endpointContracts, type ParamKind, type ParamSpec } from './endpoints';
import { outsideApiRoutes, type RouteContract } from './routes';
import { ref, SANDBOX_MARK, type Schema } from './schema';

export const OPENAPI_PATH = '/openapi.json';

const ERROR_RESPONSE = { $ref: '#/components/responses/Error' };

/** Parameters that are arrays or objects look the same in a JSON body and in a query string. */
const STRUCTURED: Partial<Record<ParamKind, Schema>> = {
  textOrList: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
  object: { type: 'object' },
  array: { type: 'array' },
};
/** Scalars in a JSON body: the sandbox takes them as strings, numbers or booleans alike. */
const BODY_SCALARS: Partial<Record<ParamKind, Schema>> = {
  text: { type: ['string', 'number', 'boolean'] },
  int: { type: ['integer', 'string'] },
  number: { type: ['number', 'string'] },
  bool: { type: ['boolean', 'string', 'integer'] },
};
const QUERY_SCALARS: Partial<Record<ParamKind, Schema>> = {
  text: { type: 'string' },
  int: { type: 'integer' },
  number: { type: 'number' },
  bool: { type: 'boolean' },
};

const bodySchema = (spec: ParamSpec): Schema => STRUCTURED[spec.kind] ?? BODY_SCALARS[spec.kind]!;
const querySchema = (spec: ParamSpec): Schema => STRUCTURED[spec.kind] ?? QUERY_SCALARS[spec.kind]!;

const marked = (spec: ParamSpec, schema: Schema): Schema => (spec.sandbox ? { ...schema, [SANDBOX_MARK]: spec.sandbox } : schema);

function requestBody(params: Record<string, ParamSpec>, optional: boolean) {
  const properties = Object.fromEntries(
    Object.entries(params).map(([name, spec]) => [name, { ...marked(spec, bodySchema(spec)), description: spec.description }]),
  );
  const required = Object.entries(params).filter(([, spec]) => spec.required).map(([name]) => name);
  return {
    required: !optional,
    content: {
      'application/json': {
        schema: { type: 'object', properties, ...(required.length > 0 ? { required } : {}) },
      },
    },
  };
}

function queryParameters(params: Record<string, ParamSpec>) {
  return Object.entries(params).map(([name, spec]) => ({
    name,
    in: 'query',
    required: spec.required,
    description: spec.description,
    schema: marked(spec, querySchema(spec)),
    ...(spec.kind === 'object' ? { style: 'deepObject', explode: true } : {}),
  }));
}

const camel = (path: string) =>
  path
    .split(/[/._-]+/)
    .filter(Boolean)
    .map((part, index) => (index === 0 ? part : part[0].toUpperCase() + part.slice(1)))
    .join('');

/** The name of a method's answer in components.schemas, e.g. SubscriberListAnswer. */
const answerName = (path: string) => {
  const name = camel(path);
  return `${name[0].toUpperCase()}${name.slice(1)}Answer`;
};

function apiPathItem(endpoint: Endpoint) {
  const contract = endpointContracts[endpoint.path];
  const hasRequired = Object.values(contract.params).some((spec) => spec.required);
  const base = {
    tags: [contract.tag],
    summary: contract.summary,
    'x-scope': endpoint.scope,
    ...(contract.extension ? { [SANDBOX_MARK]: contract.extension } : {}),
    responses: {
      '200': { description: 'Success', content: { 'application/json': { schema: ref(answerName(endpoint.path)) } } },
      '429': { $ref: '#/components/responses/RateLimited' },
      '4XX': ERROR_RESPONSE,
    },
  };
  const item: Record<string, unknown> = {
    post: { ...base, operationId: camel(endpoint.path), requestBody: requestBody(contract.params, !hasRequired) },
  };
  if (endpoint.methods === 'GET or POST') {
    item.get = { ...base, operationId: `${camel(endpoint.path)}ViaGet`, parameters: queryParameters(contract.params) };
  }
  return item;
}

function routePathItem(route: RouteContract) {
  const operation = {
    tags: [route.tag],
    summary: route.summary,
    operationId: camel(`${route.method} ${route.path}`.replace(/[{}]/g, '')),
    [SANDBOX_MARK]: route.extension,
    ...(route.security ? { security: route.security } : { security: [] }),
    ...(route.parameters ? { parameters: route.parameters } : {}),
    ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: route.body } } } } : {}),
    responses: {
      '200': route.answer === 'html' ? { description: 'An HTML page', content: { 'text/html': { schema: { type: 'string' } } } } : { description: 'Success', content: { 'application/json': { schema: route.answer } } },
      ...(route.errors ? { '4XX': ERROR_RESPONSE } : {}),
      ...route.otherResponses,
    },
  };
  return { [route.method]: operation };
}

/**
 * The sandbox's contract as an OpenAPI 3.1 document, built from the endpoint registry (paths, HTTP
 * methods, scopes) and the contract tables (parameters, answers). Fails when the two disagree, so a new
 * endpoint cannot be served without being documented.
 */
export function openApiDocument(endpoints: Endpoint[]) {
  const registered = new Set(endpoints.map((endpoint) => endpoint.path));
  const undocumented = [...registered].filter((path) => !endpointContracts[path]);
  const unknown = Object.keys(endpointContracts).filter((path) => !registered.has(path));
  if (undocumented.length > 0 || unknown.length > 0) {
    throw new Error(`OpenAPI contract and endpoint registry disagree: undocumented ${undocumented.join(', ') || 'none'}; not served ${unknown.join(', ') || 'none'}`);
  }
  const paths: Record<string, unknown> = {};
  for (const endpoint of [...endpoints].sort((a, b) => a.path.localeCompare(b.path))) paths[endpoint.path] = apiPathItem(endpoint);
  for (const route of outsideApiRoutes) {
    paths[route.path] = { ...(paths[route.path] as object), servers: [{ url: '/', description: 'The sandbox itself, outside /api' }], ...routePathItem(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Messenger Bot Builder API (sandbox)',
      version: '2.0',
      description: [
        'The messenger-bot builder service\'s HTTP API as its documentation describes it, and the sandbox\'s extensions.',
        `What carries \`${SANDBOX_MARK}\` is the sandbox's own decision where the documentation is silent (answer shapes, \`total\`, page limits, scopes) or a route the service does not have: clients must not depend on it where the real service may differ.`,
        'Methods that only read accept GET (query string) and POST (JSON body); methods that change data accept POST only and answer 405 to other methods. An unknown path, or a method a route outside /api does not take, answers 404 `{code: "not_found"}`.',
      ].join('\n\n'),
    },
    servers: [{ url: '/api', description: 'The base URL: it ends in /api; every API path is relative to it.' }],
    security: [{ apiKey: [] }],
    tags: ['Account', 'Keys', 'Subscribers', 'Messaging', 'CRM', 'Statistics', 'Lists', 'Catalog', 'Hooks', 'Sandbox', 'Console'].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The API key itself, without a prefix.' },
        accountKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The account key (every scope).', [SANDBOX_MARK]: 'Sandbox control routes.' },
        consoleSession: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Sandbox-Console',
          description: 'The session of the sandbox\'s browser console, issued in its page; only with the sandbox\'s own Host and Origin.',
          [SANDBOX_MARK]: 'The console.',
        },
      },
      responses: {
        Error: { description: 'An error', content: { 'application/json': { schema: ref('Error') } } },
        RateLimited: {
          description: 'Too many requests for this key; the request did nothing.',
          headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' }, [SANDBOX_MARK]: 'The header is the sandbox\'s.' } },
          content: { 'application/json': { schema: ref('Error') } },
        },
      },
      schemas: {
        ...componentSchemas,
        ...Object.fromEntries(endpoints.map((endpoint) => [answerName(endpoint.path), endpointContracts[endpoint.path].answer])),
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof openApiDocument>;
