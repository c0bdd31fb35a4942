/**
 * The contract as mainstream generators read it. From the document the sandbox serves, @hey-api/openapi-ts (types,
 * SDK, zod schemas), openapi-zod-client (zod schemas, Zodios client) and swagger-typescript-api generate clients
 * (openapi-typescript is held to the same in clientGeneration.test.ts); a small program against each
 * (test/client/generators/<generator>.ts) must compile, and without its @ts-expect-error lines each of the five
 * typical mistakes it makes must be a type error on its own line. Then the generated zod schemas must parse every
 * answer of a scenario that calls every method of the API against a running sandbox over HTTP, and every generator's
 * zod schemas (kubb's too: @kubb/plugin-zod, not compiled with the others) must refuse the requests the sandbox refuses
 * by the document's schemas (contractRefusals.ts), but for the few each generator is known to let through.
 *
 * Everything is generated afresh into a temporary folder inside the repository (so that `zod` and the generators'
 * runtime packages resolve from its node_modules), compiled by one tsc run, and removed.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ZodTypeAny } from 'zod';
import { openApiDocument } from '../src';
import { modules } from '../src/api';
import { openSandbox, type ApiResponse, type OpenSandbox } from './client';
import { BAD_CHANGES, GOOD_CHANGES, READ_CASES, type Memory } from './contractCases';
import { SCHEMA_ACCEPTS, SCHEMA_REFUSALS } from './contractRefusals';

const ROOT = join(__dirname, '..', '..');
const PROGRAMS = join(__dirname, 'client', 'generators');
const exec = promisify(execFile);
const bin = (...path: string[]) => join(ROOT, 'node_modules', ...path);
/** Generators run under the Node that runs the tests (Node 24: several need Node 22 or later). */
const node = (script: string, args: string[], cwd: string) =>
	exec(process.execPath, [script, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });

/** Each generator: how it writes its client into `out` from the document at `document`. */
const GENERATORS: Record<string, (document: string, out: string, work: string) => Promise<unknown>> = {
	'hey-api': (document, out, work) => {
		const config = join(work, 'hey-api.config.mjs');
		writeFileSync(
			config,
			`export default ${JSON.stringify({
				input: document,
				output: { path: out },
				logs: { file: false, level: 'error' },
				// The repository's zod is version 3 (the plugin writes zod 4 unless told).
				plugins: [
					'@hey-api/typescript',
					'@hey-api/sdk',
					'@hey-api/client-fetch',
					{ name: 'zod', compatibilityVersion: 3 },
				],
			})};\n`,
		);
		return node(bin('@hey-api', 'openapi-ts', 'bin', 'run.js'), ['-f', config], work);
	},
	'openapi-zod-client': (document, out, work) =>
		node(bin('openapi-zod-client', 'bin.js'), [document, '-o', join(out, 'client.ts')], work),
	'swagger-typescript-api': (document, out, work) =>
		node(
			bin('swagger-typescript-api', 'dist', 'cli.mjs'),
			['generate', '-p', document, '-o', out, '-n', 'api.ts', '--silent'],
			work,
		),
};

/**
 * kubb (@kubb/plugin-ts and @kubb/plugin-zod, zod 3 code): its zod schemas join the refusal checks. Its output is left
 * out of the one tsc run (it imports with `.ts` extensions; the programs cover the three generators above).
 */
const KUBB = (document: string, out: string, work: string) => {
	const config = join(work, 'kubb.config.mjs');
	writeFileSync(
		config,
		[
			"import { defineConfig } from '@kubb/core';",
			"import { pluginOas } from '@kubb/plugin-oas';",
			"import { pluginTs } from '@kubb/plugin-ts';",
			"import { pluginZod } from '@kubb/plugin-zod';",
			'export default defineConfig({',
			`\tinput: { path: ${JSON.stringify(document)} },`,
			`\toutput: { path: ${JSON.stringify(out)}, clean: true, format: false, lint: false },`,
			"\tplugins: [pluginOas({ validate: false }), pluginTs(), pluginZod({ version: '3' })],",
			'});',
		].join('\n'),
	);
	return node(bin('@kubb', 'cli', 'bin', 'kubb.cjs'), ['generate', '--config', config], work);
};

/**
 * What each generator's zod schemas let through of SCHEMA_REFUSALS: limits the document states in a form the
 * generator drops, where no other form of the same accepted values keeps them.
 * - openapi-zod-client writes no check inside a union (`anyOf`, or `type` with two JSON types), even from a `$ref`:
 *   integers that may be digits and texts that may be numbers lose their bounds and patterns; it also drops
 *   `minItems`, `uniqueItems` and `format: date`.
 * - kubb writes no `minimum`/`maximum` inside a union (a `$ref` member would keep them, but the sandbox validates
 *   each parameter's schema on its own, without the document's components).
 * - @hey-api's zod plugin drops `uniqueItems`.
 */
const LETS_THROUGH: Record<string, string[]> = {
	'hey-api': ['headers twice'],
	'openapi-zod-client': [
		'limit 0',
		'limit 1001',
		'limit "0"',
		'limit 1.5',
		'offset -1',
		'query blank',
		'text blank',
		'text 4097',
		'tags empty',
		'tag 101',
		'clientid 101',
		'name 1001',
		'hook name 201',
		'days 0',
		'days 3651',
		'headers twice',
		'from not a date',
	],
	kubb: ['limit 0', 'limit 1001', 'offset -1', 'days 0', 'days 3651'],
};

const DIRECTIVE = /^\s*\/\/ @ts-expect-error.*\n/gm;

/** The 1-based line numbers, in the program with its directives removed, of the lines each directive stood on. */
function refusedLines(source: string): number[] {
	const lines = source.split('\n');
	const expected: number[] = [];
	let removed = 0;
	lines.forEach((line, index) => {
		if (/^\s*\/\/ @ts-expect-error/.test(line)) {
			removed++;
			expected.push(index - removed + 2);
		}
	});
	return expected;
}

describe('clients generated by mainstream generators', () => {
	let work: string;
	const generated: Record<string, string> = {};

	beforeAll(async () => {
		work = mkdtempSync(join(__dirname, 'client', '.generated-'));
		const document = join(work, 'openapi.json');
		writeFileSync(document, JSON.stringify(openApiDocument(modules.flatMap((module) => module.endpoints))));
		await Promise.all(
			Object.entries({ ...GENERATORS, kubb: KUBB }).map(async ([name, generate]) => {
				const out = join(work, name);
				mkdirSync(out);
				await generate(document, out, work);
				generated[name] = out;
			}),
		);
	}, 600_000);
	afterAll(() => {
		if (work) rmSync(work, { recursive: true, force: true });
	});

	test('a program against each compiles with no error; without its @ts-expect-error lines each of its five typical mistakes is a type error', async () => {
		const programs = readdirSync(PROGRAMS).filter((file) => file.endsWith('.ts'));
		expect(programs.map((file) => file.replace(/\.ts$/, '')).sort()).toEqual(Object.keys(GENERATORS).sort());
		const expected: Record<string, number[]> = {};
		for (const file of programs) {
			const source = readFileSync(join(PROGRAMS, file), 'utf8');
			copyFileSync(join(PROGRAMS, file), join(work, file));
			const stripped = file.replace(/\.ts$/, '.stripped.ts');
			writeFileSync(join(work, stripped), source.replace(DIRECTIVE, ''));
			expected[stripped] = refusedLines(source);
			expect([file, expected[stripped].length]).toEqual([file, 5]);
		}
		writeFileSync(
			join(work, 'tsconfig.json'),
			JSON.stringify({
				compilerOptions: {
					target: 'es2023',
					lib: ['es2023', 'dom', 'dom.iterable'],
					module: 'esnext',
					moduleResolution: 'bundler',
					strict: true,
					skipLibCheck: true,
					noEmit: true,
					types: [],
				},
				include: ['*.ts', '*/**/*.ts'],
				exclude: ['kubb'],
			}),
		);
		// One tsc run for every client, as written and stripped: the generated code and the programs as written must
		// compile (an unused @ts-expect-error is an error too); the stripped programs fail on exactly the mistakes' lines.
		const output = await exec(
			process.execPath,
			[bin('typescript', 'bin', 'tsc'), '-p', join(work, 'tsconfig.json'), '--pretty', 'false'],
			{ cwd: work, maxBuffer: 64 * 1024 * 1024 },
		).then(
			() => '',
			(error: { stdout?: string }) => String(error.stdout ?? error),
		);
		const errors = output.split('\n').filter((line) => / error TS\d+/.test(line));
		const byFile: Record<string, number[]> = {};
		for (const error of errors) {
			const [, file, line] = /^([^(]+)\((\d+),/.exec(error) ?? [];
			(byFile[file] ??= []).push(Number(line));
		}
		const refused = Object.fromEntries(
			Object.entries(byFile).map(([file, lines]) => [file, [...new Set(lines)].sort((a, b) => a - b)]),
		);
		expect({ errors: errors.filter((error) => !/\.stripped\.ts\(/.test(error)), refused }).toEqual({
			errors: [],
			refused: expected,
		});
	}, 600_000);

	describe('their zod schemas against a running sandbox', () => {
		let open: OpenSandbox;
		beforeAll(async () => {
			open = await openSandbox();
		});
		afterAll(() => open?.close());

		/**
		 * Every answer of a scenario that calls every method on a freshly seeded sandbox: each read by GET (but
		 * /webapp/delete, which deletes the catalog the changes use; the changes call it by POST last), each change by POST
		 * (valid, then wrong in one parameter).
		 */
		async function scenario(): Promise<{ method: 'get' | 'post'; path: string; response: ApiResponse }[]> {
			const { api } = open;
			const answers: { method: 'get' | 'post'; path: string; response: ApiResponse }[] = [];
			for (const [path, { params }] of Object.entries(READ_CASES).filter(([path]) => path !== '/webapp/delete'))
				answers.push({ method: 'get', path, response: await api.get(path, params) });
			const memory: Memory = {};
			for (const change of GOOD_CHANGES) {
				const response = await api.post(change.path, change.body(memory));
				change.remember?.(response.body, memory);
				answers.push({ method: 'post', path: change.path, response });
			}
			for (const change of BAD_CHANGES)
				answers.push({ method: 'post', path: change.path, response: await api.post(change.path, change.body) });
			return answers;
		}

		test("every generator's zod schemas refuse the requests the sandbox refuses by the document, but for what each is known to let through", async () => {
			for (const refusal of SCHEMA_REFUSALS) {
				const response = await open.api.post(refusal.path, refusal.body);
				expect([refusal.name, response.status, (response.body as { param?: string }).param]).toEqual([
					refusal.name,
					422,
					refusal.param,
				]);
			}
			type Parser = { safeParse: (value: unknown) => { success: boolean } };
			const words = (path: string) => path.split(/[^A-Za-z0-9]+/).filter(Boolean);
			const pascal = (path: string) =>
				words(path)
					.map((word) => word[0].toUpperCase() + word.slice(1))
					.join('');
			const camel = (path: string) => pascal(path)[0].toLowerCase() + pascal(path).slice(1);
			const { api } = (await import(join(generated['openapi-zod-client'], 'client.ts'))) as {
				api: { api: { method: string; path: string; parameters?: { type: string; schema: Parser }[] }[] };
			};
			const heyZod = (await import(join(generated['hey-api'], 'zod.gen.ts'))) as Record<string, Parser>;
			const bodySchemas: Record<string, (path: string) => Promise<Parser | undefined>> = {
				'hey-api': async (path) => heyZod[`z${pascal(path)}Body`],
				'openapi-zod-client': async (path) =>
					api.api
						.find((endpoint) => endpoint.method === 'post' && endpoint.path === path)
						?.parameters?.find((parameter) => parameter.type === 'Body')?.schema,
				kubb: async (path) =>
					((await import(join(generated.kubb, 'zod', `${camel(path)}Schema.ts`))) as Record<string, Parser>)[
						`${camel(path)}MutationRequestSchema`
					],
			};
			const through: Record<string, string[]> = {};
			for (const [generator, bodySchema] of Object.entries(bodySchemas)) {
				through[generator] = [];
				for (const refusal of SCHEMA_REFUSALS) {
					const schema = await bodySchema(refusal.path);
					if (!schema) throw new Error(`${generator} has no request schema for ${refusal.path}`);
					if (schema.safeParse(refusal.body).success) through[generator].push(refusal.name);
				}
				for (const accepted of SCHEMA_ACCEPTS) {
					const schema = await bodySchema(accepted.path);
					if (!schema?.safeParse(accepted.body).success)
						through[generator].push(`refuses a valid ${accepted.path}: ${JSON.stringify(accepted.body)}`);
				}
			}
			expect(through).toEqual(LETS_THROUGH);
		}, 120_000);

		test('every answer parses with the schema each generator made for its operation and status', async () => {
			const answers = await scenario();
			// The scenario is what it claims: every method answered, the good calls 200, the wrong ones 422.
			const methods = new Set(modules.flatMap((module) => module.endpoints).map((endpoint) => endpoint.path));
			expect(new Set(answers.map((answer) => answer.path))).toEqual(methods);
			expect(
				answers
					.filter((answer) => answer.response.status !== 200)
					.map((answer) => [answer.path, answer.response.status]),
			).toEqual(BAD_CHANGES.map((change) => [change.path, 422]));

			// openapi-zod-client: the endpoint list of its Zodios client, with the answer's schema and each error status's.
			type ZodiosEndpoint = {
				method: string;
				path: string;
				response: ZodTypeAny;
				errors: { status: number | 'default'; schema: ZodTypeAny }[];
			};
			const { api } = (await import(join(generated['openapi-zod-client'], 'client.ts'))) as {
				api: { api: ZodiosEndpoint[] };
			};
			// @hey-api's zod plugin: z<OperationId>Response for the 200 answer of each operation.
			const heyZod = (await import(join(generated['hey-api'], 'zod.gen.ts'))) as Record<string, ZodTypeAny>;
			const operationId = (method: string, path: string) => {
				const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
				return `${words.map((word) => word[0].toUpperCase() + word.slice(1)).join('')}${method === 'get' ? 'ViaGet' : ''}`;
			};

			const failures: string[] = [];
			let parsed = 0;
			for (const { method, path, response } of answers) {
				const where = `${method.toUpperCase()} ${path} → ${response.status}`;
				const endpoint = api.api.find((candidate) => candidate.method === method && candidate.path === path);
				const schema =
					response.status === 200
						? endpoint?.response
						: endpoint?.errors.find((error) => error.status === response.status)?.schema;
				if (!schema) failures.push(`openapi-zod-client has no schema for ${where}`);
				else if (!schema.safeParse(response.body).success)
					failures.push(
						`openapi-zod-client refuses ${where}: ${JSON.stringify(schema.safeParse(response.body).error?.issues.slice(0, 3))}`,
					);
				else parsed++;
				if (response.status === 200) {
					const hey = heyZod[`z${operationId(method, path)}Response`];
					if (!hey) failures.push(`@hey-api zod has no z${operationId(method, path)}Response for ${where}`);
					else if (!hey.safeParse(response.body).success)
						failures.push(
							`@hey-api zod refuses ${where}: ${JSON.stringify(hey.safeParse(response.body).error?.issues.slice(0, 3))}`,
						);
					else parsed++;
				}
			}
			expect(failures).toEqual([]);
			expect(parsed).toBe(answers.length + answers.filter((answer) => answer.response.status === 200).length);
		}, 300_000);
	});
});
