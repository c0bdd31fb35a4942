import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { modules } from '../src/api';
import { directory } from '../src/domain/directory';
import { openApiDocument } from '../src';
import { AnswerChecker } from './answerChecker';
import { asDocumentNode, objectsOf, type DocumentNode, type SchemaNode } from './openapiDocument';
import { openSandbox } from './client';
import { DOCUMENTED_METHODS, EXTENSION_METHODS } from './contractCases';

const endpoints = modules.flatMap((module) => module.endpoints);
const generated = () => asDocumentNode(openApiDocument(endpoints));
/** The name in components.responses of the answer `path` gives with `status`. */
const responseName = (path: string, status: string) =>
	String(generated().paths[path].post.responses[status].$ref).split('/').pop();

/** Where the documentation's tables name one HTTP method and the sandbox takes the other too (or follows a table against the POST-only rule). */
const POST_BY_THE_SANDBOX = ['/crm/board', '/stat/get'];
const GET_BY_THE_SANDBOX = ['/bot/list', '/list/rows/find', '/webapp/delete'];

describe('the OpenAPI document', () => {
	test('is a valid OpenAPI 3.1 document (swagger-parser), and the validator refuses a broken one', async () => {
		const api = await SwaggerParser.validate(structuredClone(generated()) as never);
		expect((api as { openapi: string }).openapi).toBe('3.1.0');

		const broken = structuredClone(generated());
		broken.paths['/subscriber/get'].post.responses['200'].content['application/json'].schema = {
			$ref: '#/components/schemas/NoSuchSchema',
		} as SchemaNode;
		await expect(SwaggerParser.validate(broken as never)).rejects.toThrow(/NoSuchSchema/);
	});

	test('the copy kept in the repository is the document the sandbox generates (npm run openapi -w sandbox)', () => {
		const committed = JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8'));
		expect(committed).toEqual(JSON.parse(JSON.stringify(generated())));
	});

	test('has every method of the registry with its HTTP methods; extensions and only they are marked x-sandbox', () => {
		const paths = generated().paths;
		const expected = { ...DOCUMENTED_METHODS, ...EXTENSION_METHODS };
		expect(Object.keys(expected).sort()).toEqual(endpoints.map((endpoint) => endpoint.path).sort());
		for (const [path, methods] of Object.entries(expected)) {
			const item = paths[path];
			expect([
				path,
				Object.keys(item)
					.filter((key) => key === 'get' || key === 'post')
					.sort(),
			]).toEqual([path, methods === 'GET or POST' ? ['get', 'post'] : ['post']]);
			const marked = item.post['x-sandbox'] !== undefined;
			expect([path, marked]).toEqual([path, path in EXTENSION_METHODS || POST_BY_THE_SANDBOX.includes(path)]);
			if (item.get)
				expect([path, item.get['x-sandbox'] !== undefined]).toEqual([
					path,
					path in EXTENSION_METHODS || GET_BY_THE_SANDBOX.includes(path),
				]);
		}
		// Everything outside /api is the sandbox's own.
		const outside = Object.entries(paths).filter(([, item]) => item.servers);
		expect(outside.length).toBeGreaterThanOrEqual(8);
		for (const [path, item] of outside) {
			for (const method of (['get', 'post'] as const).filter((name) => item[name]))
				expect([path, typeof item[method]['x-sandbox']]).toEqual([path, 'string']);
		}
	});

	test("the spec's gaps are marked: total of /subscriber/find, the page maximum, undocumented answer shapes", () => {
		const document = generated();
		const schemas = document.components.schemas;
		expect(schemas.SubscriberFindAnswer.properties.total['x-sandbox']).toEqual(expect.any(String));
		expect(schemas.SubscriberListAnswer.properties.total['x-sandbox']).toBeUndefined();
		expect(schemas.AccountBalanceGetAnswer['x-sandbox']).toBeUndefined();
		expect(schemas.CrmBoardAnswer['x-sandbox']).toEqual(expect.any(String));
		// The card's fields beyond its identity are named, not promised for every card: optional, always sent by the sandbox.
		expect([schemas.Subscriber.required, schemas.Subscriber['x-sandbox-sends'].slice(0, 7)]).toEqual([
			['botid', 'clientid', 'messenger'],
			['name', 'username', 'note', 'tags', 'active', 'blocked', 'dialog'],
		]);
		// Error codes: only list_exists is the documentation's.
		const codeOf = (path: string, status: string) => {
			const name = (document.paths[path].post.responses[status].$ref as string).split('/').pop()!;
			return document.components.responses[name].content['application/json'].schema.allOf[1].properties.code;
		};
		expect(codeOf('/subscriber/get', '422')['x-sandbox']).toMatch(/names only `list_exists`/);
		expect(codeOf('/list/create', '422')['x-extensible-enum']).toContain('list_exists');
		// "rows" for /list/rows/find: a bare array or a page; total is the sandbox's.
		const rows = { type: 'array', items: { $ref: '#/components/schemas/Row' } };
		expect(schemas.ListRowsFindAnswer.anyOf.map((branch) => [branch.type, branch.required ?? null])).toEqual([
			['array', null],
			['object', ['items']],
		]);
		expect(schemas.ListRowsFindAnswer.anyOf[0]).toEqual(rows);
		expect(schemas.ListRowsFindAnswer.anyOf[1].properties.items).toEqual(rows);
		const limit = document.paths['/subscriber/list'].get.parameters.find(
			(parameter: { name: string }) => parameter.name === 'limit',
		);
		expect(limit?.schema['x-sandbox']).toMatch(/at most 1000/);
	});
});

const jsonType = (value: unknown) => (value === null ? 'null' : Number.isInteger(value) ? 'integer' : typeof value);

/** The bounds the service's documentation states: 500 rows a request; a response status is an HTTP status. */
const DOCUMENTED_BOUNDS = ['/list/rows/add rows', '/log/get status'];

describe('the OpenAPI document as generators read it', () => {
	const document = generated();
	const operations = () =>
		Object.entries(document.paths).flatMap(([path, item]) =>
			(['get', 'post'] as const)
				.filter((method) => item[method])
				.map((method) => ({ path, method, operation: item[method] })),
		);

	test('no enum mixes JSON types (kubb makes one TypeScript enum of each, and true and "true" become the same key)', () => {
		const mixed = [...objectsOf(document)]
			.filter(([, node]) => Array.isArray(node.enum) && new Set(node.enum.map(jsonType)).size > 1)
			.map(([at]) => at);
		expect(mixed).toEqual([]);
		const active = document.paths['/subscriber/list'].get.parameters.find(
			(parameter: { name: string }) => parameter.name === 'active',
		)?.schema;
		expect(active?.anyOf).toEqual([
			{ type: 'boolean' },
			{ type: 'string', enum: ['true', 'false', '1', '0'] },
			{ type: 'integer', enum: [1, 0] },
		]);
	});

	test("no property sits beside an allOf, and no allOf has more than two members (openapi-zod-client drops the one, @hey-api's zod plugin writes z.intersection with n arguments for the other)", () => {
		const nodes = [...objectsOf(document)].filter(([, node]) => Array.isArray(node.allOf));
		expect(nodes.length).toBeGreaterThan(10);
		expect(
			nodes
				.filter(([, node]) => node.properties !== undefined || node.required !== undefined || node.allOf.length > 2)
				.map(([at]) => at),
		).toEqual([]);
		// /list/rows/add keeps `rows` in an allOf member.
		const rowsAdd = document.paths['/list/rows/add'].post.requestBody.content['application/json'].schema;
		expect([Object.keys(rowsAdd.allOf[0].properties), rowsAdd.allOf[0].required]).toEqual([
			['listid', 'list', 'rows', 'clientid', 'messenger', 'botid'],
			['rows'],
		]);
	});

	test('every x-sandbox mark is said in the description beside it, which generated code and docs keep', () => {
		const marks = [...objectsOf(document)].filter(([, node]) => typeof node['x-sandbox'] === 'string');
		expect(marks.length).toBeGreaterThan(100);
		const unsaid = marks
			.filter(
				([, node]) =>
					typeof node.description !== 'string' || !node.description.includes(`Sandbox: ${node['x-sandbox']}`),
			)
			.map(([at]) => at);
		expect(unsaid).toEqual([]);
	});

	test("every bound of a request parameter the documentation does not state is marked: the description says it is the sandbox's", () => {
		const BOUNDS = ['maxLength', 'maxItems', 'maximum'];
		const found: string[] = [];
		for (const { path, method, operation } of operations()) {
			if (document.paths[path].servers) continue; // the sandbox's own routes outside /api
			const body = operation.requestBody?.content['application/json'].schema;
			const parameters = [
				...Object.entries(body?.allOf?.[0]?.properties ?? body?.properties ?? {}),
				...(operation.parameters ?? []).map((parameter) => [
					parameter.name,
					{ ...parameter.schema, description: parameter.description },
				]),
			];
			for (const [name, schema] of parameters as [string, SchemaNode][]) {
				const bounded = [...objectsOf(schema)].some(([, node]) => BOUNDS.some((bound) => node[bound] !== undefined));
				if (!bounded || DOCUMENTED_BOUNDS.includes(`${path} ${name}`)) continue;
				found.push(`${method} ${path} ${name}`);
				expect([path, name, schema.description]).toEqual([
					path,
					name,
					expect.stringMatching(/Sandbox: .*(not documented|does not state)/),
				]);
				expect([path, name, schema['x-sandbox']]).toEqual([path, name, expect.any(String)]);
			}
		}
		// The bounds the issue counted among others: text 4096, 10 buttons, tag 100, hook URL 2048, 500 items, key days, page size.
		for (const expected of [
			'post /message/send text',
			'post /message/send buttons',
			'post /subscriber/tag/add tag',
			'post /hook/create url',
			'post /catalog/item/bulk/create items',
			'post /key/create days',
			'get /subscriber/list limit',
			'post /list/row/add Idempotency-Key',
		]) {
			expect(found).toContain(expected);
		}
	});

	test('closed lists, "not both" rules, paging and parameters the documentation does not name are marked', () => {
		const bodyOf = (path: string) => document.paths[path].post.requestBody.content['application/json'].schema;
		const propertiesOf = (path: string) => bodyOf(path).allOf?.[0].properties ?? bodyOf(path).properties;
		expect(propertiesOf('/hook/create').events.description).toMatch(/Sandbox: .*full list of kinds is not shown/);
		expect(propertiesOf('/key/create').scopes.description).toMatch(/Sandbox: .*does not show the others/);
		for (const [path, first, second] of [
			['/list/row/add', 'row', 'values'],
			['/list/row/edit', 'row', 'values'],
			['/list/row/delete', 'rowid', 'rowids'],
			['/list/rows/find', 'where', 'column'],
		]) {
			expect(document.paths[path].post.description).toContain(
				`Sandbox: \`${first}\` and \`${second}\` together are refused`,
			);
			const rule = [...objectsOf(bodyOf(path))].find(
				([, node]) => node.not?.required?.join() === `${first},${second}`,
			)?.[1];
			expect(rule?.['x-sandbox']).toMatch(/without saying whether both may be given/);
		}
		expect(propertiesOf('/crm/board').botid['x-sandbox']).toMatch(/names no parameters for \/crm\/board/);
		for (const name of ['clientid', 'messenger', 'botid'])
			expect(propertiesOf('/list/rows/add')[name]['x-sandbox']).toMatch(/for \/list\/row\/add only/);
		for (const name of ['sort', 'offset', 'limit'])
			expect([name, propertiesOf('/list/rows/find')[name].description]).toEqual([
				name,
				expect.stringMatching(/Sandbox: /),
			]);
		expect(document.paths['/list/rows/find'].post.description).toMatch(
			/Sandbox: the sandbox answers them a page at a time \(`limit`, default 20/,
		);
	});

	test('every operation documents a 500 `internal` answer, as one shared response', () => {
		const all = operations();
		expect(all.length).toBeGreaterThan(80);
		expect(
			all
				.filter(({ operation }) => operation.responses['500']?.$ref !== '#/components/responses/Status500Internal')
				.map(({ method, path }) => `${method} ${path}`),
		).toEqual([]);
		expect(
			document.components.responses.Status500Internal.content['application/json'].schema.allOf[1].properties.code[
				'x-extensible-enum'
			],
		).toEqual(['internal']);
	});
});

describe('the served document follows the flags the sandbox was started with', () => {
	async function served(options: Parameters<typeof openSandbox>[0]) {
		const { sandbox, close } = await openSandbox(options);
		try {
			return asDocumentNode(await (await fetch(`${sandbox.url}/openapi.json`)).json());
		} finally {
			await close();
		}
	}
	const limitOf = (document: DocumentNode) =>
		document.paths['/list/rows/get'].get.parameters.find((parameter: { name: string }) => parameter.name === 'limit')
			?.schema;
	const responseOf = (document: DocumentNode, path: string, status: string) => {
		const ref = document.paths[path].get.responses[status]?.$ref as string | undefined;
		return ref ? document.components.responses[ref.split('/').pop()!] : undefined;
	};

	test('list shapes, totals, page caps, injected 503s and Retry-After', async () => {
		const plain = await served({});
		expect(plain.components.schemas.ListRowsGetAnswer.required).toEqual(['items', 'total']);
		expect(limitOf(plain)?.anyOf[0]).toEqual({ type: 'integer', minimum: 1, maximum: 1000 });
		expect(
			responseOf(plain, '/account/balance/get', '503')?.content['application/json'].schema.allOf[1].properties.code[
				'x-extensible-enum'
			],
		).toEqual(['stopping']);
		expect(Object.keys(responseOf(plain, '/account/balance/get', '429')?.headers ?? {})).toEqual(['Retry-After']);

		const variant = await served({
			listShape: 'named',
			omitTotal: true,
			maxPage: 50,
			maxPageMode: 'reject',
			failReads: 0.2,
			retryAfter: 'none',
		});
		expect(variant.info.description).toContain(
			'This sandbox runs with --max-page 50 --max-page-mode reject --omit-total --list-shape named --fail-reads 0.2 --retry-after none',
		);
		expect(plain.info.description).not.toContain('This sandbox runs with');
		expect(variant.components.schemas.ListRowsGetAnswer.required).toEqual(['rows']);
		expect(variant.components.schemas.ListRowsFindAnswer.anyOf[1].required).toEqual(['rows']);
		expect(variant.components.schemas.SubscriberListAnswer.properties.subscribers.items).toEqual({
			$ref: '#/components/schemas/Subscriber',
		});
		expect(limitOf(variant)?.anyOf[0]).toEqual({ type: 'integer', minimum: 1, maximum: 50 });
		expect(
			responseOf(variant, '/account/balance/get', '503')?.content['application/json'].schema.allOf[1].properties.code[
				'x-extensible-enum'
			],
		).toEqual(['unavailable', 'stopping']);
		// Writes never meet the injected 503s.
		expect(variant.paths['/list/create'].post.responses['503'].$ref).toBe(
			plain.paths['/list/create'].post.responses['503'].$ref,
		);
		expect(responseOf(variant, '/account/balance/get', '429')?.headers).toBeUndefined();

		const bare = await served({ listShape: 'bare', maxPage: 50, maxPageMode: 'cap' });
		expect(bare.components.schemas.ListRowsGetAnswer).toEqual(
			expect.objectContaining({ type: 'array', items: { $ref: '#/components/schemas/Row' } }),
		);
		expect(bare.components.schemas.ListRowsFindAnswer).toEqual(
			expect.objectContaining({ type: 'array', items: { $ref: '#/components/schemas/Row' } }),
		);
		// Capped pages: any larger limit is served at the cap, so the document bounds it below only.
		expect(limitOf(bare)?.anyOf[0]).toEqual({ type: 'integer', minimum: 1 });
	});
});

describe('GET /openapi.json and the answer checker', () => {
	test('the sandbox serves the document', async () => {
		const { sandbox, close } = await openSandbox();
		try {
			const response = await fetch(`${sandbox.url}/openapi.json`);
			expect(response.status).toBe(200);
			expect(await response.json()).toEqual(JSON.parse(JSON.stringify(generated())));
		} finally {
			await close();
		}
	});

	test('a field the sandbox adds to a documented answer is optional in the contract (the service may not send it), and the sandbox is held to sending it', () => {
		const schemas = (
			generated().components as unknown as {
				schemas: Record<string, { required: string[]; 'x-sandbox-sends'?: string[] }>;
			}
		).schemas;
		// The service documents {items} for /subscriber/find; total is the sandbox's.
		expect([schemas.SubscriberFindAnswer.required, schemas.SubscriberFindAnswer['x-sandbox-sends']]).toEqual([
			['items'],
			['total'],
		]);
		// The service documents {link, notice} for a catalog link; expires is the sandbox's.
		expect([schemas.CatalogGetAnswer.required, schemas.CatalogGetAnswer['x-sandbox-sends']]).toEqual([
			['link', 'notice'],
			['expires'],
		]);
		const checker = new AnswerChecker();
		const find = {
			method: 'GET',
			path: '/api/subscriber/find',
			status: 200,
			body: { items: [] as unknown[], total: 0 },
		};
		expect(checker.check(find)).toBeUndefined();
		expect(checker.check({ ...find, body: { items: [] } })).toMatch(/must have required property 'total'/);
	});

	test('a validator built from the published document takes answers with fields and values it does not name (the service may send more); the sandbox is held to the closed view', () => {
		const ajv = new Ajv2020({ strict: false, allErrors: true });
		addFormats(ajv);
		ajv.addSchema(generated() as object, 'published');
		const valid = (schema: string, body: unknown) => {
			const validate = ajv.getSchema(`published#/components/schemas/${schema}`)!;
			return validate(body) ? 'valid' : ajv.errorsText(validate.errors);
		};
		const message = {
			id: 1,
			direction: 'out',
			text: 'Hi',
			buttons: [{ name: 'Open', url: 'https://example.com' }],
			source: 'api',
			origin: null,
			time: '2026-01-01T00:00:00Z',
		};
		expect(valid('ChatMessage', message)).toBe('valid');
		expect(
			valid('ChatMessage', {
				...message,
				source: 'autoresponder',
				attachments: [],
				buttons: [{ name: 'Open', url: 'https://example.com', kind: 'url' }],
			}),
		).toBe('valid');
		const hook = {
			id: 'hook_1',
			name: 'Orders',
			url: 'https://example.com/hooks',
			events: ['subscriber.new', 'subscriber.unsubscribed'],
			created: '2026-01-01T00:00:00Z',
		};
		expect(valid('Hook', hook)).toBe('valid');
		// What it names it still holds to: types and required fields.
		expect(valid('ChatMessage', { ...message, source: 5 })).toMatch(/source must be string/);
		expect(valid('Hook', { ...hook, events: undefined })).toMatch(/must have required property 'events'/);
		expect(valid('AccountBalanceGetAnswer', { balance: '5' })).toMatch(/balance must be integer/);
		// An error code the document does not list, on a status it does.
		const unavailable = ajv.getSchema(
			`published#/components/responses/${responseName('/account/balance/get', '503')}/content/application~1json/schema`,
		)!;
		expect(unavailable({ code: 'maintenance', error: 'Back soon' })).toBe(true);

		const checker = new AnswerChecker();
		expect(
			checker.check({
				method: 'POST',
				path: '/api/subscriber/chat/get',
				status: 200,
				body: { items: [message], total: 1 },
			}),
		).toBeUndefined();
		expect(
			checker.check({
				method: 'POST',
				path: '/api/subscriber/chat/get',
				status: 200,
				body: { items: [{ ...message, source: 'autoresponder' }], total: 1 },
			}),
		).toMatch(/source must be equal to one of the allowed values/);
		expect(
			checker.check({
				method: 'POST',
				path: '/api/subscriber/chat/get',
				status: 200,
				body: { items: [{ ...message, attachments: [] }], total: 1 },
			}),
		).toMatch(/additional properties/);
		expect(
			checker.check({
				method: 'GET',
				path: '/api/account/balance/get',
				status: 503,
				body: { code: 'maintenance', error: 'Back soon' },
			}),
		).toMatch(/code must be equal to one of the allowed values/);
	});

	test('the checker refuses a wrong type, a missing or extra field, an undocumented path or status', () => {
		const checker = new AnswerChecker();
		const ok = { method: 'GET', path: '/api/account/balance/get', status: 200, body: { balance: 5 } };
		expect(checker.check(ok)).toBeUndefined();
		expect(checker.check({ ...ok, body: { balance: '5' } })).toMatch(/balance must be integer/);
		expect(checker.check({ ...ok, body: {} })).toMatch(/must have required property 'balance'/);
		expect(checker.check({ ...ok, body: { balance: 5, extra: 1 } })).toMatch(/additional properties/);
		expect(checker.check({ ...ok, status: 418, body: { code: 'teapot', error: 'x' } })).toMatch(
			/status is not in the OpenAPI document/,
		);
		expect(checker.check({ ...ok, status: 500, body: { code: 'internal', error: 'Internal error' } })).toMatch(
			/the sandbox failed \(500\)/,
		);
		expect(checker.check({ ...ok, status: 422, body: { error: 'no code' } })).toMatch(/required property 'code'/);
		expect(checker.check({ ...ok, path: '/sandbox/unknown', status: 200, body: {} })).toMatch(
			/path is not in the OpenAPI document/,
		);
		expect(
			checker.check({
				...ok,
				path: '/api/nope',
				status: 404,
				body: { code: 'not_found', error: 'Unknown method /nope' },
			}),
		).toBeUndefined();
		const attempt = { n: 1, id: 'att_1', at: '2026-01-01T00:00:00.000Z', status: 200, error: null, durationMs: 1 };
		const delivery = {
			id: 'dlv_1',
			hook: 'hook_1',
			status: 'sent',
			event: { id: 'e', type: 't', created: attempt.at, hook: 'hook_1', data: {} },
			nextAttempt: null,
			attempts: [attempt],
			outcome: null,
		};
		const page = { method: 'POST', path: '/api/hook/deliveries', status: 200, body: { items: [delivery], total: 1 } };
		expect(checker.check(page)).toMatch(/status must be equal to one of the allowed values/);
		expect(
			checker.check({ ...page, body: { items: [{ ...delivery, status: 'delivered' }], total: 1 } }),
		).toBeUndefined();
		// The API's history never shows the headers sent (signatures): only the control routes do.
		const sent = { ...attempt, headers: { 'x-signature': 'a.b.c' } };
		expect(
			checker.check({ ...page, body: { items: [{ ...delivery, status: 'delivered', attempts: [sent] }], total: 1 } }),
		).toMatch(/additional properties/);
		const full = {
			...delivery,
			status: 'delivered',
			type: 'subscriber.new',
			created: attempt.at,
			body: '{}',
			chaos: [],
			attempts: [{ ...sent, latencyMs: 1, schemes: ['jwt-HS256'], responseBody: '' }],
		};
		const control = { method: 'GET', path: '/sandbox/deliveries', status: 200, body: { items: [full], total: 1 } };
		expect(checker.check(control)).toBeUndefined();
		expect(checker.check({ ...control, body: { items: [{ ...full, attempts: [sent] }], total: 1 } })).toMatch(
			/required property 'latencyMs'/,
		);
	});

	test('a sandbox that answers outside the document fails the test that closes it', async () => {
		const { sandbox, api, close, violations } = await openSandbox();
		expect((await api.get('/account/balance/get')).status).toBe(200);
		expect(violations).toEqual([]);
		(directory(sandbox.context.store) as { balance: unknown }).balance = 'lots';
		const wrong = await api.get('/account/balance/get');
		expect(wrong.body).toEqual({ balance: 'lots' });
		expect(violations).toEqual([
			expect.stringMatching(/^GET \/api\/account\/balance\/get → 200: \/balance must be integer/),
		]);
		await expect(close()).rejects.toThrow(/outside its OpenAPI document/);
	});
});
