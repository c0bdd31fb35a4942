import type { IExecuteFunctions } from 'n8n-workflow';
import { N8nDataTable } from '../shared/n8nDataTable';
import type { TableUse } from '../shared/n8nDataTable';
import type { RepeatVerdict } from './repeatCheck';

/**
 * The repeat check on an append-only claim log in an n8n data table. Every execution of an event appends its claim
 * (the hook, the event id and its execution), then reads the claims of that event, oldest first: the oldest claim
 * whose execution has not failed wins. Nothing is overwritten, so no claim can erase another: two executions of one
 * event cannot both take the other's claim for the winner, and a slow or stalled store only delays the answer. The
 * cost per event is one insert and one read of that event's claims (n8n's data tables have no index on a column, so
 * the read scans the claims kept; expired claims are deleted).
 * The table is reached through n8n's public API (see n8nDataTable.ts).
 */

export { N8N_API_CREDENTIAL } from '../shared/n8nDataTable';
export const CLAIM_TABLE_NAME = 'Messenger Bot Builder Trigger claims';
const CLAIM_COLUMNS = ['hook', 'event', 'execution', 'workflow'] as const;

/** Claims are kept this long: the service retries for a bit over an hour, which is the floor. */
export const DEFAULT_CLAIM_HOURS = 24;
export const MIN_CLAIM_HOURS = 2;
/** How often one n8n process deletes expired claims of the log (the first execution after the pause does it). */
const PURGE_EVERY_MS = 10 * 60_000;

type ClaimTable = N8nDataTable<(typeof CLAIM_COLUMNS)[number]>;

/**
 * A failure fails the execution; with "When the Workflow Has Finished" the service then delivers the event again. A
 * claim that did get in belongs to a failed execution, which does not count.
 */
const CLAIM_LOG: TableUse<(typeof CLAIM_COLUMNS)[number]> = {
	name: CLAIM_TABLE_NAME,
	columns: CLAIM_COLUMNS,
	purpose: "the trigger's claim log",
	consequence:
		'This execution did not run the event; the service retries it if the trigger answers only when the workflow has finished.',
	scopes: 'dataTable:list, dataTable:create, dataTableRow:read, dataTableRow:create and dataTableRow:delete',
};

const lastPurge = new Map<string, number>();

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
	table: ClaimTable,
	claim: { hook: string; event: string; execution: string },
): Promise<RepeatVerdict> {
	let verdict: RepeatVerdict | undefined;
	await table.scan({ event: claim.event, hook: claim.hook }, async (row) => {
		if (row.execution === claim.execution) verdict = { outcome: 'new' };
		else {
			// A claim whose execution failed does not block: the event runs again when it is delivered again.
			const state = await claimantState(context, row.execution);
			if (state !== 'failed') verdict = { outcome: 'repeat', of: row.execution, runs: state === 'runs' };
		}
		return verdict !== undefined;
	});
	if (verdict) return verdict;
	throw table.error(
		"The trigger's claim was not found in the claim log",
		`The data table "${CLAIM_TABLE_NAME}" did not return the claim this execution had just added: was it changed or emptied by hand?`,
	);
}

/** Deletes claims older than the kept window, at most once per pause per process; a failure only logs. */
async function purgeExpired(context: IExecuteFunctions, table: ClaimTable, keepHours: number) {
	const now = Date.now();
	const id = await table.id();
	if (now - (lastPurge.get(id) ?? 0) < PURGE_EVERY_MS) return;
	lastPurge.set(id, now);
	if (!(await table.deleteOlderThan(new Date(now - keepHours * 3_600_000)))) {
		context.logger.warn(`Messenger Bot Builder Trigger: expired claims were not deleted from "${CLAIM_TABLE_NAME}"`);
	}
}

/** Records this execution's claim on the event and decides whether it runs the event. */
export async function checkClaim(
	context: IExecuteFunctions,
	event: { hook: string; id: string },
	keepHours: number,
): Promise<RepeatVerdict> {
	const table = await N8nDataTable.of(context, CLAIM_LOG);
	const claim = { hook: event.hook, event: event.id, execution: String(context.getExecutionId()) };
	await table.insert({ ...claim, workflow: String(context.getWorkflow().id ?? '') });
	const verdict = await decide(context, table, claim);
	await purgeExpired(context, table, keepHours);
	return verdict;
}
