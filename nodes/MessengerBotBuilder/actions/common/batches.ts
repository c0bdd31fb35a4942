import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { failedItem, withItemIndex } from './itemFailures';
import { runMemory } from './runMemory';

/** What one input item contributes to a batched call. */
export interface BatchEntry {
	/** Items with the same key share the call-level parameters and may go in one request. */
	key: string;
	/** Call-level parameters (e.g. listid, botid): equal for every entry of a key. */
	shared: IDataObject;
	/** This item's part of the request (e.g. one row). */
	entry: IDataObject;
}

export interface BatchPlan {
	/** Largest number of entries in one request. */
	maxPerRequest: number;
	/** Reads an item's parameters; throwing fails only that item. */
	prepare(this: IExecuteFunctions, itemIndex: number): Promise<BatchEntry>;
	/** A group of one item: the single-item method (which may be safer, e.g. idempotent). */
	single(this: IExecuteFunctions, prepared: BatchEntry, itemIndex: number): Promise<IDataObject>;
	/** Several items in one request; returns one result per entry, in order. */
	many(
		this: IExecuteFunctions,
		shared: IDataObject,
		entries: IDataObject[],
		itemIndexes: number[],
	): Promise<IDataObject[]>;
}

interface Group {
	shared: IDataObject;
	entries: IDataObject[];
	itemIndexes: number[];
}

/** A 422: the service checked the request, refused all of it and changed nothing. */
function refusedWhole(error: unknown): boolean {
	return (error as { httpCode?: string | null } | undefined)?.httpCode === '422';
}

/** Tells the user, on a failed request, that earlier requests of this run did take effect. */
function noteItemsDone(error: unknown, done: number): void {
	if (done === 0 || !error || typeof error !== 'object') return;
	const described = error as { description?: string | null };
	described.description = `${described.description ? `${described.description} ` : ''}Items before this request (${done}) were already processed.`;
}

function chunks<T>(values: T[], size: number): T[][] {
	const result: T[][] = [];
	for (let start = 0; start < values.length; start += size) result.push(values.slice(start, start + size));
	return result;
}

/** One run of `runInBatches`: the results by item, and what the run remembers across Retry On Fail. */
class BatchRun {
	private readonly results: Array<INodeExecutionData | undefined>;
	/** Items that went through before an earlier attempt of this run failed are not sent again (Retry On Fail). */
	private readonly memory: ReturnType<typeof runMemory>;
	private readonly prepared: BatchEntry[] = [];

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly plan: BatchPlan,
		itemCount: number,
	) {
		this.results = new Array(itemCount);
		this.memory = runMemory.call(context);
	}

	/** Reads every item and groups the items by their call-level parameters; an item that cannot be read fails alone. */
	async group(items: INodeExecutionData[]): Promise<Group[]> {
		const groups = new Map<string, Group>();
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const done = this.memory?.done(itemIndex);
			if (done) {
				this.results[itemIndex] = done[0];
				continue;
			}
			// An earlier attempt's request with this item may have taken effect: failed again, not sent again.
			const uncertain = this.memory?.uncertain(itemIndex);
			if (uncertain) {
				this.fail(itemIndex, uncertain);
				continue;
			}
			try {
				const entry = await this.plan.prepare.call(this.context, itemIndex);
				this.prepared[itemIndex] = entry;
				const group = groups.get(entry.key) ?? { shared: entry.shared, entries: [], itemIndexes: [] };
				group.entries.push(entry.entry);
				group.itemIndexes.push(itemIndex);
				groups.set(entry.key, group);
			} catch (error) {
				this.fail(itemIndex, error as Error);
			}
		}
		return [...groups.values()];
	}

	/** Sends one part of a group: one item by the single-item method, several by the bulk method. */
	async send(shared: IDataObject, entries: IDataObject[], itemIndexes: number[]): Promise<void> {
		try {
			if (entries.length === 1) {
				const [itemIndex] = itemIndexes;
				this.put(itemIndex, await this.plan.single.call(this.context, this.prepared[itemIndex], itemIndex));
				return;
			}
			const outputs = await this.plan.many.call(this.context, shared, entries, itemIndexes);
			itemIndexes.forEach((itemIndex, position) => this.put(itemIndex, outputs[position]));
		} catch (error) {
			await this.sendFailed(error, shared, entries, itemIndexes);
		}
	}

	/** The results in input order, each paired with its item. */
	finish(): INodeExecutionData[] {
		this.memory?.finish();
		return this.results.filter((result): result is INodeExecutionData => result !== undefined);
	}

	/** An item's result, put out and remembered for Retry On Fail. */
	private put(itemIndex: number, json: IDataObject): void {
		const result = { json, pairedItem: { item: itemIndex } };
		this.results[itemIndex] = result;
		this.memory?.record(itemIndex, [result]);
	}

	/**
	 * A failed request fails the items it carried. A 422 means the service refused the whole request and applied none
	 * of it; with continueOnFail the part is split in halves and sent again until the refused items are alone, so they
	 * fail by themselves and every other item still gets through.
	 */
	private async sendFailed(error: unknown, shared: IDataObject, entries: IDataObject[], itemIndexes: number[]) {
		if (entries.length > 1 && this.context.continueOnFail() && refusedWhole(error)) {
			const half = Math.ceil(entries.length / 2);
			await this.send(shared, entries.slice(0, half), itemIndexes.slice(0, half));
			await this.send(shared, entries.slice(half), itemIndexes.slice(half));
			return;
		}
		if (!this.context.continueOnFail()) {
			noteItemsDone(error, this.results.filter(Boolean).length);
			// The node throws below and Retry On Fail runs it again: none of these items is sent again.
			for (const itemIndex of itemIndexes) this.memory?.failed(itemIndex, error);
		}
		for (const itemIndex of itemIndexes) this.fail(itemIndex, error as Error);
	}

	/** With continueOnFail the item becomes an error item; without, the node fails naming it. */
	private fail(itemIndex: number, error: Error): void {
		if (!this.context.continueOnFail()) throw withItemIndex(this.context.getNode(), error, itemIndex);
		this.results[itemIndex] = failedItem(error, itemIndex);
	}
}

/**
 * Runs an operation for all items with as few requests as possible: items are grouped by their
 * call-level parameters and sent `maxPerRequest` at a time. Results go back to their own items
 * (paired), in input order. A failed request fails the items it carried; with continueOnFail they
 * become error items (a refused request is narrowed down to its refused items first) and the
 * other requests go on.
 */
export async function runInBatches(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	plan: BatchPlan,
): Promise<INodeExecutionData[]> {
	const run = new BatchRun(this, plan, items.length);
	for (const group of await run.group(items)) {
		const entryChunks = chunks(group.entries, plan.maxPerRequest);
		const indexChunks = chunks(group.itemIndexes, plan.maxPerRequest);
		for (let chunk = 0; chunk < entryChunks.length; chunk++) {
			await run.send(group.shared, entryChunks[chunk], indexChunks[chunk]);
		}
	}
	return run.finish();
}
