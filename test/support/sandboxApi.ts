import type { IDataObject } from 'n8n-workflow';

/** A subscriber's card as the sandbox keeps it. */
export type Card = IDataObject & { messenger: string | null; stage: string | null; tags: string[]; blocked: boolean };

/** One message of a subscriber's chat. */
export type ChatMessage = IDataObject & { id: number; text: string; buttons: Array<{ name: string; url: string }> };

/** A row of a list: its values by column name and in column order. */
export type ListRow = IDataObject & { id: number; row: Record<string, string>; values: string[] };

/** A chain a subscriber runs, with its variables. */
export type ChainData = IDataObject & { chaincode: string; variables: Record<string, string> };

/** The answers the tests read field by field, by method. */
export interface KnownAnswers {
	'/list/create': { id?: number; list: { id: number; name: string } };
	'/list/all': { items: Array<{ id: number; name: string }> };
	'/list/rows/get': { items: ListRow[]; total?: number };
	'/subscriber/get': { subscriber: Card };
	'/subscriber/data/get': { chains: ChainData[] };
	'/subscriber/chat/get': { items: ChatMessage[] };
	'/catalog/get': { link: string };
	'/hook/create': { hook: { id: string; name: string }; secret?: string };
	'/hook/list': { items: Array<{ id: string; [field: string]: unknown }> };
	'/key/create': { key: { key: string } };
}

/** Direct calls to the sandbox, to set up state and to check what the node changed. */
export class SandboxApi {
	constructor(
		readonly baseUrl: string,
		readonly key: string,
	) {}

	async call<P extends keyof KnownAnswers>(
		path: P,
		body?: Record<string, unknown>,
		key?: string,
	): Promise<KnownAnswers[P]>;
	async call<T = IDataObject>(path: string, body?: Record<string, unknown>, key?: string): Promise<T>;
	async call(path: string, body: Record<string, unknown> = {}, key = this.key): Promise<unknown> {
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
			const json: unknown = await response.json();
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
		return answer.key.key;
	}
}
