import { createHash } from 'node:crypto';
import { DataDeduplicationService } from 'n8n-core';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';
import { ApplicationError } from 'n8n-workflow';

/**
 * n8n's `processed_data` table for the tests, with the semantics of n8n 2.41.1's `DeduplicationHelper` (n8n
 * `dist/deduplication/deduplication-helper.js`, `handleHashedItems`), which the trigger's repeat check is built
 * against: one row per workflow and context (`n:<node id>` for scope node); a call reads the row, adds the md5 of each
 * new item, drops the oldest beyond `maxEntries`, and writes the whole row back, without a lock; the first call
 * inserts the row, and a second first insert fails as the unique key does. `readToWriteMs` puts a database round trip
 * between the read and the write, so simultaneous calls race as they do on two n8n workers.
 */
export class ProcessedDataStore implements IDataDeduplicator {
	readonly rows = new Map<string, string[]>();

	/** Every write, in order (for tests that look at the race). */
	writes = 0;

	readToWriteMs = 0;

	private static key(scope: DeduplicationScope, contextData: ICheckProcessedContextData): string {
		if (!contextData.workflow.id) throw new ApplicationError('processed data needs a workflow id');
		return `${contextData.workflow.id}|${scope === 'node' ? `n:${contextData.node?.id}` : ''}`;
	}

	private static hash(item: DeduplicationItemTypes): string {
		return createHash('md5').update(item.toString()).digest('base64');
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		contextData: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		if (options.mode !== 'entries') throw new ApplicationError('only mode "entries" is modelled');
		const key = ProcessedDataStore.key(scope, contextData);
		const read = this.rows.get(key);
		const row = read ? [...read] : undefined;
		if (this.readToWriteMs > 0)
			await new Promise((resolve) => setTimeout(resolve, this.readToWriteMs * (0.5 + Math.random())));
		const hashes = items.map(ProcessedDataStore.hash);
		if (!row) {
			if (this.rows.has(key))
				throw new ApplicationError('duplicate key value violates unique constraint "PK_processed_data"');
			this.rows.set(key, options.maxEntries ? hashes.slice(-options.maxEntries) : hashes);
			this.writes++;
			return { new: items, processed: [] };
		}
		const known = new Set(row);
		const result: IDeduplicationOutput = { new: [], processed: [] };
		hashes.forEach((hash, index) => {
			if (known.has(hash)) result.processed.push(items[index]);
			else {
				result.new.push(items[index]);
				row.push(hash);
			}
		});
		if (options.maxEntries) row.splice(0, row.length - options.maxEntries);
		this.rows.set(key, row);
		this.writes++;
		return result;
	}

	async removeProcessed(): Promise<void> {
		throw new ApplicationError('not used by the trigger');
	}

	async clearAllProcessedItems(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<void> {
		this.rows.delete(ProcessedDataStore.key(scope, contextData));
	}

	async getProcessedDataCount(scope: DeduplicationScope, contextData: ICheckProcessedContextData): Promise<number> {
		return this.rows.get(ProcessedDataStore.key(scope, contextData))?.length ?? 0;
	}
}

let initialised = false;

/**
 * The store n8n-core's deduplication helpers use in this test file: one for the file, like n8n's database, also behind
 * copies of n8n-core loaded apart (`jest.isolateModules`, a second n8n process), each of which n8n initialises once.
 */
export function processedDataStore(): ProcessedDataStore {
	const holder = globalThis as { __processedDataStore?: ProcessedDataStore };
	holder.__processedDataStore ??= new ProcessedDataStore();
	if (!initialised) {
		initialised = true;
		void DataDeduplicationService.init(holder.__processedDataStore);
	}
	return holder.__processedDataStore;
}
