import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { openSandbox, type OpenSandbox } from './client';
import { mutationOf, sampleOf, type JsonSchema } from './schemaSamples';

/** What the test reads of a path of the served document: whether it is outside /api, and POST's request body. */
interface PathItem {
	servers?: unknown[];
	post?: { requestBody?: { content: Record<string, { schema: JsonSchema }> } };
}

/** The codes of a refusal of the request's shape; other 422 codes (not_found, unknown_column, ...) are about stored state. */
const SHAPE_CODES = new Set(['missing_param', 'invalid_param', 'invalid_body', 'too_many_rows', 'too_many_items']);
const SAMPLES = Number(process.env.AGREEMENT_SAMPLES ?? 12);
const SEED = Number(process.env.AGREEMENT_SEED ?? 20261126);
/** A card and a list that exist, so that some samples get past "not found" to the methods' own checks. */
const CARD = { botid: 'bot_tg', clientid: '100001' };

interface Disagreement {
	path: string;
	body: unknown;
	document: string;
	sandbox: string;
}

/** Some samples name things that exist (the seeded card, the list Leads) instead of random ones. */
function withExisting(path: string, body: unknown, pick: number): unknown {
	if (!body || typeof body !== 'object' || Array.isArray(body) || pick % 3 !== 0) return body;
	const copy = { ...(body as Record<string, unknown>) };
	// /subscriber/create would refuse a random messenger for the seeded bot: a rule about stored state, not shape.
	if ('botid' in copy && 'clientid' in copy && path !== '/subscriber/create') Object.assign(copy, CARD);
	// /list/row/edit replaces the whole row: it needs one value per column of the list (stored state).
	if (('list' in copy || 'listid' in copy) && path !== '/list/row/edit' && path !== '/list/clear') {
		delete copy.listid;
		copy.list = 'Leads';
	}
	return copy;
}

/**
 * One definition, two uses: samples generated from each method's request schema in the served OpenAPI document
 * (valid ones, and ones changed in one place) go over HTTP to a running sandbox; an independent ajv judges each
 * against the document. What the document refuses, the sandbox refuses (a 422 missing_param / invalid_param ...),
 * and what the document accepts, the sandbox does not refuse for its shape (it may still answer not_found and
 * the like). AGREEMENT_SAMPLES and AGREEMENT_SEED widen or repeat a run.
 */
describe('the sandbox and its OpenAPI document agree on generated requests', () => {
	let open: OpenSandbox;
	beforeAll(async () => {
		open = await openSandbox();
	});
	afterAll(() => open.close());

	test(
		'every method with parameters, valid and mutated JSON bodies: the same verdict',
		async () => {
			const document = (await (await fetch(`${open.sandbox.url}/openapi.json`)).json()) as {
				paths: Record<string, PathItem>;
				servers: { url: string }[];
			};
			const judge = new Ajv2020({ strict: false, allErrors: false });
			addFormats(judge);
			const disagreements: Disagreement[] = [];
			const verdicts: Record<string, { accepted: number; refused: number }> = {};
			const apiPaths = Object.entries(document.paths).flatMap(([path, item]) =>
				!item.servers && item.post?.requestBody ? [[path, item.post.requestBody] as const] : [],
			);
			expect(apiPaths.length).toBeGreaterThan(50);

			for (const [path, requestBody] of apiPaths) {
				const schema = requestBody.content['application/json'].schema;
				// A method with rules across parameters publishes its parameters as the first member of an allOf (the judge reads it whole).
				const parameters = Array.isArray(schema.allOf) ? schema.allOf[0] : schema;
				if (Object.keys(parameters.properties ?? {}).length === 0) continue;
				const validate = judge.compile(schema);
				const valid = sampleOf(parameters);
				const bodies = [
					...fc.sample(valid, { numRuns: SAMPLES, seed: SEED }),
					...fc.sample(mutationOf(parameters, valid), { numRuns: SAMPLES, seed: SEED + 1 }),
				].map((body, index) => withExisting(path, body, index));
				verdicts[path] = { accepted: 0, refused: 0 };
				for (const body of bodies) {
					const accepted = validate(body);
					verdicts[path][accepted ? 'accepted' : 'refused']++;
					const answer = await open.api.post(path, body);
					expect([path, answer.status < 500]).toEqual([path, true]);
					const refused = answer.status === 422 && SHAPE_CODES.has(answer.body?.code ?? '');
					if (refused === accepted) {
						disagreements.push({
							path,
							body,
							document: accepted
								? 'accepts'
								: `refuses: ${validate.errors?.map((error) => `${error.instancePath} ${error.message}`).join('; ')}`,
							sandbox: `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
						});
					}
				}
			}
			expect(disagreements.slice(0, 10)).toEqual([]);
			// Not vacuous: the samples reach both verdicts on every method, and most of them overall.
			const methods = Object.entries(verdicts);
			expect(methods.length).toBeGreaterThan(45);
			expect(methods.map(([path]) => path)).toEqual(
				expect.arrayContaining(['/list/rows/add', '/list/rows/find', '/list/row/delete', '/subscriber/get']),
			);
			expect(methods.filter(([, count]) => count.refused === 0).map(([path]) => path)).toEqual([]);
			const accepted = methods.reduce((sum, [, count]) => sum + count.accepted, 0);
			expect(accepted).toBeGreaterThan(methods.length * 4);
		},
		30_000 + SAMPLES * 2_000,
	);
});
