import type { IDataObject, IExecuteFunctions, IHttpRequestMethods } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { RepeatVerdict } from './repeatCheck';

/**
 * The repeat check on an append-only claim log in an n8n data table. Every execution of an event appends its claim
 * (the hook, the event id and its execution), then reads the claims of that event, oldest first: the oldest claim
 * whose execution has not failed wins. Nothing is overwritten, so no claim can erase another: two executions of one
 * event cannot both take the other's claim for the winner, and a slow or stalled store only delays the answer. The
 * cost per event is one insert and one read of that event's claims (n8n's data tables have no index on a column, so
 * the read scans the claims kept; expired claims are deleted).
 *
 * n8n 2.41.1 gives its data tables to n8n's own Data table nodes only (`modules/data-table/data-table-proxy.service.js`
 * refuses any other node type with "This proxy is only available for Data table nodes"), so the trigger reaches them
 * through n8n's public API (`/api/v1/data-tables`) with an API key of the same n8n.
 */

export const N8N_API_CREDENTIAL = 'messengerBotBuilderN8nApi';
export const CLAIM_TABLE_NAME = 'Messenger Bot Builder Trigger claims';
const CLAIM_COLUMNS = ['hook', 'event', 'execution', 'workflow'] as const;

/** Claims are kept this long: the service retries for a bit over an hour, which is the floor. */
export const DEFAULT_CLAIM_HOURS = 24;
export const MIN_CLAIM_HOURS = 2;
/** How often one n8n process deletes expired claims of the log (the first execution after the pause does it). */
const PURGE_EVERY_MS = 10 * 60_000;
/** How long one call to n8n's API may take before the execution gives up on it and fails. */
const API_TIMEOUT_MS = 30_000;
/** Claims of one event read per call: more only when that many earlier executions of the event failed. */
const CLAIMS_PER_PAGE = 50;

type ClaimRow = { [column in (typeof CLAIM_COLUMNS)[number]]: string } & { id: number };

interface ApiAnswer<T> {
	statusCode: number;
	body: T;
}

/** The data table's id per n8n address, found or created once per process. */
const tableIds = new Map<string, Promise<string>>();
const lastPurge = new Map<string, number>();

async function baseUrlOf(context: IExecuteFunctions): Promise<string> {
	const credentials = await context.getCredentials(N8N_API_CREDENTIAL);
	const baseUrl = typeof credentials.baseUrl === 'string' ? credentials.baseUrl.trim().replace(/\/+$/, '') : '';
	if (!/^https?:\/\//.test(baseUrl)) {
		throw new NodeOperationError(context.getNode(), 'The n8n address of the n8n API credential is not an http(s) URL', {
			description: 'Set "n8n Address" to the address of n8n\'s main process, for example http://n8n-main:5678.',
		});
	}
	return baseUrl;
}

/**
 * One call to n8n's public API. The query is encoded here, every reserved character percent-encoded: n8n refuses a
 * `filter` or `sortBy` holding a raw ":" or "+" (the HTTP helper's own query encoding leaves ":" as it is, and
 * URLSearchParams writes a space as "+").
 */
async function callApi<T>(
	context: IExecuteFunctions,
	baseUrl: string,
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
	try {
		answer = (await context.helpers.httpRequestWithAuthentication.call(context, N8N_API_CREDENTIAL, {
			method,
			url: `${baseUrl}/api/v1${path}${query}`,
			body: options.body,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: API_TIMEOUT_MS,
		})) as ApiAnswer<T>;
	} catch (error) {
		// No answer at all (refused, reset, or past the time-out): the execution fails; with "When the Workflow Has
		// Finished" the service then delivers the event again. A claim that did get in belongs to a failed execution,
		// which does not count.
		throw new NodeOperationError(context.getNode(), "n8n's API did not answer the trigger's claim log", {
			description: `${(error as Error).message} (${method} ${baseUrl}/api/v1${path}). Check the n8n address of the credential. This execution did not run the event.`,
		});
	}
	if (answer.statusCode === 401 || answer.statusCode === 403) {
		throw new NodeOperationError(
			context.getNode(),
			`n8n's API refused the trigger's claim log (${answer.statusCode})`,
			{
				description:
					'Check the API key of the n8n API credential: it must be valid and have the scopes dataTable:list, dataTable:create, dataTableRow:read, dataTableRow:create and dataTableRow:delete. This execution did not run the event; the service retries it if the trigger answers only when the workflow has finished.',
			},
		);
	}
	return answer;
}

function apiFailure(context: IExecuteFunctions, what: string, answer: ApiAnswer<unknown>): NodeOperationError {
	const message = (answer.body as { message?: unknown } | undefined)?.message;
	return new NodeOperationError(context.getNode(), `n8n's API did not ${what} (HTTP ${answer.statusCode})`, {
		description: `${typeof message === 'string' ? `n8n answered: ${message.replace(/\.+$/, '')}. ` : ''}This execution did not run the event.`,
	});
}

/** The oldest data table of that exact name the key can see (creation order decides, so every process agrees). */
async function findTable(context: IExecuteFunctions, baseUrl: string): Promise<string | undefined> {
	const answer = await callApi<{ data?: Array<{ id: string; name: string; createdAt: string }> }>(
		context,
		baseUrl,
		'GET',
		'/data-tables',
		{ query: { filter: JSON.stringify({ name: CLAIM_TABLE_NAME }), limit: '250' } },
	);
	if (answer.statusCode !== 200) throw apiFailure(context, 'list the data tables', answer);
	const named = (answer.body.data ?? []).filter((table) => table.name === CLAIM_TABLE_NAME);
	named.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
	return named[0]?.id;
}

async function findOrCreateTable(context: IExecuteFunctions, baseUrl: string): Promise<string> {
	const found = await findTable(context, baseUrl);
	if (found) return found;
	const created = await callApi<{ id?: string }>(context, baseUrl, 'POST', '/data-tables', {
		body: { name: CLAIM_TABLE_NAME, columns: CLAIM_COLUMNS.map((name) => ({ name, type: 'string' })) },
	});
	// Looked up again whatever the answer: another process may have created it at the same moment. n8n keeps names
	// unique per project (a unique index on name and project), so the later create fails: 409 when n8n saw the other
	// table first, an error from the database when both inserted at once.
	const chosen = await findTable(context, baseUrl);
	if (chosen) return chosen;
	throw apiFailure(context, `create the data table "${CLAIM_TABLE_NAME}"`, created);
}

function claimTable(context: IExecuteFunctions, baseUrl: string): Promise<string> {
	let table = tableIds.get(baseUrl);
	if (!table) {
		table = findOrCreateTable(context, baseUrl);
		tableIds.set(baseUrl, table);
		// A failure is not kept: the next execution tries again.
		table.catch(() => tableIds.delete(baseUrl));
	}
	return table;
}

const eventFilter = (hook: string, event: string) =>
	JSON.stringify({
		type: 'and',
		filters: [
			{ columnName: 'event', condition: 'eq', value: event },
			{ columnName: 'hook', condition: 'eq', value: hook },
		],
	});

/**
 * Where the execution that made a claim stands, from its data in n8n's database (n8n gives a node an execution's data,
 * not its status): a failed run keeps its error (also one n8n failed as stalled after its worker died); a finished
 * one has nothing left on its stack and does not wait. Anything else still runs, or waits to resume. Without
 * `getExecutionDataById` (an older n8n), or when the execution was deleted, the claim counts as run.
 */
async function claimantState(context: IExecuteFunctions, executionId: string): Promise<'failed' | 'ended' | 'runs'> {
	const read = (context as Partial<Pick<IExecuteFunctions, 'getExecutionDataById'>>).getExecutionDataById;
	if (typeof read !== 'function') return 'ended';
	const data = await read.call(context, executionId);
	if (!data) return 'ended';
	if (data.resultData?.error !== undefined) return 'failed';
	const waiting = data.waitTill !== undefined && data.waitTill !== null;
	return (data.executionData?.nodeExecutionStack?.length ?? 0) === 0 && !waiting ? 'ended' : 'runs';
}

/** Reads the event's claims oldest first, until ours: the first claim of an execution that did not fail wins. */
async function decide(
	context: IExecuteFunctions,
	baseUrl: string,
	table: string,
	claim: { hook: string; event: string; execution: string },
): Promise<RepeatVerdict> {
	const query = { filter: eventFilter(claim.hook, claim.event), sortBy: 'id:asc' };
	// n8n's public API pages with a cursor (it refuses an offset); the next page keeps the filter and the order.
	let page: Record<string, string> = { ...query, limit: String(CLAIMS_PER_PAGE) };
	for (;;) {
		const answer = await callApi<{ data?: ClaimRow[]; nextCursor?: string | null }>(
			context,
			baseUrl,
			'GET',
			`/data-tables/${table}/rows`,
			{ query: page },
		);
		if (answer.statusCode !== 200) throw apiFailure(context, "read the event's claims", answer);
		for (const row of answer.body.data ?? []) {
			if (row.execution === claim.execution) return { outcome: 'new' };
			// A claim whose execution failed does not block: the event runs again when it is delivered again.
			const state = await claimantState(context, row.execution);
			if (state !== 'failed') return { outcome: 'repeat', of: row.execution, runs: state === 'runs' };
		}
		const next = answer.body.nextCursor;
		if (!next) {
			throw new NodeOperationError(context.getNode(), "The trigger's claim was not found in the claim log", {
				description: `The data table "${CLAIM_TABLE_NAME}" did not return the claim this execution had just added: was it changed or emptied by hand? This execution did not run the event.`,
			});
		}
		page = { ...query, cursor: next };
	}
}

/** Deletes claims older than the kept window, at most once per pause per process; a failure only logs. */
async function purgeExpired(context: IExecuteFunctions, baseUrl: string, table: string, keepHours: number) {
	const now = Date.now();
	if (now - (lastPurge.get(table) ?? 0) < PURGE_EVERY_MS) return;
	lastPurge.set(table, now);
	const before = new Date(now - keepHours * 3_600_000).toISOString();
	const answer = await callApi(context, baseUrl, 'DELETE', `/data-tables/${table}/rows/delete`, {
		query: {
			filter: JSON.stringify({ type: 'and', filters: [{ columnName: 'createdAt', condition: 'lt', value: before }] }),
		},
	}).catch((error: Error) => ({ statusCode: 0, body: { message: error.message } }));
	if (answer.statusCode !== 200) {
		context.logger.warn(
			`Messenger Bot Builder Trigger: expired claims were not deleted from "${CLAIM_TABLE_NAME}" (HTTP ${answer.statusCode})`,
		);
	}
}

/** Records this execution's claim on the event and decides whether it runs the event. */
export async function checkClaim(
	context: IExecuteFunctions,
	event: { hook: string; id: string },
	keepHours: number,
): Promise<RepeatVerdict> {
	const baseUrl = await baseUrlOf(context);
	let table = await claimTable(context, baseUrl);
	const claim = { hook: event.hook, event: event.id, execution: String(context.getExecutionId()) };
	const row = { ...claim, workflow: String(context.getWorkflow().id ?? '') };
	const insert = async () =>
		await callApi(context, baseUrl, 'POST', `/data-tables/${table}/rows`, { body: { data: [row], returnType: 'id' } });
	let inserted = await insert();
	if (inserted.statusCode === 404) {
		// The table was deleted since this process found it: find or create it again, once.
		tableIds.delete(baseUrl);
		table = await claimTable(context, baseUrl);
		inserted = await insert();
	}
	if (inserted.statusCode !== 200) throw apiFailure(context, "add the execution's claim", inserted);
	const verdict = await decide(context, baseUrl, table, claim);
	await purgeExpired(context, baseUrl, table, keepHours);
	return verdict;
}
