import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { openApiDocument, type OpenApiDocument, type RunningSandbox, type SentAnswer } from '../src';
import { modules } from '../src/api';
import { playsVariant } from '../src/config';

const DOCUMENT_ID = 'sandbox-openapi.json';

type Operation = { responses: Record<string, { $ref?: string; content?: Record<string, { schema?: unknown }> }> };
type PathItem = Partial<Record<'get' | 'post', Operation>>;

const pointer = (...parts: string[]) => parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * Checks answers against the sandbox's OpenAPI document with ajv (JSON Schema 2020-12): finds the
 * operation by HTTP method and path, the response by status (exact, then `4XX`, then `default`), and
 * validates the body. An answer on a path or status the document does not have is a violation too.
 */
export class AnswerChecker {
	private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
	private readonly compiled = new Map<string, ValidateFunction>();
	private readonly apiPaths: Map<string, PathItem>;
	private readonly otherPaths: { pattern: RegExp; path: string; item: PathItem }[];

	constructor(
		readonly document: OpenApiDocument = openApiDocument(
			modules.flatMap((module) => module.endpoints),
			undefined,
			'sandbox',
		),
	) {
		this.ajv.addFormat(
			'date-time',
			(value: string) =>
				/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value) && !Number.isNaN(Date.parse(value)),
		);
		// The sandbox view: closed objects and value sets, and every field the sandbox adds required.
		this.ajv.addSchema(document as object, DOCUMENT_ID);
		const paths = document.paths as Record<string, PathItem & { servers?: unknown }>;
		this.apiPaths = new Map(Object.entries(paths).filter(([, item]) => !item.servers));
		this.otherPaths = Object.entries(paths)
			.filter(([, item]) => item.servers)
			.map(([path, item]) => ({
				path,
				item,
				pattern: new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
			}));
	}

	/** Undefined when the answer conforms; otherwise what is wrong with it. */
	check(answer: SentAnswer): string | undefined {
		const where = `${answer.method} ${answer.path} → ${answer.status}`;
		const found = this.find(answer);
		if (!found) {
			// The document states it once for every path: an unknown path answers 404 not_found.
			if (answer.status === 404) return this.validate(pointer('components', 'schemas', 'Error'), answer.body, where);
			return `${where}: the path is not in the OpenAPI document`;
		}
		const operation = found.item[answer.method.toLowerCase() as 'get' | 'post'];
		if (!operation) {
			// Under /api a method a path does not take answers 405; elsewhere no route matches: 404 like an unknown path.
			if (answer.status === 405 || answer.status === 404)
				return this.validate(pointer('components', 'schemas', 'Error'), answer.body, where);
			return `${where}: the method is not in the OpenAPI document`;
		}
		const status = String(answer.status);
		// The document allows a 500 on every operation (a fault of the sandbox's own); in its tests one is always a bug.
		if (status === '500') return `${where}: the sandbox failed (500): ${JSON.stringify(answer.body).slice(0, 300)}`;
		const key = [status, `${status[0]}XX`, 'default'].find((candidate) => operation.responses[candidate]);
		if (!key) return `${where}: the status is not in the OpenAPI document`;
		let location = ['paths', found.path, answer.method.toLowerCase(), 'responses', key];
		let response = operation.responses[key];
		if (response.$ref) {
			location = response.$ref.slice(2).split('/');
			response = ((this.document.components as { responses?: Record<string, typeof response> }).responses ?? {})[
				location[2]
			];
		}
		if (!response.content?.['application/json']) return `${where}: the document says this answer is not JSON`;
		return this.validate(pointer(...location, 'content', 'application/json', 'schema'), answer.body, where);
	}

	/**
	 * Checks every JSON answer `sandbox` sends; `violations` lists what did not conform. A sandbox that plays a
	 * variant of the service (`--omit-total`, `--list-shape bare`, ...) is held to the document it serves for
	 * those flags.
	 */
	watch(sandbox: RunningSandbox): string[] {
		const violations: string[] = [];
		const options = sandbox.context.options;
		const checker = playsVariant(options)
			? new AnswerChecker(
					openApiDocument(
						modules.flatMap((module) => module.endpoints),
						options,
						'sandbox',
					),
				)
			: this;
		sandbox.observeAnswers((answer) => {
			const violation = checker.check(answer);
			if (violation) violations.push(violation);
		});
		return violations;
	}

	private find(answer: SentAnswer): { path: string; item: PathItem } | undefined {
		if (answer.apiMethod !== undefined) {
			// A route outside /api that answers for an API method (the console) answers what the method answers.
			const item = this.apiPaths.get(answer.apiMethod);
			return item && answer.status === 200 ? { path: answer.apiMethod, item: { post: item.post } } : undefined;
		}
		if (answer.path.startsWith('/api/')) {
			const path = answer.path.slice('/api'.length).replace(/\/+$/, '');
			const item = this.apiPaths.get(path);
			return item ? { path, item } : undefined;
		}
		return this.otherPaths.find((candidate) => candidate.pattern.test(answer.path));
	}

	private validate(location: string, body: unknown, where: string): string | undefined {
		let validate = this.compiled.get(location);
		if (!validate) {
			validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#/${location}` });
			this.compiled.set(location, validate);
		}
		if (validate(body)) return undefined;
		const errors = (validate.errors ?? [])
			.slice(0, 5)
			.map((error) => `${error.instancePath || '(body)'} ${error.message}`);
		return `${where}: ${errors.join('; ')}; body ${JSON.stringify(body).slice(0, 300)}`;
	}
}

/** One checker for a test file: building the document and compiling schemas once. */
let shared: AnswerChecker | undefined;
export const answerChecker = () => (shared ??= new AnswerChecker());

/** Throws when any answer did not conform: tests call it when they close their sandbox. */
export function assertConforming(violations: string[]): void {
	if (violations.length > 0) {
		throw new Error(
			`The sandbox answered ${violations.length} time(s) outside its OpenAPI document:\n${violations.slice(0, 10).join('\n')}`,
		);
	}
}
