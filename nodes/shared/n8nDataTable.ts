import type { IDataObject, IExecuteFunctions, IHttpRequestMethods, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

/**
 * A data table of this n8n, through n8n's public API (`/api/v1/data-tables`) with an API key of the same n8n: n8n
 * 2.41.1 gives its data tables to n8n's own Data table nodes only (`modules/data-table/data-table-proxy.service.js`
 * refuses any other node type with "This proxy is only available for Data table nodes"). Every n8n process (main,
 * workers, webhook processes) reaches the same tables there, and they outlive restarts. Used by the trigger's claim
 * log and by Send and Wait's answers of several subscribers.
 */

export const N8N_API_CREDENTIAL = 'messengerBotBuilderN8nApi';

/** How long one call to n8n's API may take before the node gives up on it and fails. */
const API_TIMEOUT_MS = 30_000;
/** The pauses before asking again while n8n says its database is not ready (503). */
const NOT_READY_RETRIES = [500, 1_000, 2_000];
/** Rows read per call. */
const ROWS_PER_PAGE = 50;

type ApiContext = IExecuteFunctions | IWebhookFunctions;

interface ApiAnswer<T> {
	statusCode: number;
	body: T;
}

export type TableRow<Column extends string> = { [column in Column]: string } & { id: number; createdAt?: string };

/** What a failure means for the run, said in every error of one user of the table. */
export interface TableUse<Column extends string> {
	name: string;
	columns: readonly Column[];
	/** Whose table it is, in an error's title: "the trigger's claim log". */
	purpose: string;
	/** What the failure left undone, the last sentence of an error's description. */
	consequence: string;
	/** The API key's scopes this use needs, named in an error when n8n refuses the key. */
	scopes: string;
}

/** The data table's id per n8n address and table name, found or created once per process. */
const tableIds = new Map<string, Promise<string>>();

export class N8nDataTable<Column extends string> {
	private table?: string;

	private constructor(
		private readonly context: ApiContext,
		private readonly baseUrl: string,
		private readonly use: TableUse<Column>,
	) {}

	/** The table of this use at the n8n of the context's n8n API credential. */
	static async of<Column extends string>(context: ApiContext, use: TableUse<Column>): Promise<N8nDataTable<Column>> {
		const credentials = await context.getCredentials(N8N_API_CREDENTIAL);
		const baseUrl = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim().replace(/\/+$/, '') : '';
		if (!/^https?:\/\//.test(baseUrl)) {
			throw new NodeOperationError(
				context.getNode(),
				'The n8n address of the n8n API credential is not an http(s) URL',
				{
					description: 'Set "n8n Address" to the address of n8n\'s main process, for example http://n8n-main:5678.',
				},
			);
		}
		return new N8nDataTable(context, baseUrl, use);
	}

	/** The table's id, found or created (once per process). */
	async id(): Promise<string> {
		if (this.table) return this.table;
		const key = `${this.baseUrl} ${this.use.name}`;
		let table = tableIds.get(key);
		if (!table) {
			table = this.findOrCreate();
			tableIds.set(key, table);
			// A failure is not kept: the next call tries again.
			table.catch(() => tableIds.delete(key));
		}
		this.table = await table;
		return this.table;
	}

	/** Appends a row; a table deleted since this process found it is found or created again, once. */
	async insert(row: { [column in Column]: string }): Promise<void> {
		const insert = async () =>
			await this.call('POST', `/data-tables/${await this.id()}/rows`, { body: { data: [row], returnType: 'id' } });
		let inserted = await insert();
		if (inserted.statusCode === 404) {
			tableIds.delete(`${this.baseUrl} ${this.use.name}`);
			this.table = undefined;
			inserted = await insert();
		}
		if (inserted.statusCode !== 200) throw this.failure('add a row', inserted);
	}

	/**
	 * The rows whose columns equal the given values, oldest first, page by page: `visit` returns true to stop. n8n's
	 * public API pages with a cursor (it refuses an offset); the next page keeps the filter and the order.
	 */
	async scan(equal: Partial<Record<Column, string>>, visit: (row: TableRow<Column>) => Promise<boolean> | boolean) {
		const filters = Object.entries(equal).map(([columnName, value]) => ({ columnName, condition: 'eq', value }));
		const query = { filter: JSON.stringify({ type: 'and', filters }), sortBy: 'id:asc' };
		let page: Record<string, string> = { ...query, limit: String(ROWS_PER_PAGE) };
		for (;;) {
			const answer = await this.call<{ data?: Array<TableRow<Column>>; nextCursor?: string | null }>(
				'GET',
				`/data-tables/${await this.id()}/rows`,
				{ query: page },
			);
			if (answer.statusCode !== 200) throw this.failure('read rows', answer);
			for (const row of answer.body.data ?? []) if (await visit(row)) return;
			const next = answer.body.nextCursor;
			if (!next) return;
			page = { ...query, cursor: next };
		}
	}

	/** Deletes the rows added before the given time; says whether n8n did. */
	async deleteOlderThan(before: Date): Promise<boolean> {
		const filter = {
			type: 'and',
			filters: [{ columnName: 'createdAt', condition: 'lt', value: before.toISOString() }],
		};
		const answer = await this.call('DELETE', `/data-tables/${await this.id()}/rows/delete`, {
			query: { filter: JSON.stringify(filter) },
		}).catch((error: Error) => ({ statusCode: 0, body: { message: error.message } }));
		return answer.statusCode === 200;
	}

	/** An error of this use, for the caller to throw. */
	error(message: string, description: string): NodeOperationError {
		return new NodeOperationError(this.context.getNode(), message, {
			description: `${description} ${this.use.consequence}`,
		});
	}

	/**
	 * One call to n8n's public API. The query is encoded here, every reserved character percent-encoded: n8n refuses
	 * a `filter` or `sortBy` holding a raw ":" or "+" (the HTTP helper's own query encoding leaves ":" as it is, and
	 * URLSearchParams writes a space as "+").
	 */
	private async call<T>(
		method: IHttpRequestMethods,
		path: string,
		options: { query?: Record<string, string>; body?: IDataObject } = {},
	): Promise<ApiAnswer<T>> {
		const query = options.query
			? `?${Object.entries(options.query)
					.map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
					.join('&')}`
			: '';
		let answer: ApiAnswer<T>;
		for (let attempt = 1; ; attempt++) {
			try {
				answer = (await this.context.helpers.httpRequestWithAuthentication.call(this.context, N8N_API_CREDENTIAL, {
					method,
					url: `${this.baseUrl}/api/v1${path}${query}`,
					body: options.body,
					json: true,
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					timeout: API_TIMEOUT_MS,
				})) as ApiAnswer<T>;
			} catch (error) {
				// No answer at all (refused, reset, or past the time-out).
				throw this.error(
					`n8n's API did not answer ${this.use.purpose}`,
					`${(error as Error).message} (${method} ${this.baseUrl}/api/v1${path}). Check the n8n address of the credential.`,
				);
			}
			// n8n answers 503 "Database is not ready" while its database health check fails (a database that answers late
			// for a few seconds), before it handles the request. Asked again: a row added twice by one caller is harmless
			// to both users (the claim log finds an execution's first claim; answers count a subscriber's first row).
			if (answer.statusCode !== 503 || attempt > NOT_READY_RETRIES.length) break;
			await sleep(NOT_READY_RETRIES[attempt - 1]);
		}
		if (answer.statusCode === 401 || answer.statusCode === 403) {
			throw this.error(
				`n8n's API refused ${this.use.purpose} (${answer.statusCode})`,
				`Check the API key of the n8n API credential: it must be valid and have the scopes ${this.use.scopes}.`,
			);
		}
		return answer;
	}

	private failure(what: string, answer: ApiAnswer<unknown>): NodeOperationError {
		const message = (answer.body as { message?: unknown } | undefined)?.message;
		return this.error(
			`n8n's API did not ${what} of ${this.use.purpose} (HTTP ${answer.statusCode})`,
			typeof message === 'string' ? `n8n answered: ${message.replace(/\.+$/, '')}.` : '',
		);
	}

	/** The oldest data table of that exact name the key can see (creation order decides, so every process agrees). */
	private async find(): Promise<string | undefined> {
		const answer = await this.call<{ data?: Array<{ id: string; name: string; createdAt: string }> }>(
			'GET',
			'/data-tables',
			{ query: { filter: JSON.stringify({ name: this.use.name }), limit: '250' } },
		);
		if (answer.statusCode !== 200) throw this.failure('list the data tables', answer);
		const named = (answer.body.data ?? []).filter((table) => table.name === this.use.name);
		named.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
		return named[0]?.id;
	}

	private async findOrCreate(): Promise<string> {
		const found = await this.find();
		if (found) return found;
		const created = await this.call<{ id?: string }>('POST', '/data-tables', {
			body: { name: this.use.name, columns: this.use.columns.map((name) => ({ name, type: 'string' })) },
		});
		// Looked up again whatever the answer: another process may have created it at the same moment. n8n keeps names
		// unique per project (a unique index on name and project), so the later create fails: 409 when n8n saw the
		// other table first, an error from the database when both inserted at once.
		const chosen = await this.find();
		if (chosen) return chosen;
		throw this.failure(`create the data table "${this.use.name}"`, created);
	}
}
