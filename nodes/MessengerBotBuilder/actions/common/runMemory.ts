import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

/**
 * With the node setting Retry On Fail, n8n runs the whole node again when it throws, with the same
 * input, in the same process and execution. Items that already went through in the failed attempt
 * (a message sent, a bulk request of rows added) must not be sent again: their results are kept
 * here, per execution, node and run, and put out again by the retry instead of repeating them.
 * Neither must an item whose change may have taken effect (no answer, or a 5xx, and no
 * Idempotency-Key to repeat it safely): its error is kept and the retry fails it again unsent.
 * Entries go when the node finishes, or after KEEP_MS (n8n waits at most 5 s between tries).
 */
const KEEP_MS = 15 * 60_000;

interface Entry {
	expires: number;
	results: Map<number, INodeExecutionData[]>;
	uncertain: Map<number, Error>;
}

/** A change that may have reached the service, which repeating could apply twice. */
function mayBeAppliedTwice(error: unknown): boolean {
	const context = (error as { context?: IDataObject } | undefined)?.context;
	return context?.mayHaveTakenEffect === true && context.sentWithIdempotencyKey !== true;
}

const runs = new Map<string, Entry>();

const RETRY_NOTE =
	'Retry On Fail does not send it again either: check first, then run the item again if it did not take effect.';

export interface RunMemory {
	/** The outputs of an item that already succeeded in an earlier attempt of this run. */
	done(itemIndex: number): INodeExecutionData[] | undefined;
	record(itemIndex: number, outputs: INodeExecutionData[]): void;
	/** The error of an item whose change may have taken effect in an earlier attempt: it is not sent again. */
	uncertain(itemIndex: number): Error | undefined;
	/** Keeps a failed item's error when its change may have taken effect, so that the retry does not send it. */
	failed(itemIndex: number, error: unknown): void;
	/** The node finished: nothing is left to retry. */
	finish(): void;
}

/** Where the node keeps the id of the execution its runs belong to (see runOfNode). */
const FIRST_EXECUTION_KEY = 'messengerBotBuilderFirstExecution';

/**
 * The execution a run belongs to: this one, or, in n8n's Retry of a failed execution, the one retried. n8n 2.41.1's
 * Retry (ExecutionService.retry) starts a new execution on the failed one's data, node contexts included, and runs
 * the failed node again at the same run index; so the id kept in the node's context on its first run names the
 * execution that first ran it.
 */
function firstExecution(this: IExecuteFunctions, executionId: string): string {
	const context = this.getContext('node');
	const kept = context[FIRST_EXECUTION_KEY];
	if (typeof kept === 'string' && kept !== '') return kept;
	context[FIRST_EXECUTION_KEY] = executionId;
	return executionId;
}

/**
 * This run of the node in this execution: a node that runs again in the same execution (a loop) is
 * another run; n8n's Retry On Fail repeats the same run, and so does n8n's Retry of a failed execution. Undefined
 * without an execution id, where runs of different executions could not be told apart.
 */
export function runOfNode(this: IExecuteFunctions): string | undefined {
	const executionId = this.getExecutionId();
	if (!executionId) return undefined;
	const runIndex = Number(this.getWorkflowDataProxy(0).$runIndex ?? 0);
	return `${firstExecution.call(this, executionId)}:${this.getNode().id}:${runIndex}`;
}

/** The memory of this run of the node, or undefined when n8n will not retry it (Retry On Fail off). */
export function runMemory(this: IExecuteFunctions): RunMemory | undefined {
	const node = this.getNode();
	if (!node.retryOnFail) return undefined;
	const now = Date.now();
	for (const [key, entry] of runs) if (entry.expires < now) runs.delete(key);
	const key = runOfNode.call(this);
	// Without an execution id another execution's results could be put out instead of sending: no memory.
	if (key === undefined) return undefined;
	const entry = runs.get(key) ?? { expires: 0, results: new Map(), uncertain: new Map() };
	entry.expires = now + KEEP_MS;
	runs.set(key, entry);
	return {
		done: (itemIndex) => entry.results.get(itemIndex),
		record: (itemIndex, outputs) => {
			entry.results.set(itemIndex, outputs);
		},
		uncertain: (itemIndex) => entry.uncertain.get(itemIndex),
		failed: (itemIndex, error) => {
			if (!mayBeAppliedTwice(error) || entry.uncertain.has(itemIndex)) return;
			const described = error as Error & { description?: string | null };
			if (!described.description?.includes(RETRY_NOTE))
				described.description = `${described.description ? `${described.description} ` : ''}${RETRY_NOTE}`;
			entry.uncertain.set(itemIndex, described);
		},
		finish: () => {
			runs.delete(key);
		},
	};
}
