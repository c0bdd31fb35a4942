/**
 * Headless setup of a fresh n8n (owner account, API key) and a small client of its public API
 * (`/api/v1`): credentials, workflows, activation, executions.
 */
export interface Owner {
	email: string;
	password: string;
	firstName: string;
	lastName: string;
}

export const defaultOwner: Owner = {
	email: 'owner@example.test',
	password: 'E2e-owner-passw0rd',
	firstName: 'Local',
	lastName: 'Owner',
};

/** n8n ties its auth cookie to this header; any stable value works for a headless session. */
const browserId = 'e2e-harness';

/** The answer's JSON, typed as the caller expects n8n's answer to be (n8n's API is not validated here). */
async function readJson<T>(response: Response, what: string): Promise<T> {
	const text = await response.text();
	if (!response.ok) throw new Error(`${what}: HTTP ${response.status} ${text.slice(0, 500)}`);
	return (text ? JSON.parse(text) : undefined) as T;
}

/** Creates the owner of a fresh instance and returns its session cookie. */
export async function setupOwner(baseUrl: string, owner: Owner = defaultOwner): Promise<string> {
	const response = await fetch(`${baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': browserId },
		body: JSON.stringify(owner),
	});
	await readJson(response, 'owner setup (POST /rest/owner/setup)');
	return sessionCookieOf(response, 'owner setup');
}

/** Signs in an existing user and returns the session cookie. */
export async function signIn(baseUrl: string, owner: Owner = defaultOwner): Promise<string> {
	const response = await fetch(`${baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': browserId },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, password: owner.password }),
	});
	await readJson(response, 'sign in (POST /rest/login)');
	return sessionCookieOf(response, 'sign in');
}

function sessionCookieOf(response: Response, what: string): string {
	const cookie = response.headers.getSetCookie().find((value) => value.startsWith('n8n-auth='));
	if (!cookie) throw new Error(`${what} answered without an n8n-auth cookie`);
	return cookie.split(';')[0];
}

/** An API key of the owner with every scope the instance offers. */
export async function createApiKey(baseUrl: string, sessionCookie: string): Promise<string> {
	const headers = { 'content-type': 'application/json', 'browser-id': browserId, cookie: sessionCookie };
	const scopes = (
		await readJson<{ data: string[] }>(
			await fetch(`${baseUrl}/rest/api-keys/scopes`, { headers }),
			'GET /rest/api-keys/scopes',
		)
	).data;
	const created = await readJson<{ data?: { rawApiKey?: unknown } }>(
		await fetch(`${baseUrl}/rest/api-keys`, {
			method: 'POST',
			headers,
			body: JSON.stringify({ label: 'e2e', scopes, expiresAt: null }),
		}),
		'POST /rest/api-keys',
	);
	const key = created.data?.rawApiKey;
	if (typeof key !== 'string') throw new Error('POST /rest/api-keys answered without rawApiKey');
	return key;
}

export interface WorkflowDefinition {
	name: string;
	nodes: Array<Record<string, unknown>>;
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
}

export interface Execution {
	id: string;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	startedAt: string;
	stoppedAt: string | null;
	data?: {
		resultData: {
			runData: Record<
				string,
				Array<{
					data?: { main: Array<Array<{ json: Record<string, unknown> }>> };
					error?: unknown;
					executionTime?: number;
				}>
			>;
			error?: { message?: string; description?: string };
			lastNodeExecuted?: string;
		};
	};
}

export class PublicApi {
	readonly baseUrl: string;
	/** The owner's key (the trigger's claim log reaches n8n's data tables with one). */
	readonly apiKey: string;

	constructor(baseUrl: string, apiKey: string) {
		this.baseUrl = baseUrl;
		this.apiKey = apiKey;
	}

	createCredential(name: string, type: string, data: Record<string, unknown>): Promise<{ id: string; name: string }> {
		return this.call('POST', '/credentials', { name, type, data });
	}

	/** Replaces a credential's name, type and data; false when there is no credential with this id. */
	async updateCredential(
		id: string,
		change: { name: string; type: string; data: Record<string, unknown> },
	): Promise<boolean> {
		const response = await this.request('PATCH', `/credentials/${id}`, change);
		if (response.status === 404) return false;
		await readJson(response, `PATCH /api/v1/credentials/${id}`);
		return true;
	}

	/** n8n's credential test (the credential's own test request) of a stored credential. */
	testCredential(id: string): Promise<{ status: string; message: string }> {
		return this.call('POST', `/credentials/${id}/test`);
	}

	async workflowNames(): Promise<Set<string>> {
		return new Set((await this.workflows()).map((workflow) => workflow.name));
	}

	/** Every workflow's id and name (one page of up to 250). */
	async workflows(): Promise<Array<{ id: string; name: string }>> {
		const page = await this.call<{ data: Array<{ id: string; name: string }> }>('GET', '/workflows?limit=250');
		return page.data;
	}

	createWorkflow(workflow: WorkflowDefinition): Promise<{ id: string }> {
		return this.call('POST', '/workflows', { settings: { executionOrder: 'v1' }, ...workflow });
	}

	/** The workflow as stored, with its static data (where trigger nodes keep their state, keyed `node:<node name>`). */
	getWorkflow(id: string): Promise<{ id: string; staticData: Record<string, Record<string, unknown>> | null }> {
		return this.call('GET', `/workflows/${id}`);
	}

	/** Puts the workflow live ("activate" in n8n 1.x wording): its triggers and webhooks start. */
	publishWorkflow(id: string): Promise<{ active: boolean }> {
		return this.call('POST', `/workflows/${id}/publish`);
	}

	/** n8n 1.x's way to put a workflow live (2.x calls it publish). */
	activateWorkflow(id: string): Promise<{ active: boolean }> {
		return this.call('POST', `/workflows/${id}/activate`);
	}

	unpublishWorkflow(id: string): Promise<{ active: boolean }> {
		return this.call('POST', `/workflows/${id}/unpublish`);
	}

	/** Executions of a workflow, newest first (one page of up to 250 is plenty for a test). */
	async executions(workflowId: string, { includeData = false } = {}): Promise<Execution[]> {
		const query = new URLSearchParams({ workflowId, includeData: String(includeData), limit: '250' });
		const page = await this.call<{ data: Execution[] }>('GET', `/executions?${query}`);
		return page.data;
	}

	/** Every execution of a workflow, newest first, page by page (n8n's public API pages with a cursor). */
	async allExecutions(workflowId: string, { includeData = false } = {}): Promise<Execution[]> {
		const all: Execution[] = [];
		let cursor: string | undefined;
		do {
			const query = new URLSearchParams({ workflowId, includeData: String(includeData), limit: '100' });
			if (cursor) query.set('cursor', cursor);
			const page = await this.call<{ data: Execution[]; nextCursor?: string | null }>('GET', `/executions?${query}`);
			all.push(...page.data);
			cursor = page.nextCursor ?? undefined;
		} while (cursor);
		return all;
	}

	/**
	 * One execution, read from n8n's database. The list above leaves out every execution that the main
	 * process still counts as active, and in queue mode a resumed execution can stay counted for a while
	 * after its worker finished it.
	 */
	async execution(id: string, { includeData = false } = {}): Promise<Execution> {
		return this.call('GET', `/executions/${encodeURIComponent(id)}?includeData=${includeData}`);
	}

	/**
	 * A person's "Retry" of an execution that did not succeed (n8n's ExecutionService.retry): a new execution, `retryOf`
	 * the old one, started from the old one's saved data (`loadWorkflow`: with the workflow as it is now). n8n answers
	 * once the new execution ended.
	 */
	retryExecution(id: string, { loadWorkflow = false } = {}): Promise<Execution & { retryOf: string | null }> {
		return this.call('POST', `/executions/${encodeURIComponent(id)}/retry`, { loadWorkflow });
	}

	/** A person's "Stop" of a running or waiting execution (n8n's ExecutionService.stop): n8n's answer, with its new status. */
	stopExecution(id: string): Promise<{ status: string; finished: boolean }> {
		return this.call('POST', `/executions/${encodeURIComponent(id)}/stop`);
	}

	private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
		return readJson(await this.request(method, path, body), `${method} /api/v1${path}`);
	}

	private request(method: string, path: string, body?: unknown): Promise<Response> {
		return fetch(`${this.baseUrl}/api/v1${path}`, {
			method,
			headers: { 'x-n8n-api-key': this.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
			body: body === undefined ? undefined : JSON.stringify(body),
		});
	}
}

/** The editor's "Execute workflow" from the trigger named `triggerName` (REST, as the signed-in owner): n8n's answer. */
async function executeFromTrigger(
	baseUrl: string,
	sessionCookie: string,
	workflowId: string,
	triggerName: string,
): Promise<{ data?: { waitingForWebhook?: boolean; executionId?: unknown } } | undefined> {
	const response = await fetch(`${baseUrl}/rest/workflows/${workflowId}/run`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': browserId, cookie: sessionCookie },
		body: JSON.stringify({ triggerToStartFrom: { name: triggerName } }),
	});
	return readJson(response, `POST /rest/workflows/${workflowId}/run`);
}

/** "Execute workflow" from a webhook-based trigger: n8n registers the trigger's test webhook and waits for one call. */
export async function listenForTestEvent(
	baseUrl: string,
	sessionCookie: string,
	workflowId: string,
	triggerName: string,
): Promise<void> {
	const answer = await executeFromTrigger(baseUrl, sessionCookie, workflowId, triggerName);
	if (answer?.data?.waitingForWebhook !== true) {
		throw new Error(`n8n did not wait for a test event of "${triggerName}": ${JSON.stringify(answer).slice(0, 300)}`);
	}
}

/** "Execute workflow" from a manual trigger: the run starts at once; returns its execution id. */
export async function runManually(
	baseUrl: string,
	sessionCookie: string,
	workflowId: string,
	triggerName: string,
): Promise<string> {
	const answer = await executeFromTrigger(baseUrl, sessionCookie, workflowId, triggerName);
	const executionId = answer?.data?.executionId;
	if (typeof executionId !== 'string')
		throw new Error(`n8n did not start workflow ${workflowId}: ${JSON.stringify(answer).slice(0, 300)}`);
	return executionId;
}

/** A credential as the editor sees it (REST, signed-in owner): secrets are redacted, other fields are plain. */
export async function credentialAsEditorSees(
	baseUrl: string,
	sessionCookie: string,
	id: string,
): Promise<{ name: string; data: Record<string, unknown> }> {
	const response = await fetch(`${baseUrl}/rest/credentials/${id}?includeData=true`, {
		headers: { 'browser-id': browserId, cookie: sessionCookie },
	});
	return (
		await readJson<{ data: { name: string; data: Record<string, unknown> } }>(response, `GET /rest/credentials/${id}`)
	).data;
}

/**
 * POSTs JSON to a production webhook of a just-published workflow. n8n registers the webhook a
 * moment after the publish call returns and answers 404 until then (nothing has run), so 404 is retried.
 */
export async function callProductionWebhook(
	baseUrl: string,
	path: string,
	body: unknown,
	timeoutMs = 15_000,
): Promise<Response> {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const response = await fetch(`${baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		if (response.status !== 404 || Date.now() > deadline) return response;
		await response.body?.cancel();
		await new Promise((resolve) => setTimeout(resolve, 250));
	}
}
