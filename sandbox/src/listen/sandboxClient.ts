/** A refusal or failure that stops `listen`; the message says what is wrong. */
export class ListenError extends Error {
	constructor(
		message: string,
		/** The HTTP status of a refusal; absent when the sandbox did not answer. */
		readonly status?: number,
	) {
		super(message);
	}
}

interface ErrorAnswer {
	code?: string;
	error?: string;
}

/** Calls a running sandbox over HTTP with a key: the service's API under /api and the control routes beside it. */
export class SandboxClient {
	constructor(
		readonly root: string,
		private readonly key: string,
	) {}

	/** POST to `/api<path>`. */
	api<T>(path: string, body: Record<string, unknown>): Promise<T> {
		return this.post<T>(`/api${path}`, body);
	}

	/** POST to a control route (`/sandbox/...`), which takes the account key only. */
	control<T>(path: string, body: Record<string, unknown>): Promise<T> {
		return this.post<T>(path, body);
	}

	private async post<T>(path: string, body: Record<string, unknown>): Promise<T> {
		let response: Response;
		try {
			response = await fetch(`${this.root}${path}`, {
				method: 'POST',
				headers: { authorization: this.key, 'content-type': 'application/json' },
				body: JSON.stringify(body),
				signal: AbortSignal.timeout(10_000),
			});
		} catch (error) {
			const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
			throw new ListenError(
				`sandbox not reachable at ${this.root} (${cause}); start it with "npm start" or pass --sandbox`,
			);
		}
		const text = await response.text();
		let answer: unknown;
		try {
			answer = JSON.parse(text);
		} catch {
			throw new ListenError(
				`${this.root}${path} answered ${response.status} without JSON: is ${this.root} the sandbox?`,
				response.status,
			);
		}
		if (response.ok) return answer as T;
		const { code, error } = answer as ErrorAnswer;
		if (response.status === 401 || response.status === 403)
			throw new ListenError(
				`key refused by the sandbox at ${this.root} (${code}: ${error}); listen needs the account key the sandbox printed at start`,
				response.status,
			);
		throw new ListenError(`${path} answered ${response.status} ${code ?? ''}: ${error ?? text}`, response.status);
	}
}
