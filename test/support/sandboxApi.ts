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
			// A transient refusal that did nothing (a sandbox started with failReads).
			if (response.status === 503) {
				await new Promise((resolve) => setTimeout(resolve, 20));
				continue;
			}
			const json = (await response.json()) as T;
			if (!response.ok) throw new Error(`${path} → ${response.status} ${JSON.stringify(json)}`);
			return json;
		}
	}

	/**
	 * The service's log of calls to exactly `path`, newest first: every page, whatever the sandbox's
	 * variant (records under `items`, `entries` or bare; pages capped or limited), each entry once.
	 */
	async logOf(path: string): Promise<Array<{ id: number; path: string; status: number; keyId: string }>> {
		type Entry = { id: number; path: string; status: number; keyId: string };
		const entries = new Map<number, Entry>();
		let limit = 1000;
		for (let offset = 0; ;) {
			let answer: unknown;
			try {
				answer = await this.call('/log/get', { path, limit, offset });
			} catch (error) {
				const max = /"param":"limit".*"max":(\d+)/.exec(String((error as Error).message));
				if (!max) throw error;
				limit = Number(max[1]);
				continue;
			}
			const body = answer as { items?: Entry[]; entries?: Entry[] };
			const page = Array.isArray(answer) ? (answer as Entry[]) : (body.items ?? body.entries ?? []);
			if (page.length === 0) break;
			for (const entry of page) entries.set(entry.id, entry);
			offset += page.length;
		}
		return [...entries.values()].filter((entry) => entry.path === path);
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
