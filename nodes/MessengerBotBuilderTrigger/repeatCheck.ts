import type { IDeduplicationOutput, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError, sleep } from 'n8n-workflow';

/**
 * The repeat check that holds across n8n processes and restarts: each accepted event id is recorded in n8n's own
 * `processed_data` table (the store of n8n's Remove Duplicates node), which every main, worker and webhook process
 * shares. n8n offers its deduplication helpers to a node's `execute()` but not to `webhook()`, and n8n 2.41.1 runs a
 * webhook-started trigger's `execute()` at the start of the execution with what `webhook()` returned as its input
 * (n8n-core `WorkflowExecute.runNode`: a node type with `execute` is run through `executeNode` before the webhook
 * pass-through is considered), so the check lives there.
 *
 * n8n's `checkProcessedAndRecord` (n8n `DeduplicationHelper.handleHashedItems`) reads the node's whole history row,
 * adds the new hashes and writes the row back, without a lock: two simultaneous calls both read "new", and the
 * later write replaces the earlier one (last writer wins), also for calls about other events. So an id is recorded
 * together with a claim that only this execution writes, and read back after a settling pause:
 * - our claim is still there: no rival replaced our write during the pause; we run the event;
 * - the id is there but not our claim: a rival recorded the same id after us (its write replaced ours); it runs it;
 * - neither is there: a write about other events replaced ours; the read-back wrote both again, and we look again
 *   after a longer, random pause (simultaneous executions of one trigger overwrite each other's records).
 * This decides right while every call's read-to-write is shorter than the pause (the pause scales with how long the
 * store takes to answer here). A call slower than that (a stalled database or event loop) can make two executions of
 * one event both run it, or, when it puts back a row read before the rival's write, both take it for a repeat: the
 * event is then not run. n8n offers no atomic write to rule that out; the topology benchmark measures what is left.
 * When the record cannot settle at all, the event runs (a doubled run is the lesser failure than a lost event), and
 * n8n's log says so.
 */

/**
 * Events remembered per trigger by default: n8n keeps two entries per event (its id and its claim), in one row that
 * each call reads and writes whole, so the cost per event grows with the size (bench:topology measures it).
 */
export const DEFAULT_HISTORY_SIZE = 1000;
export const MAX_HISTORY_SIZE = 100_000;

/**
 * The pause before reading back: this many times the store's own answer time, within these bounds. A rival's
 * read-to-write takes about as long as ours on the same database; a few times that leaves room for a slow one. The
 * pause holds a worker's job slot (not its CPU), so a longer one costs executions per second (bench:topology measures
 * that, and counts simultaneous repeats that ran twice).
 */
const SETTLE_FACTOR = 3;
const MIN_SETTLE_MS = 50;
/** Only a ceiling against a store that hangs: the pause must outlast a rival's read-to-write, however slow. */
const MAX_SETTLE_MS = 30_000;
/**
 * Read-backs while writes about other events keep replacing ours, before the event runs unchecked. Every call writes
 * the row, so simultaneous executions of one trigger replace each other's records: each read-back waits longer and at
 * a random point (up to 2^4 times the pause), so that they fall out of step and stop overwriting each other.
 */
const MAX_READ_BACKS = 10;
const MAX_BACKOFF_DOUBLINGS = 4;
/** A first write for a trigger races another process's first write into n8n's unique row: tried again. */
const STORE_ATTEMPTS = 3;

export type RepeatVerdict =
	/** First time this event is seen: run it. */
	| { outcome: 'new' }
	/**
	 * Already recorded by another execution (`of`, where the store knows it): start nothing. `runs`: that execution
	 * has not ended yet, as far as the store can tell.
	 */
	| { outcome: 'repeat'; of?: string; runs?: boolean }
	/** Run, but the check could not decide; `why` is for n8n's log. */
	| { outcome: 'unchecked'; why: string };

type Record = (items: string[]) => Promise<IDeduplicationOutput>;

/** n8n versions before the deduplication helpers (n8n-core 1.64) run the event unchecked, and say so once per process. */
let missingHelpersLogged = false;

function recorder(context: IExecuteFunctions, historySize: number): Record | undefined {
	const helpers = context.helpers as Partial<IExecuteFunctions['helpers']>;
	if (typeof helpers.checkProcessedAndRecord !== 'function') return undefined;
	const check = helpers.checkProcessedAndRecord.bind(helpers);
	return async (items) => {
		for (let attempt = 1; ; attempt++) {
			try {
				return await check(items, 'node', { mode: 'entries', maxEntries: historySize * 2 });
			} catch (error) {
				if (attempt >= STORE_ATTEMPTS) {
					throw new NodeOperationError(context.getNode(), error as Error, {
						message: "n8n's database did not answer the trigger's repeat check",
						description:
							"This execution did not run the event. Another execution may have run it (the check may have been recorded before the error): look for the event in this workflow's executions before you retry this one (a retried execution is not checked for repeats).",
					});
				}
				await sleep(MIN_SETTLE_MS * attempt);
			}
		}
	};
}

const has = (result: IDeduplicationOutput, item: string) => result.processed.includes(item);

/**
 * Checks and records one event in n8n's shared store. `key` identifies the event (its hook and id), `claim` is unique
 * to this execution and stable when n8n runs the same execution again (a job a crashed worker left is re-run): a
 * re-run finds its own claim and runs the event, it does not take it for a repeat.
 */
export async function checkRepeat(
	context: IExecuteFunctions,
	key: string,
	claim: string,
	historySize: number,
): Promise<RepeatVerdict> {
	const record = recorder(context, historySize);
	if (!record) {
		if (!missingHelpersLogged) {
			missingHelpersLogged = true;
			context.logger.warn(
				'Messenger Bot Builder Trigger: this n8n has no deduplication helpers (n8n 1.64 or newer has them), so a repeated ' +
					'delivery that reaches another n8n process, or arrives after a restart, starts the workflow again. Use the ' +
					"event's id as an idempotency key downstream.",
			);
		}
		return { outcome: 'unchecked', why: 'no deduplication helpers in this n8n' };
	}
	const started = Date.now();
	const first = await record([key, claim]);
	if (has(first, claim)) return { outcome: 'new' };
	if (has(first, key)) return { outcome: 'repeat' };
	const settleMs = Math.min(MAX_SETTLE_MS, Math.max(MIN_SETTLE_MS, SETTLE_FACTOR * (Date.now() - started)));
	for (let readBack = 1; readBack <= MAX_READ_BACKS; readBack++) {
		// The first pause is the settling pause itself; later ones back off, each at a random point of its window.
		const backoff = readBack === 1 ? 1 : 2 ** Math.min(readBack - 1, MAX_BACKOFF_DOUBLINGS) * (0.5 + Math.random());
		await sleep(Math.round(settleMs * backoff));
		const again = await record([key, claim]);
		if (has(again, claim)) return { outcome: 'new' };
		if (has(again, key)) return { outcome: 'repeat' };
	}
	return { outcome: 'unchecked', why: `other writes replaced this event's record ${MAX_READ_BACKS} times in a row` };
}
