import { startSandbox, type RunningSandbox, type SandboxOptions } from '../src';
import { answerChecker, assertConforming } from './answerChecker';
import type { paths } from './client/openapi';

type Documented<P> = P extends keyof paths ? paths[P] : never;
type OkBody<Op> = Op extends { responses: { 200: { content: { 'application/json': infer B } } } } ? B : never;
/**
 * Where the contract allows two readings, the one this sandbox answers unless a variant flag says otherwise: a page of
 * rows for /list/rows/find, and a hook with its secret (or, under `--signing v1a`, its public key) for /hook/create.
 */
type SandboxReading<P, Body> = P extends '/list/rows/find'
	? Extract<Body, { items: unknown }>
	: P extends '/hook/create'
		? Extract<Body, { secret: string }> & Partial<Extract<Body, { publicKey: string }>>
		: Body;
/** What every refusal carries (`scope` on 403 forbidden, `max` on too many records, ...). */
export interface ErrorBody {
	code?: string;
	error?: string;
	param?: string;
	scope?: string;
	max?: number;
	column?: string;
	retryAfter?: number;
}
/**
 * What a path answers, as the contract types it (sandbox/test/client/openapi.d.ts, generated from openapi.json): the
 * 200 body with the error fields beside it, since a test reads either from the same call; an error alone for a path
 * or HTTP method the contract does not have.
 */
export type AnswerOf<P extends string, M extends 'get' | 'post'> = [OkBody<Documented<P>[M]>] extends [never]
	? ErrorBody
	: SandboxReading<P, OkBody<Documented<P>[M]>> & ErrorBody;

/** The default of a call's answer type: what the contract says of its path ({@link AnswerOf}). */
interface ContractAnswer {
	readonly 'the answer the contract types': never;
}
/** A call's answer: the type a test names (a variant's shape, say), or else the contract's. */
type Answer<T, P extends string, M extends 'get' | 'post'> = T extends ContractAnswer ? AnswerOf<P, M> : T;

export interface ApiResponse<T = unknown> {
	status: number;
	headers: Headers;
	body: T;
}

/** A thin client over real HTTP for tests: POST with a JSON body, or GET with a query string. */
export class TestClient {
	constructor(
		readonly baseUrl: string,
		readonly key: string | undefined,
	) {}

	withKey(key: string | undefined): TestClient {
		return new TestClient(this.baseUrl, key);
	}

	/** A client holding a new key made by this client's key with /key/create (`bots` empty: every bot). */
	async withNewKey(scopes: string[], bots: string[] = []): Promise<TestClient> {
		const response = await this.post('/key/create', {
			name: `test ${scopes.join(' ')}`,
			scopes,
			...(bots.length > 0 ? { bots } : {}),
		});
		if (response.status !== 200)
			throw new Error(`/key/create answered ${response.status}: ${JSON.stringify(response.body)}`);
		return this.withKey(response.body.key.key);
	}

	async post<T = ContractAnswer, P extends string = string>(
		path: P,
		body?: unknown,
		headers: Record<string, string> = {},
	): Promise<ApiResponse<Answer<T, P, 'post'>>> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...(this.key ? { authorization: this.key } : {}), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: response.status, headers: response.headers, body: await parse(response) };
	}

	/** POSTs `body` exactly as given (e.g. broken JSON), with this client's key. */
	async postRaw<T = ContractAnswer, P extends string = string>(
		path: P,
		body: string,
	): Promise<ApiResponse<Answer<T, P, 'post'>>> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...(this.key ? { authorization: this.key } : {}) },
			body,
		});
		return { status: response.status, headers: response.headers, body: await parse(response) };
	}

	async get<T = ContractAnswer, P extends string = string>(
		path: P,
		query: Record<string, string | number | boolean | undefined> = {},
	): Promise<ApiResponse<Answer<T, P, 'get'>>> {
		// A parameter given as undefined is left out, as a JSON body leaves it out.
		const search = new URLSearchParams(
			Object.entries(query)
				.filter(([, value]) => value !== undefined)
				.map(([name, value]) => [name, String(value)] as [string, string]),
		);
		const suffix = search.size > 0 ? `?${search}` : '';
		const response = await fetch(`${this.baseUrl}${path}${suffix}`, {
			headers: this.key ? { authorization: this.key } : {},
		});
		return { status: response.status, headers: response.headers, body: await parse(response) };
	}
}

async function parse<T>(response: Response): Promise<T> {
	const text = await response.text();
	try {
		return JSON.parse(text) as T;
	} catch {
		return text as T;
	}
}

/**
 * Starts a sandbox on a free port for one test file (rate limit off unless asked for) and returns
 * a client holding the account key. Call `close` in afterAll.
 */
export interface RecordedEvent {
	type: string;
	data: Record<string, unknown>;
}

export interface OpenSandbox {
	sandbox: RunningSandbox;
	api: TestClient;
	/** The account key on the routes outside /api (/sandbox/clock, /sandbox/reset, ...). */
	routes: TestClient;
	/** Every event the sandbox's domain emitted (what its hooks deliver), in order. */
	events: RecordedEvent[];
	/** Answers that did not conform to the OpenAPI document so far. */
	violations: string[];
	close: () => Promise<void>;
}

/**
 * Every JSON answer the sandbox sends is checked against its OpenAPI document; `close` fails the test
 * file when one did not conform.
 */
export async function openSandbox(options: SandboxOptions = {}): Promise<OpenSandbox> {
	const sandbox = await startSandbox({ port: 0, rateLimit: 0, ...options });
	const violations = answerChecker().watch(sandbox);
	const events: RecordedEvent[] = [];
	sandbox.context.events.listen((type, data) => events.push({ type, data }));
	return {
		sandbox,
		api: new TestClient(sandbox.baseUrl, sandbox.adminKey),
		routes: new TestClient(sandbox.url, sandbox.adminKey),
		events,
		violations,
		close: async () => {
			await sandbox.close();
			assertConforming(violations);
		},
	};
}
