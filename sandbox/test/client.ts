import { startSandbox, type RunningSandbox, type SandboxOptions } from '../src';
import { answerChecker, assertConforming } from './answerChecker';

export interface ApiResponse<T = any> {
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

	async post<T = any>(path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...(this.key ? { authorization: this.key } : {}), ...headers },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: response.status, headers: response.headers, body: await parse(response) };
	}

	/** POSTs `body` exactly as given (e.g. broken JSON), with this client's key. */
	async postRaw<T = any>(path: string, body: string): Promise<ApiResponse<T>> {
		const response = await fetch(`${this.baseUrl}${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...(this.key ? { authorization: this.key } : {}) },
			body,
		});
		return { status: response.status, headers: response.headers, body: await parse(response) };
	}

	async get<T = any>(path: string, query: Record<string, string | number | boolean> = {}): Promise<ApiResponse<T>> {
		const search = new URLSearchParams(
			Object.entries(query).map(([name, value]) => [name, String(value)] as [string, string]),
		);
		const suffix = search.size > 0 ? `?${search}` : '';
		const response = await fetch(`${this.baseUrl}${path}${suffix}`, {
			headers: this.key ? { authorization: this.key } : {},
		});
		return { status: response.status, headers: response.headers, body: await parse(response) };
	}
}

async function parse(response: Response): Promise<any> {
	const text = await response.text();
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}

/**
 * Starts a sandbox on a free port for one test file (rate limit off unless asked for) and returns
 * a client holding the account key. Call `close` in afterAll.
 */
export interface RecordedEvent {
	type: string;
	data: any;
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
