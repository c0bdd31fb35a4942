import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/** The shared delivery vectors and the official Standard Webhooks cases, with the outcome each must reach. */
const VECTOR_DIR = join(__dirname, '../../../test/fixtures/deliveries');
export const vectors = readdirSync(VECTOR_DIR)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => JSON.parse(readFileSync(join(VECTOR_DIR, file), 'utf8')));
export const official = JSON.parse(
	readFileSync(join(__dirname, '../../../test/fixtures/standard-webhooks/official-cases.json'), 'utf8'),
);

export const expectedVectorOutcomes = () =>
	Object.fromEntries(vectors.map((v) => [v.name, v.expected.valid ? 'valid' : v.expected.error]));
/** The official payload is not an event: past its signature, a delivery is refused for its body. */
export const expectedOfficialOutcomes = () =>
	Object.fromEntries(
		official.cases.map((c: { name: string; expected: string; payload: string }) => [
			c.name,
			c.expected !== 'valid' ? c.expected : c.payload === '' ? 'malformed_json' : 'invalid_payload',
		]),
	);

/**
 * worker.ts bundled by esbuild as one ES module for Web-standard runtimes (no Node.js built-in may remain), with the
 * vectors, the cases and the options of its hook route built in.
 */
export async function bundleWorker(hookOptions: {
	secrets?: string[];
	publicKeys?: string[];
	audience?: string[];
}): Promise<string> {
	const bundle = await build({
		entryPoints: [join(__dirname, 'worker.ts')],
		bundle: true,
		format: 'esm',
		platform: 'neutral',
		conditions: ['workerd', 'worker', 'browser'],
		mainFields: ['module', 'main'],
		target: 'es2022',
		write: false,
		logLevel: 'silent',
		define: {
			__VECTORS__: JSON.stringify(vectors),
			__OFFICIAL_CASES__: JSON.stringify(official.cases),
			__HOOK_OPTIONS__: JSON.stringify(hookOptions),
		},
	});
	const script = bundle.outputFiles[0].text;
	if (/from\s*["']node:/.test(script)) throw new Error('the Web-standard bundle imports a Node.js built-in');
	return script;
}
