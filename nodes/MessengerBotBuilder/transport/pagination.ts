import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { RESOURCE_OF_PATH, UnreadableListError, findRecords, identityOf, type RecordIdentity } from './listAnswer';
import { apiRequest, credentialIdOf, type ApiContext, type ApiRequest } from './request';

export { UnreadableListError, findRecords } from './listAnswer';

/**
 * Records asked for per page. The service documents no maximum; it may serve fewer (a silent cap)
 * or refuse more (a 422 on `limit`): the node learns either and goes on.
 */
export const LARGEST_PAGE = 1000;

/** How many times a read starts again after the records moved under it, before it fails. */
const MAX_RESTARTS = 2;

/** The largest page a method accepted after refusing a larger one, per credential, in this process. */
const learnedLargestPage = new Map<string, number>();

export interface PageRequest extends ApiRequest {
	/** The resource's name, for a method not in `RESOURCE_OF_PATH`. */
	recordsField?: string;
}

export interface Paging {
	returnAll: boolean;
	/** Used when `returnAll` is false. */
	limit: number;
}

/** One answer of the method, read: its records with their identities, and the total it states, if any. */
interface ServedPage {
	records: IDataObject[];
	identities: RecordIdentity[];
	total?: number;
}

/** The largest page named by a 422 on `limit`: a `max` in the answer or "at most N" in its text. */
function largestAllowed(error: NodeApiError): number | undefined {
	const context = error.context as IDataObject;
	for (const field of ['max', 'maximum']) {
		const value = Number(context[field]);
		if (Number.isInteger(value) && value > 0) return value;
	}
	const match = /at most (\d+)/i.exec(String(context.error ?? error.message));
	return match ? Number(match[1]) : undefined;
}

function refusesLimit(error: unknown): error is NodeApiError {
	return error instanceof NodeApiError && error.httpCode === '422' && (error.context as IDataObject).param === 'limit';
}

/** A total the answer states: a number, or digits in a string (an empty string is not 0). */
function statedTotalOf(answer: IDataObject): number | undefined {
	const total = answer.total;
	const stated = typeof total === 'number' || (typeof total === 'string' && /^\s*\d+\s*$/.test(total));
	return stated ? Number(total) : undefined;
}

function samePage(keys: string[], first: string[] | undefined): boolean {
	return first !== undefined && keys.length === first.length && keys.every((key, position) => key === first[position]);
}

/**
 * One read of a list with limit/offset: every record exactly once (Return All) or the first `limit` records. Each
 * page goes through `apiRequest`, so it keeps the pace. The rules, each enforced by the step named beside it:
 * - the page size is learned: large pages are asked for and the size the service serves is kept; a 422 on `limit`
 *   lowers it and is remembered for the credential (`learnSmallerPage`, `learnServedSize`);
 * - the read ends at an empty page, or when `total` (if the service sends it) is reached: a short page alone does not
 *   prove the end, since the service may cap pages silently; `offset` advances by what was received (`keepPage`);
 * - a method that ignores paging (a page longer than asked, a page that starts again where the first did, a page
 *   with nothing new) ends the read instead of looping; repeats are dropped (`keepPage`);
 * - records removed during the read would make later pages skip as many: each page after the first is asked from one
 *   record earlier, and when that record is not found there the read starts again, or fails (`recordsRemoved`,
 *   `startAgain`);
 * - a partial result is never reported as the whole (`assertComplete`).
 */
class PageReader {
	private pageSize: number;
	private largestServed = 0;
	private readonly records: IDataObject[] = [];
	private readonly seen = new Set<string>();
	/** The keys of the first page, to see a method that starts again. */
	private firstPage?: string[];
	private offset: number;
	/** The last `total` the service stated, if any. */
	private statedTotal?: number;
	private reachedTotal = false;
	/** The last record read: the next page is asked from its position, to find it there again. */
	private boundary?: RecordIdentity;
	private restarts = 0;

	private constructor(
		private readonly context: ApiContext,
		private readonly request: PageRequest,
		private readonly wanted: number,
		private readonly learnedKey: string,
		private readonly startOffset: number,
	) {
		this.pageSize = learnedLargestPage.get(learnedKey) ?? LARGEST_PAGE;
		this.offset = startOffset;
	}

	static async open(context: ApiContext, request: PageRequest, paging: Paging): Promise<PageReader> {
		const learnedKey = `${await credentialIdOf.call(context)} ${request.path}`;
		const wanted = paging.returnAll ? Infinity : paging.limit;
		return new PageReader(context, request, wanted, learnedKey, Number(request.params?.offset ?? 0));
	}

	async readAll(): Promise<IDataObject[]> {
		while (this.records.length < this.wanted) {
			// The record to find again at the start of this page, when there is room for it.
			const again = this.boundary !== undefined && this.pageSize > 1 ? this.boundary : undefined;
			const overlap = again ? 1 : 0;
			const size = Math.min(this.pageSize - overlap, this.wanted - this.records.length) + overlap;
			const answer = await this.askPage(size, overlap);
			if (answer === undefined) continue;
			const served = this.readPage(answer);
			if (again && this.recordsRemoved(again, served)) {
				this.startAgain();
				continue;
			}
			if (served.total !== undefined) this.statedTotal = served.total;
			if (!this.keepPage(served, overlap, size)) break;
		}
		this.assertComplete();
		return this.records.slice(0, this.wanted === Infinity ? undefined : this.wanted);
	}

	/** One page from `offset`, `overlap` records earlier; undefined when the service refused its size. */
	private async askPage(size: number, overlap: number): Promise<IDataObject | undefined> {
		const params = { ...this.request.params, limit: size, offset: this.offset - overlap };
		try {
			return await apiRequest.call(this.context, { ...this.request, params });
		} catch (error) {
			this.learnSmallerPage(error, size);
			return undefined;
		}
	}

	/** A page too large for the service: learn a smaller one and go on; any other failure ends the read. */
	private learnSmallerPage(error: unknown, size: number): void {
		if (!refusesLimit(error) || size <= 1) throw error;
		const allowed = largestAllowed(error);
		this.pageSize = allowed !== undefined && allowed < size ? allowed : Math.floor(size / 2);
		learnedLargestPage.set(this.learnedKey, this.pageSize);
	}

	/** The served records, or the error naming the method whose answer holds none that can be read. */
	private readPage(answer: IDataObject): ServedPage {
		const resource = this.request.recordsField ?? RESOURCE_OF_PATH[this.request.path];
		try {
			const records = findRecords(answer, resource ? [resource] : []);
			return { records, identities: records.map(identityOf), total: statedTotalOf(answer) };
		} catch (error) {
			const reason =
				error instanceof UnreadableListError ? error.reason : `cannot be read: ${(error as Error).message}`;
			throw new NodeOperationError(this.context.getNode(), `The answer of ${this.request.path} ${reason}`, {
				itemIndex: this.request.itemIndex,
			});
		}
	}

	/**
	 * Whether records before the part already read were removed: the record asked for again is gone from its place,
	 * and it is not an earlier one (records added before it only move it later, which repeats records: dropped by
	 * `keepPage`). An empty page under a total that still counts past it is a service that stopped serving instead
	 * (`assertComplete` says so).
	 */
	private recordsRemoved(again: RecordIdentity, served: ServedPage): boolean {
		const found = served.identities[0];
		const stoppedServing = found === undefined && served.total !== undefined && served.total >= this.offset;
		if (stoppedServing || found?.key === again.key) return false;
		return found === undefined || !this.seen.has(found.key);
	}

	/** Starts the read again from its first page (records with ids only, a bounded number of times), or fails. */
	private startAgain(): void {
		if (this.boundary?.id === undefined || this.restarts === MAX_RESTARTS) {
			throw new NodeOperationError(
				this.context.getNode(),
				`The records of ${this.request.path} changed during the read: records were removed while it ran`,
				{
					itemIndex: this.request.itemIndex,
					description:
						'Records before the part already read were removed, so later pages would skip as many records. Nothing was put out; run the node again when the list is not changing, or read with a Limit.',
				},
			);
		}
		this.restarts += 1;
		this.records.length = 0;
		this.seen.clear();
		this.firstPage = undefined;
		this.boundary = undefined;
		this.offset = this.startOffset;
		this.statedTotal = undefined;
	}

	/** Keeps the new records of a page; false when the read ends here. */
	private keepPage(served: ServedPage, overlap: number, size: number): boolean {
		const page = served.records.slice(overlap);
		if (page.length === 0) return false;
		const identities = served.identities.slice(overlap);
		// Records without id that look alike may still be distinct: with a total to end the read, they prove no
		// start-over or repeat.
		const trustRepeats = served.total === undefined || identities[0].id !== undefined;
		const servedKeys = served.identities.map(({ key }) => key);
		// The service ignored `offset`: this page starts again where the first did (without ids and with a total: the
		// whole page is the first page again).
		const startsOver = trustRepeats ? servedKeys[0] === this.firstPage?.[0] : samePage(servedKeys, this.firstPage);
		if (startsOver) return false;
		this.firstPage ??= servedKeys;
		const fresh = identities.map(({ key }) => !this.seen.has(key));
		if (trustRepeats && !fresh.includes(true)) return false;
		identities.forEach(({ id, key }, position) => {
			// Only records with an id are known repeats; identical records without one may be distinct.
			if (fresh[position] || id === undefined) this.records.push(page[position]);
			this.seen.add(key);
		});
		// More than asked: the method ignores `limit` and answered everything at once.
		if (served.records.length > size) return false;
		this.offset += page.length;
		this.learnServedSize(served.records.length, size);
		this.boundary = identities[identities.length - 1];
		this.reachedTotal = served.total !== undefined && this.offset >= served.total;
		return !this.reachedTotal;
	}

	/** A page shorter than asked: the service caps pages at the largest it served so far. */
	private learnServedSize(served: number, size: number): void {
		this.largestServed = Math.max(this.largestServed, served);
		if (served < size) this.pageSize = this.largestServed;
	}

	/**
	 * The service said how many there are, and the read ended short of them without reaching that offset (an empty
	 * page, a start-over, an answer of everything at once): never success on a partial result.
	 */
	private assertComplete(): void {
		if (this.reachedTotal || this.statedTotal === undefined) return;
		const expected = Math.min(this.wanted, Math.max(this.statedTotal - this.startOffset, 0));
		if (this.records.length >= expected) return;
		throw new NodeOperationError(
			this.context.getNode(),
			`${this.request.path} returned ${this.records.length} of the ${expected} records the service counts: the read is incomplete`,
			{
				itemIndex: this.request.itemIndex,
				description:
					'The service stopped serving records before its own total was reached (it may ignore paging, or the records changed during the read). Nothing was put out; run the node again, or read with a Limit.',
			},
		);
	}
}

/**
 * Reads a list with limit/offset and returns every record exactly once (Return All) or the first `limit` records;
 * see `PageReader` for the rules it keeps.
 */
export async function fetchPages(this: ApiContext, request: PageRequest, paging: Paging): Promise<IDataObject[]> {
	return await (await PageReader.open(this, request, paging)).readAll();
}
