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
	const results: Array<INodeExecutionData | undefined> = new Array(items.length);
	// Items that went through before an earlier attempt of this run failed are not sent again (Retry On Fail).
	const memory = runMemory.call(this);
	const fail = (itemIndex: number, error: Error) => {
		if (!this.continueOnFail()) throw withItemIndex(this.getNode(), error, itemIndex);
		results[itemIndex] = failedItem(error, itemIndex);
	};

	const groups = new Map<string, Group>();
	const prepared: BatchEntry[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const done = memory?.done(itemIndex);
		if (done) {
			results[itemIndex] = done[0];
			continue;
		}
		// An earlier attempt's request with this item may have taken effect: failed again, not sent again.
		const uncertain = memory?.uncertain(itemIndex);
		if (uncertain) {
			fail(itemIndex, uncertain);
			continue;
		}
		try {
			const entry = await plan.prepare.call(this, itemIndex);
			prepared[itemIndex] = entry;
			const group = groups.get(entry.key) ?? { shared: entry.shared, entries: [], itemIndexes: [] };
			group.entries.push(entry.entry);
			group.itemIndexes.push(itemIndex);
			groups.set(entry.key, group);
		} catch (error) {
			fail(itemIndex, error as Error);
		}
	}

	/**
	 * Sends one part of a group. A 422 means the service refused the whole request and applied none
	 * of it; with continueOnFail the part is split in halves and sent again until the refused items
	 * are alone, so they fail by themselves and every other item still gets through.
	 */
	const send = async (shared: IDataObject, entries: IDataObject[], itemIndexes: number[]): Promise<void> => {
		try {
			if (entries.length === 1) {
				const [itemIndex] = itemIndexes;
				results[itemIndex] = {
					json: await plan.single.call(this, prepared[itemIndex], itemIndex),
					pairedItem: { item: itemIndex },
				};
				memory?.record(itemIndex, [results[itemIndex]!]);
				return;
			}
			const outputs = await plan.many.call(this, shared, entries, itemIndexes);
			itemIndexes.forEach((itemIndex, position) => {
				results[itemIndex] = { json: outputs[position], pairedItem: { item: itemIndex } };
				memory?.record(itemIndex, [results[itemIndex]!]);
			});
		} catch (error) {
			if (entries.length > 1 && this.continueOnFail() && refusedWhole(error)) {
				const half = Math.ceil(entries.length / 2);
				await send(shared, entries.slice(0, half), itemIndexes.slice(0, half));
				await send(shared, entries.slice(half), itemIndexes.slice(half));
				return;
			}
			if (!this.continueOnFail()) {
				noteItemsDone(error, results.filter(Boolean).length);
				// The node throws below and Retry On Fail runs it again: none of these items is sent again.
				for (const itemIndex of itemIndexes) memory?.failed(itemIndex, error);
			}
			for (const itemIndex of itemIndexes) fail(itemIndex, error as Error);
		}
	};

	for (const group of groups.values()) {
		const entryChunks = chunks(group.entries, plan.maxPerRequest);
		const indexChunks = chunks(group.itemIndexes, plan.maxPerRequest);
		for (let chunk = 0; chunk < entryChunks.length; chunk++) {
			await send(group.shared, entryChunks[chunk], indexChunks[chunk]);
		}
	}
	memory?.finish();
	return results.filter((result): result is INodeExecutionData => result !== undefined);
}
