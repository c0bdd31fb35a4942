/** Reading n8n executions through the public API: waiting for them, their outcome, a node's output. */
import type { Execution, PublicApi } from './n8nApi.ts';
import { waitFor } from './waitFor.ts';

const unfinished = new Set(['new', 'running', 'waiting']);

/** Waits until the workflow has at least `count` executions and all of them ended; oldest first, with data. */
export async function waitForExecutions(
	api: PublicApi,
	workflowId: string,
	count: number,
	timeoutMs = 60_000,
): Promise<Execution[]> {
	return waitFor(
		async () => {
			const executions = await api.executions(workflowId, { includeData: true });
			if (executions.length < count || executions.some((execution) => unfinished.has(execution.status)))
				return undefined;
			return executions.sort((a, b) => Number(a.id) - Number(b.id));
		},
		{ what: `${count} finished execution(s) of workflow ${workflowId}`, timeoutMs, intervalMs: 500 },
	);
}

/** Throws with n8n's own error message when the execution did not succeed. */
export function assertSucceeded(execution: Execution): void {
	if (execution.status === 'success') return;
	const error = execution.data?.resultData.error;
	const where = execution.data?.resultData.lastNodeExecuted;
	throw new Error(
		`execution ${execution.id} ended with status "${execution.status}"` +
			(error ? ` in node "${where}": ${error.message ?? ''} ${error.description ?? ''}` : ''),
	);
}

/** A JSON object as a node puts it out; callers that know a node's output shape name it as the type argument. */
export type ItemJson = Record<string, unknown>;

/** An event as the trigger puts it out: the delivery's body. */
export interface EventItem {
	id: string;
	type: string;
	hook: string;
	created: string;
	data: {
		subscriber: Record<string, unknown>;
		payment: Record<string, unknown>;
		stage: string;
		previous: string | null;
	};
}

/** The JSON of every item that `nodeName` output (first run, main output 0). */
export function nodeOutput<T extends object = ItemJson>(execution: Execution, nodeName: string): T[] {
	const runs = execution.data?.resultData.runData[nodeName];
	if (!runs?.length) throw new Error(`node "${nodeName}" did not run in execution ${execution.id}`);
	return (runs[0].data?.main[0] ?? []).map((item) => item.json as T);
}

/** The JSON of every item `nodeName` output in its first run (main output 0), or undefined when it did not run. */
export function outputIfRan<T extends object = ItemJson>(execution: Execution, nodeName: string): T[] | undefined {
	const runs = execution.data?.resultData.runData[nodeName];
	if (!runs?.length) return undefined;
	return (runs[0].data?.main[0] ?? []).map((item) => item.json as T);
}

/** One line per execution for failure messages: id, status, and how many items each node that ran put out. */
export function describeRuns(executions: Execution[]): string {
	return executions
		.map((execution) => {
			const nodes = Object.entries(execution.data?.resultData.runData ?? {}).map(
				([name, runs]) => `${name}: ${runs[0]?.data?.main[0]?.length ?? 0}`,
			);
			return `#${execution.id} ${execution.status} {${nodes.join(', ')}}`;
		})
		.join('; ');
}

/**
 * An event that reached n8n any number of times ran the workflow once. The trigger keeps the event ids it let through
 * (n8n's deduplication, in its execute()), so a repeat that reaches a process which did not see the event first still
 * makes an execution, but in it the trigger puts out nothing and no node after it runs. Checks, among `executions`
 * of one workflow: exactly one put the event out of `trigger` (its `id`), succeeded, and ran `next`; every execution
 * whose trigger put out nothing ran no other node. Executions of other events are left alone. Returns the one run.
 */
export function assertEventRanOnce(
	executions: Execution[],
	eventId: string,
	nodes: { trigger: string; next: string },
): Execution {
	const carrying = executions.filter((execution) =>
		(outputIfRan(execution, nodes.trigger) ?? []).some((item) => item.id === eventId),
	);
	const seen = `executions: ${describeRuns(executions)}`;
	if (carrying.length !== 1)
		throw new Error(
			`event ${eventId}: ${carrying.length} executions put it out of "${nodes.trigger}", expected exactly one; ${seen}`,
		);
	const [run] = carrying;
	assertSucceeded(run);
	if (!outputIfRan(run, nodes.next))
		throw new Error(`event ${eventId}: "${nodes.next}" did not run in execution ${run.id}; ${seen}`);
	for (const execution of executions) {
		if ((outputIfRan(execution, nodes.trigger) ?? []).length > 0) continue;
		const ran = Object.keys(execution.data?.resultData.runData ?? {}).filter((name) => name !== nodes.trigger);
		if (ran.length)
			throw new Error(
				`execution ${execution.id}: "${nodes.trigger}" put out nothing, yet ${ran.join(', ')} ran; ${seen}`,
			);
	}
	return run;
}
