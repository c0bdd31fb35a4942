/**
 * The parts of an OpenAPI document the tests read, as plain JSON (the document a sandbox builds or serves). The
 * members a test walks through are typed as present: where one is missing, reading on fails the test, as it should.
 */

/** A JSON Schema with the marks the sandbox's document carries. */
export interface SchemaNode {
	type: string | string[];
	enum: unknown[];
	required?: string[];
	properties: Record<string, SchemaNode>;
	items: SchemaNode;
	anyOf: SchemaNode[];
	allOf: SchemaNode[];
	not?: SchemaNode;
	$ref?: string;
	description?: string;
	'x-sandbox'?: string;
	'x-sandbox-sends': string[];
	'x-extensible-enum'?: string[];
	[keyword: string]: unknown;
}

export interface ParameterNode {
	name: string;
	in: string;
	required?: boolean;
	description?: string;
	schema: SchemaNode;
}

export interface ResponseNode {
	$ref?: string;
	description?: string;
	content: Record<string, { schema: SchemaNode }>;
	headers: Record<string, { schema?: SchemaNode }>;
}

export interface OperationNode {
	operationId?: string;
	description?: string;
	parameters: ParameterNode[];
	requestBody: { content: Record<string, { schema: SchemaNode }> };
	responses: Record<string, ResponseNode>;
	'x-sandbox'?: string;
	[member: string]: unknown;
}

export interface PathItemNode {
	get: OperationNode;
	post: OperationNode;
	servers?: { url: string }[];
}

export interface DocumentNode {
	openapi: string;
	info: { description: string; [member: string]: unknown };
	paths: Record<string, PathItemNode>;
	components: { schemas: Record<string, SchemaNode>; responses: Record<string, ResponseNode> };
}

/** A document as the tests read it: the sandbox's builder types its paths and schemas only loosely. */
export const asDocumentNode = (document: unknown): DocumentNode => document as DocumentNode;

/** Every object in `value` (depth first), with its JSON pointer. */
export function* objectsOf(value: unknown, at = ''): Generator<[string, SchemaNode]> {
	if (Array.isArray(value)) for (const [index, entry] of value.entries()) yield* objectsOf(entry, `${at}/${index}`);
	else if (value !== null && typeof value === 'object') {
		yield [at, value as SchemaNode];
		for (const [key, entry] of Object.entries(value))
			yield* objectsOf(entry, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
	}
}
