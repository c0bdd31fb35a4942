/** Direct calls to the sandbox, to set up state and to check what the node changed. */
export class SandboxApi {
	constructor(
		readonly baseUrl: string,
		readonly key: string,
	) {}

	async call<T = Record<string, any>>(path: string, body: Record<string, unknown> = {}, key = this.key): Promise<T> {
		for (;;) {
			const response = await fetch(`${this.baseUrl}${path}`, {
				method: 'POST',
				headers: { Authorization: key, 'Content-Type': 'application/json' },
				body: JSON.stringify(body),
			});
			if (response.status === 429) {
				await new Promise((resolve) => setTimeout(resolve, 1000 * Number(response.headers.get('retry-after') ?? 1)));
				continue;
			}
			const json = (await response.json()) as T;
			if (!response.ok) throw new Error(`${path} → ${response.status} ${JSON.stringify(json)}`);
			return json;
		}
	}

	/** The service's log of calls to exactly `path`, newest first (the last 1000). */
	async logOf(path: string): Promise<Array<{ path: string; status: number; keyId: string }>> {
		const log = await this.call('/log/get', { path, limit: 1000 });
		return (log.items as Array<{ path: string; status: number; keyId: string }>).filter((entry) => entry.path === path);
	}

	/** A key with only the given scopes, for 403 tests. */
	async keyWith(scopes: string[], bots: string[] = []): Promise<string> {
		const answer = await this.call('/key/create', {
			name: `test ${scopes.join(' ')}`,
			scopes,
			days: 1,
			...(bots.length ? { bots } : {}),
		});
		return String(answer.key?.key ?? answer.key);
	}
}
