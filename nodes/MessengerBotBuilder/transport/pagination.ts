import type { IDataObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';
import { apiRequest, credentialIdOf, type ApiContext, type ApiRequest } from './request';

/**
 * Records asked for per page. The service documents no maximum; it may serve fewer (a silent cap)
 * or refuse more (a 422 on `limit`): the node learns either and goes on.
 */
export const LARGEST_PAGE = 1000;

/** The largest page a method accepted after refusing a larger one, per credential, in this process. */
const learnedLargestPage = new Map<string, number>();

/**
 * The resource each list method returns: some services put the records under its name (e.g.
 * `rows`) instead of under `items`.
 */
const RESOURCE_OF_PATH: Record<string, string> = {
	'/list/rows/get': 'rows',
	'/list/rows/find': 'rows',
	'/subscriber/list': 'subscribers',
	'/subscriber/find': 'subscribers',
	'/subscriber/chat/get': 'messages',
	'/log/get': 'entries',
	'/hook/list': 'hooks',
};

export interface PageRequest extends ApiRequest {
	/** The resource's name, for a method not in `RESOURCE_OF_PATH`. */
	recordsField?: string;
}

export interface Paging {
	returnAll: boolean;
	/** Used when `returnAll` is false. */
	limit: number;
}

/** Why the records of a list answer cannot be read; the caller says which method answered. */
export class UnreadableListError extends Error {
	constructor(readonly reason: string) {
		super(`The service's answer ${reason}`);
	}
}

/**
 * The records of a list answer: a bare array, or the array under one of `fields`, under `items`,
 * or (when the object holds exactly one array) under whatever name it has; a known field that is
 * null, or an object with no list in it at all, is an empty list. Throws `UnreadableListError`
 * where reading it as empty could hide records: several unknown arrays, a list inside a wrapper
 * object, a known field that is not a list, an answer that is not JSON object or array.
 */
export function findRecords(answer: unknown, fields: string[]): IDataObject[] {
	if (Array.isArray(answer)) return answer as IDataObject[];
	const names = [...fields, 'items'];
	if (answer === null || typeof answer !== 'object') {
		const what =
			answer === undefined || answer === null || answer === ''
				? 'is empty'
				: `is a ${typeof answer}, not a JSON object`;
		throw new UnreadableListError(`${what}: no list of records in it`);
	}
	const object = answer as IDataObject;
	for (const name of names) if (Array.isArray(object[name])) return object[name] as IDataObject[];
	if (names.some((name) => object[name] === null)) return [];
	const arrays = Object.values(object).filter((value) => Array.isArray(value));
	if (arrays.length === 1) return arrays[0] as IDataObject[];
	if (arrays.length > 1)
		throw new UnreadableListError(
			`holds several lists and none is called ${names.join(' or ')}: the records cannot be told apart`,
		);
	const wrapper = Object.keys(object).find((key) => {
		const value = object[key];
		return value !== null && typeof value === 'object' && Object.values(value).some((inner) => Array.isArray(inner));
	});
	if (wrapper !== undefined)
		throw new UnreadableListError(
			`holds its list inside "${wrapper}" instead of at its top level: it cannot be read as an empty list`,
		);
	const named = names.find((name) => object[name] !== undefined);
	if (named !== undefined) throw new UnreadableListError(`has "${named}" that is not a list`);
	return [];
}

/** What identifies a record across pages: its `id` (number or string alike), else its content. */
function identityOf(record: IDataObject): { id?: string; key: string } {
	const id = record?.id;
	// A number id past 2^53 was rounded when the answer was parsed: two records may now share it.
	if ((typeof id === 'number' && Number.isSafeInteger(id)) || typeof id === 'string')
		return { id: String(id), key: `id:${String(id)}` };
	return { key: `json:${JSON.stringify(record)}` };
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

function refusesLimit(error: NodeApiError): boolean {
	return error.httpCode === '422' && (error.context as IDataObject).param === 'limit';
}

/** How many times a read starts again after the records moved under it, before it fails. */
const MAX_RESTARTS = 2;

/**
 * Reads a list with limit/offset, and returns every record exactly once (Return All) or the first
 * `limit` records. It asks for large pages and keeps the size the service actually serves; a 422
 * on `limit` lowers the page (to the maximum the error names, else half) and is remembered for
 * the credential. It stops at an empty page, or when `total` (if the service sends it) is reached:
 * a short page alone does not prove the end, since the service may cap pages silently. `offset`
 * advances by what was received. Repeats are dropped, and a method that ignores paging (a page
 * longer than asked, a page that starts again where the first did, or a page with nothing new)
 * ends the read instead of looping. Each page after the first is asked from one record earlier: when
 * that record is not the last one read, records before it were removed during the read (a list at
 * its row cap dropping its oldest rows, a deleted subscriber) and the pages after would skip as many,
 * so the read starts again (records with ids), or fails. When the service stated a total and the read
 * ended short of it any other way, the read fails: a partial result is never returned as the whole.
 * Each page goes through `apiRequest`, so it keeps the pace.
 */
export async function fetchPages(this: ApiContext, request: PageRequest, paging: Paging): Promise<IDataObject[]> {
	const resource = request.recordsField ?? RESOURCE_OF_PATH[request.path];
	const fields = resource ? [resource] : [];
	const wanted = paging.returnAll ? Infinity : paging.limit;
	const learnedKey = `${await credentialIdOf.call(this)} ${request.path}`;
	let pageSize = learnedLargestPage.get(learnedKey) ?? LARGEST_PAGE;
	let largestServed = 0;
	const records: IDataObject[] = [];
	const seen = new Set<string>();
	let firstPage: string[] | undefined;
	const startOffset = Number(request.params?.offset ?? 0);
	let offset = startOffset;
	/** The last `total` the service stated, if any. */
	let statedTotal: number | undefined;
	let reachedTotal = false;
	/** The last record read: the next page is asked from its position, to find it there again. */
	let boundary: { id?: string; key: string } | undefined;
	let restarts = 0;
	while (records.length < wanted) {
		const overlap = boundary !== undefined && pageSize > 1 ? 1 : 0;
		const ask = Math.min(pageSize - overlap, wanted - records.length);
		const size = ask + overlap;
		const outcome = await apiRequest
			.call(this, { ...request, params: { ...request.params, limit: size, offset: offset - overlap } })
			.then(
				(answer) => ({ answer }),
				(error: unknown) => ({ error }),
			);
		if ('error' in outcome) {
			// A page too large for the service: learn a smaller one and go on; any other failure ends the read.
			const refused = outcome.error instanceof NodeApiError && refusesLimit(outcome.error) && size > 1;
			if (!refused) throw outcome.error;
			const allowed = largestAllowed(outcome.error as NodeApiError);
			pageSize = allowed !== undefined && allowed < size ? allowed : Math.floor(size / 2);
			learnedLargestPage.set(learnedKey, pageSize);
			continue;
		}
		const { answer } = outcome;
		let served: IDataObject[];
		try {
			served = findRecords(answer, fields);
		} catch (error) {
			const reason =
				error instanceof UnreadableListError ? error.reason : `cannot be read: ${(error as Error).message}`;
			throw new NodeOperationError(this.getNode(), `The answer of ${request.path} ${reason}`, {
				itemIndex: request.itemIndex,
			});
		}
		const servedIdentities = served.map(identityOf);
		const total = Number(answer.total);
		// A total the answer states: a number, or digits in a string (an empty string is not 0).
		const knownTotal =
			typeof answer.total === 'number' || (typeof answer.total === 'string' && /^\s*\d+\s*$/.test(answer.total));
		if (overlap) {
			// The record asked for again is gone from its place, and it is not an earlier one (records added
			// before it only move it later, which repeats records: dropped below): records were removed. An
			// empty page under a total that still counts past it is a service that stopped serving instead
			// (the check of the total below says so).
			const again = servedIdentities[0];
			const stoppedServing = again === undefined && knownTotal && total >= offset;
			if (!stoppedServing && again?.key !== boundary!.key && (again === undefined || !seen.has(again.key))) {
				if (boundary!.id === undefined || restarts === MAX_RESTARTS) {
					throw new NodeOperationError(
						this.getNode(),
						`The records of ${request.path} changed during the read: records were removed while it ran`,
						{
							itemIndex: request.itemIndex,
							description:
								'Records before the part already read were removed, so later pages would skip as many records. Nothing was put out; run the node again when the list is not changing, or read with a Limit.',
						},
					);
				}
				restarts += 1;
				records.length = 0;
				seen.clear();
				firstPage = undefined;
				boundary = undefined;
				offset = startOffset;
				statedTotal = undefined;
				continue;
			}
		}
		const page = overlap ? served.slice(1) : served;
		// Before the end of the read: an empty first page under a total above 0 is a shortfall, not an empty list.
		if (knownTotal) statedTotal = total;
		if (page.length === 0) break;
		const identities = overlap ? servedIdentities.slice(1) : servedIdentities;
		// Records without id that look alike may still be distinct: with a total to end the read, they
		// prove no start-over or repeat.
		const trustRepeats = !knownTotal || identities[0].id !== undefined;
		const servedKeys = servedIdentities.map(({ key }) => key);
		// The service ignored `offset`: this page starts again where the first did (without ids and with a
		// total: the whole page is the first page again).
		const startsOver = trustRepeats
			? servedKeys[0] === firstPage?.[0]
			: servedKeys.length === firstPage?.length && servedKeys.every((key, position) => key === firstPage![position]);
		if (startsOver) break;
		firstPage ??= servedKeys;
		const fresh = identities.map(({ key }) => !seen.has(key));
		if (trustRepeats && !fresh.includes(true)) break;
		identities.forEach(({ id, key }, position) => {
			// Only records with an id are known repeats; identical records without one may be distinct.
			if (fresh[position] || id === undefined) records.push(page[position]);
			seen.add(key);
		});
		// More than asked: the method ignores `limit` and answered everything at once.
		if (served.length > size) break;
		offset += page.length;
		largestServed = Math.max(largestServed, served.length);
		if (served.length < size) pageSize = largestServed;
		boundary = identities[identities.length - 1];
		if (knownTotal && offset >= total) {
			reachedTotal = true;
			break;
		}
	}
	// The service said how many there are, and the read ended short of them without reaching that offset
	// (an empty page, a start-over, an answer of everything at once): never success on a partial result.
	const expected = statedTotal === undefined ? undefined : Math.min(wanted, Math.max(statedTotal - startOffset, 0));
	if (!reachedTotal && expected !== undefined && records.length < expected) {
		throw new NodeOperationError(
			this.getNode(),
			`${request.path} returned ${records.length} of the ${expected} records the service counts: the read is incomplete`,
			{
				itemIndex: request.itemIndex,
				description:
					'The service stopped serving records before its own total was reached (it may ignore paging, or the records changed during the read). Nothing was put out; run the node again, or read with a Limit.',
			},
		);
	}
	return records.slice(0, wanted === Infinity ? undefined : wanted);
}
