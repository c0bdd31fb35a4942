/**
 * The sandbox's rules the service's documentation does not state are marked `x-sandbox` where they apply, and said in
 * the description beside the mark: parameters it requires without the documentation's star, the "one of" groups it
 * requires, all-or-nothing changes, who may revoke a key, the checks that parameters agree (param_conflict), the URL
 * rules, closed button objects, distinct non-empty list columns and non-blank texts.
 */
import { modules } from '../src/api';
import { openApiDocument } from '../src';
import { asDocumentNode, objectsOf, type OperationNode, type SchemaNode } from './openapiDocument';

const document = asDocumentNode(openApiDocument(modules.flatMap((module) => module.endpoints)));

const apiOperations = (): [string, OperationNode][] =>
	Object.entries(document.paths)
		.filter(([, item]) => !item.servers)
		.map(([path, item]) => [path, item.post]);

const bodyOf = (path: string): SchemaNode => document.paths[path].post.requestBody.content['application/json'].schema;
/** A method's parameters with the required ones (inside the first allOf member when the method has rules). */
const parametersOf = (path: string): SchemaNode => bodyOf(path).allOf?.[0] ?? bodyOf(path);
const markOf = (path: string, name: string) => parametersOf(path).properties[name]['x-sandbox'] ?? '';

/** Every parameter the sandbox requires where the documentation's row names it without a star. */
const REQUIRED_BY_THE_SANDBOX = [
	'/crm/stage/set botid',
	'/crm/stage/set clientid',
	'/crm/stage/set stage',
	'/hook/create name',
	'/hook/create url',
	'/hook/create events',
	'/key/create name',
	'/key/create scopes',
	'/key/revoke id',
	'/list/create name',
	'/list/create headers',
	'/list/row/edit rowid',
	'/list/rows/add rows',
	'/stat/get from',
	'/stat/get to',
];

describe('the sandbox rules of the OpenAPI document are marked x-sandbox and said in their descriptions', () => {
	test('a parameter the documentation does not star and the sandbox requires', () => {
		const marked: string[] = [];
		for (const [path] of apiOperations()) {
			for (const name of parametersOf(path).required ?? []) {
				const mark = markOf(path, name);
				if (mark.includes('Required by the sandbox')) marked.push(`${path} ${name}`);
			}
		}
		expect(marked.sort()).toEqual([...REQUIRED_BY_THE_SANDBOX].sort());
		expect(parametersOf('/stat/get').properties.from.description).toMatch(/Sandbox: Required by the sandbox/);
	});

	test('the "one of" groups the documentation does not require, on their rule and in the description', () => {
		const groups: Record<string, string[]> = {
			'/list/clear': ['`listid` or `list`'],
			'/list/row/add': ['`listid` or `list`', '`row` or `values`'],
			'/list/rows/add': ['`listid` or `list`'],
			'/list/row/edit': ['`listid` or `list`', '`row` or `values`'],
			'/list/row/delete': ['`listid` or `list`', '`rowid` or `rowids`'],
			'/list/rows/find': ['`listid` or `list`', '`where` or `column` with `value`'],
		};
		for (const [path, expected] of Object.entries(groups)) {
			const rules = [...objectsOf(bodyOf(path))]
				.filter(([, node]) => Array.isArray(node.anyOf) && node.anyOf.every((branch) => branch.required))
				.map(([, node]) => node['x-sandbox']);
			expect([path, rules.map((rule) => /One of (.*) is required/.exec(rule ?? '')?.[1])]).toEqual([path, expected]);
			for (const rule of rules) expect(document.paths[path].post.description).toContain(`Sandbox: ${rule}`);
		}
		// The documentation stars these: no mark.
		for (const path of ['/list/rows/get', '/subscriber/get']) {
			const rules = [...objectsOf(bodyOf(path))].filter(
				([, node]) => Array.isArray(node.anyOf) && node.anyOf.every((branch) => branch.required) && node['x-sandbox'],
			);
			expect([path, rules]).toEqual([path, []]);
		}
	});

	test('all-or-nothing changes, the agreement checks (param_conflict), the URL rules and list columns', () => {
		for (const [path, name] of [
			['/list/row/delete', 'rowids'],
			['/list/rows/add', 'rows'],
			['/catalog/item/bulk/create', 'items'],
			['/catalog/item/bulk/edit', 'items'],
			['/catalog/item/bulk/delete', 'items'],
		])
			expect([path, name, markOf(path, name)]).toEqual([path, name, expect.stringContaining('All or nothing')]);
		for (const [path, name] of [
			['/list/clear', 'listid'],
			['/list/rows/get', 'list'],
			['/list/row/add', 'values'],
			['/list/row/edit', 'values'],
			['/list/rows/add', 'rows'],
			['/subscriber/get', 'subscriber'],
			['/subscriber/create', 'messenger'],
			['/subscriber/data/get', 'chaincode'],
			['/subscriber/data/set', 'chaincode'],
			['/block/start', 'chaincode'],
			['/chain/start', 'chaincode'],
			['/chain/stop', 'chaincode'],
			['/catalog/item/bulk/edit', 'items'],
			['/catalog/item/bulk/delete', 'items'],
		])
			expect([path, name, markOf(path, name)]).toEqual([path, name, expect.stringContaining('422 param_conflict')]);
		// Every param_conflict rule an operation states is marked on one of its parameters.
		for (const [path, operation] of apiOperations()) {
			if (!operation.description?.includes('param_conflict')) continue;
			const marks = Object.values(parametersOf(path).properties).map((schema) => schema['x-sandbox'] ?? '');
			expect([path, marks.some((mark) => mark.includes('param_conflict'))]).toEqual([path, true]);
		}
		expect(markOf('/hook/create', 'url')).toMatch(/absolute http or https URL/);
		const button = parametersOf('/message/send').properties.buttons.items;
		expect([button.additionalProperties, button['x-sandbox']]).toEqual([false, expect.stringMatching(/nothing else/)]);
		expect(button.properties.url['x-sandbox']).toMatch(/absolute http or https URL/);
		expect(markOf('/list/create', 'headers')).toMatch(/each named once/);
	});

	test('who may revoke a key: on `id` and in the 403 answer, which names not_creator', () => {
		expect(markOf('/key/revoke', 'id')).toMatch(/403 not_creator/);
		const name = String(document.paths['/key/revoke'].post.responses['403'].$ref).split('/').pop() ?? '';
		const answer = document.components.responses[name] as unknown as { description: string; 'x-sandbox': string };
		expect(answer.description).toMatch(/`not_creator`/);
		expect(answer.description).toContain(`Sandbox: ${answer['x-sandbox']}`);
	});

	test('every non-blank text of a request is marked (a pattern that needs a character other than white space)', () => {
		let count = 0;
		for (const [path, operation] of apiOperations()) {
			// The parameters' own schemas (the rule groups repeat them, bare, to say which are required together).
			const schemas = [
				parametersOf(path).properties,
				...(operation.parameters ?? []).map((parameter) => ({ ...parameter.schema, in: parameter.in })),
			];
			for (const [at, node] of objectsOf(schemas)) {
				// Not blank: the pattern needs a character other than white space (alone, or before a length).
				if (node.pattern !== '\\S' && !String(node.pattern).startsWith('^(?=[\\s\\S]*\\S)')) continue;
				count++;
				expect([path, at, node['x-sandbox']]).toEqual([path, at, expect.stringContaining('Not blank')]);
			}
		}
		expect(count).toBeGreaterThan(90);
	});
});
