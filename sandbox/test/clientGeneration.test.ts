import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openApiDocument } from '../src';
import { modules } from '../src/api';
import { openSandbox, type OpenSandbox } from './client';
import { mistakes, run, sandboxClient } from './client/program';

const CLIENT_DIR = join(__dirname, 'client');
const ROOT = join(__dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const exec = promisify(execFile);

/** What scripts/client-types.mjs (the generator `npm run openapi -w sandbox` uses) makes of a document. */
function clientTypes(document: unknown): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = execFile(
			process.execPath,
			[join(__dirname, '..', 'scripts', 'client-types.mjs')],
			{ maxBuffer: 64 * 1024 * 1024 },
			(error, stdout) => (error ? reject(error) : resolve(stdout)),
		);
		child.stdin!.end(JSON.stringify(document));
	});
}

/** tsc's diagnostics for a project (empty when it compiles). */
async function compile(project: string): Promise<string[]> {
	try {
		await exec(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { cwd: ROOT });
		return [];
	} catch (error) {
		const output = String((error as { stdout?: string }).stdout ?? error);
		return output.split('\n').filter((line) => line.includes('error TS'));
	}
}

describe('a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)', () => {
	test('the committed types are what openapi-typescript generates from the document the sandbox serves', async () => {
		const generated = await clientTypes(openApiDocument(modules.flatMap((module) => module.endpoints)));
		expect(readFileSync(join(CLIENT_DIR, 'openapi.d.ts'), 'utf8')).toBe(generated);
	});

	test('a program using it compiles with no error; without its @ts-expect-error lines each forbidden request is a type error', async () => {
		// The same program with the directives removed: tsc must refuse every forbidden request, on its own line.
		const source = readFileSync(join(CLIENT_DIR, 'program.ts'), 'utf8');
		const directives = source.split('\n').filter((line) => line.trim().startsWith('// @ts-expect-error')).length;
		expect(directives).toBeGreaterThanOrEqual(10);
		const dir = mkdtempSync(join(tmpdir(), 'sandbox-client-'));
		try {
			writeFileSync(join(dir, 'program.ts'), source.replace(/^\s*\/\/ @ts-expect-error.*\n/gm, ''));
			writeFileSync(join(dir, 'openapi.d.ts'), readFileSync(join(CLIENT_DIR, 'openapi.d.ts')));
			writeFileSync(
				join(dir, 'tsconfig.json'),
				JSON.stringify({
					extends: join(ROOT, 'tsconfig.base.json'),
					compilerOptions: {
						noEmit: true,
						lib: ['es2023', 'dom'],
						types: [],
						baseUrl: dir,
						paths: { 'openapi-fetch': [join(ROOT, 'node_modules', 'openapi-fetch')] },
					},
					include: ['program.ts', 'openapi.d.ts'],
				}),
			);
			const [asWritten, withoutDirectives] = await Promise.all([
				compile(join(CLIENT_DIR, 'tsconfig.json')),
				compile(join(dir, 'tsconfig.json')),
			]);
			expect(asWritten).toEqual([]);
			const lines = new Set(withoutDirectives.map((error) => /program\.ts\((\d+),/.exec(error)?.[1]));
			expect(lines.size).toBe(directives);
			expect(withoutDirectives.every((error) => error.includes('program.ts('))).toBe(true);
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});

	describe('against a running sandbox', () => {
		let open: OpenSandbox;
		beforeAll(async () => {
			open = await openSandbox();
		});
		afterAll(() => open.close());

		test('reads in GET and POST form, a row add with its Idempotency-Key (sent twice, added once), a bulk catalog write', async () => {
			const { api } = open;
			const client = sandboxClient(open.sandbox.baseUrl, open.sandbox.adminKey);
			const newest = (await api.get('/subscriber/list', { botid: 'bot_tg', sort: 'new', limit: 1 })).body.items[0];
			const balance = (await api.get('/account/balance/get')).body.balance;
			const rowsBefore = (await api.get('/list/rows/get', { list: 'Leads' })).body.total;
			const chains = (await api.get('/subscriber/data/get', { botid: 'bot_tg', clientid: newest.clientid })).body
				.chains;
			const days = (await api.get('/stat/get', { from: '2026-01-01', to: '2026-01-31' })).body.items.length;

			expect(days).toBe(31);
			const result = await run(client, 'generated-client-1');
			expect(result).toEqual({
				balance,
				firstClientid: newest.clientid,
				cardName: newest.name,
				chains,
				addedRow: expect.objectContaining({ Name: 'Generated client', Phone: '+15550999' }),
				newestName: 'Generated client',
				itemIds: [expect.any(Number), expect.any(Number)],
				statDays: days,
			});
			const again = await run(client, 'generated-client-1');
			expect(again.addedRow).toEqual(result.addedRow);
			expect((await api.get('/list/rows/get', { list: 'Leads' })).body.total).toBe(rowsBefore + 1);
		});

		test('every request the types refuse, sent anyway, is refused by the sandbox with a 422 naming a parameter', async () => {
			const client = sandboxClient(open.sandbox.baseUrl, open.sandbox.adminKey);
			const answers = await Promise.all(mistakes(client));
			expect(answers.map((answer) => answer.response.status)).toEqual(answers.map(() => 422));
			for (const answer of answers)
				expect(answer.error).toEqual(
					expect.objectContaining({
						code: expect.stringMatching(/^(missing|invalid)_param$/),
						param: expect.any(String),
					}),
				);
		});
	});
});
