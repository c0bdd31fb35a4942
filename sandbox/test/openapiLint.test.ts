import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiDocument } from '../src';
import { modules } from '../src/api';
import { resolveOptions } from '../src/config';

const ROOT = join(__dirname, '..', '..');
const COMMITTED = join(__dirname, '..', 'openapi.json');
const REDOCLY = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
const SPECTRAL = join(ROOT, 'node_modules', '@stoplight', 'spectral-cli', 'dist', 'index.js');

/** Runs a linter; linters exit non-zero when they find errors, so the exit code is not a failure here. */
function lint(args: string[]): Promise<string> {
	return new Promise((resolve, reject) => {
		execFile(process.execPath, args, { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
			if (stdout.trim().startsWith('{') || stdout.trim().startsWith('[')) resolve(stdout);
			else reject(new Error(`${args[0]} gave no report: ${error?.message ?? ''}\n${stderr}`));
		});
	});
}

interface Problem {
	rule: string;
	file: string;
	message: string;
}

async function redoclyErrors(file: string): Promise<Problem[]> {
	const report = JSON.parse(await lint([REDOCLY, 'lint', file, '--extends=recommended', '--format=json']));
	return (report.problems as { ruleId: string; severity: string; message: string }[])
		.filter((problem) => problem.severity === 'error')
		.map((problem) => ({ rule: problem.ruleId, file, message: problem.message }));
}

async function spectralErrors(files: string[]): Promise<Problem[]> {
	const report = JSON.parse(
		await lint([SPECTRAL, 'lint', ...files, '-r', join(__dirname, 'spectral.yaml'), '-f', 'json', '--quiet']),
	);
	return (report as { code: string; severity: number; message: string; source: string }[])
		.filter((problem) => problem.severity === 0)
		.map((problem) => ({ rule: problem.code, file: problem.source, message: problem.message }));
}

/**
 * The document passes Redocly's `recommended` rules and Spectral's `spectral:oas` with no error: the committed
 * one, and the one a sandbox started with every variant flag serves. A document with an operationId holding a
 * space and an array without items shows both linters still find errors.
 */
describe('the OpenAPI document under Redocly (recommended) and Spectral (spectral:oas)', () => {
	let dir: string;
	let variant: string;
	let broken: string;

	beforeAll(() => {
		dir = mkdtempSync(join(tmpdir(), 'sandbox-lint-'));
		const endpoints = modules.flatMap((module) => module.endpoints);
		const options = resolveOptions({
			maxPage: 50,
			maxPageMode: 'cap',
			omitTotal: true,
			listShape: 'named',
			failReads: 0.2,
			retryAfter: 'none',
		});
		variant = join(dir, 'variant.json');
		writeFileSync(variant, JSON.stringify(openApiDocument(endpoints, options)));
		const wrong = JSON.parse(JSON.stringify(openApiDocument(endpoints))) as {
			paths: Record<
				string,
				{ post: { operationId: string; responses: Record<string, { content: Record<string, { schema: unknown }> }> } }
			>;
		};
		wrong.paths['/account/balance/get'].post.operationId = 'account balance get';
		wrong.paths['/bot/list'].post.responses['200'].content['application/json'].schema = { type: 'array' };
		broken = join(dir, 'broken.json');
		writeFileSync(broken, JSON.stringify(wrong));
	});
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	test('Redocly: 0 errors on the committed and the variant document; the broken one has its operationId with spaces', async () => {
		const [committed, variantErrors, brokenErrors] = await Promise.all([
			redoclyErrors(COMMITTED),
			redoclyErrors(variant),
			redoclyErrors(broken),
		]);
		expect(committed).toEqual([]);
		expect(variantErrors).toEqual([]);
		expect(brokenErrors.map((problem) => problem.rule).sort()).toEqual(['operation-operationId-url-safe']);
	});

	test('Spectral: 0 errors on the committed and the variant document; the broken one has its array without items', async () => {
		const errors = await spectralErrors([COMMITTED, variant, broken]);
		expect(errors.filter((problem) => problem.file !== broken)).toEqual([]);
		expect(errors.filter((problem) => problem.file === broken).map((problem) => problem.rule)).toEqual(['array-items']);
	});
});
