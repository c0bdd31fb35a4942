import { createHash } from 'node:crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import { serviceError, transportError } from './errors';
import { holdOff, waitForTurn } from './pacing';

export const CREDENTIAL_NAME = 'messengerBotBuilderApi';

export type ApiContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions;

export interface ApiRequest {
	/** GET for reads (scalar parameters in the query string), POST for changes and for reads with arrays/objects. */
	method: 'GET' | 'POST';
	/** Path after the base URL, e.g. `/subscriber/get`. */
	path: string;
	/** Query parameters (GET) or JSON body (POST). Empty values are dropped. */
	params?: IDataObject;
	/** Sent as `Idempotency-Key`; makes a POST safe to repeat after a timeout. */
	idempotencyKey?: string;
	/** A POST that only reads. Reads (and keyed writes) are repeated after a timeout or a 5xx. */
	readOnly?: boolean;
	/** Item this request serves, so errors point at it. */
	itemIndex?: number;
}

/** 429s are waited out this many times before the node gives up. */
const MAX_RATE_LIMIT_WAITS = 8;
/** A read that got no answer or a 5xx is repeated this many times. */
const MAX_REPEATS = 2;
const TIMEOUT_MS = 60_000;
const FALLBACK_WAIT_MS = 1000;
const MAX_WAIT_MS = 60_000;

interface FullResponse {
	body: unknown;
	headers: Record<string, string | string[] | undefined>;
	statusCode: number;
}

function compact(params: IDataObject | undefined): IDataObject {
	const result: IDataObject = {};
	for (const [name, value] of Object.entries(params ?? {})) {
		if (value === undefined || value === null || value === '') continue;
		result[name] = value;
	}
	return result;
}

/** Milliseconds to wait after a 429: `Retry-After` (seconds or an HTTP date), else exponential backoff. */
function retryAfterMs(header: string | string[] | undefined, attempt: number): number {
	const value = Array.isArray(header) ? header[0] : header;
	if (value) {
		const seconds = Number(value);
		if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, MAX_WAIT_MS);
		const date = Date.parse(value);
		if (!Number.isNaN(date)) return Math.min(Math.max(date - Date.now(), 0), MAX_WAIT_MS);
	}
	return Math.min(FALLBACK_WAIT_MS * 2 ** attempt, MAX_WAIT_MS);
}

/** Identifies a credential for pacing without keeping the key itself around. */
function paceKey(baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex');
}

export function normalizeBaseUrl(baseUrl: string): string {
	return baseUrl.trim().replace(/\/+$/, '');
}

/**
 * The one way the node talks to the service: authenticated through n8n, paced to the service's
 * rate per credential, 429s waited out (bounded), reads repeated after a lost answer, changes never
 * repeated unless they carry an Idempotency-Key, and every failure a NodeApiError without the key.
 */
export async function apiRequest(this: ApiContext, request: ApiRequest): Promise<IDataObject> {
	const credentials = await this.getCredentials<{ apiKey: string; baseUrl: string }>(CREDENTIAL_NAME);
	const baseUrl = normalizeBaseUrl(String(credentials.baseUrl ?? ''));
	const secret = String(credentials.apiKey ?? '');
	const pace = paceKey(baseUrl, secret);
	const params = compact(request.params);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${request.path}`,
		json: true,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: TIMEOUT_MS,
		headers: request.idempotencyKey ? { 'Idempotency-Key': request.idempotencyKey } : {},
	};
	if (request.method === 'GET') options.qs = params;
	else options.body = params;
	const repeatable = request.method === 'GET' || request.readOnly === true || !!request.idempotencyKey;

	let rateLimitWaits = 0;
	let repeats = 0;
	for (;;) {
		await waitForTurn(pace);
		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_NAME,
				options,
			)) as FullResponse;
		} catch (error) {
			if (repeatable && repeats < MAX_REPEATS) {
				repeats++;
				await sleep(FALLBACK_WAIT_MS * repeats);
				continue;
			}
			throw transportError(this.getNode(), error as Error, secret, {
				path: request.path,
				repeated: repeats > 0,
				itemIndex: request.itemIndex,
			});
		}
		const status = response.statusCode;
		if (status >= 200 && status < 300) return (response.body ?? {}) as IDataObject;
		if (status === 429 && rateLimitWaits < MAX_RATE_LIMIT_WAITS) {
			const wait = retryAfterMs(response.headers['retry-after'], rateLimitWaits++);
			holdOff(pace, wait);
			continue;
		}
		if (status >= 500) {
			if (repeatable && repeats < MAX_REPEATS) {
				repeats++;
				await sleep(FALLBACK_WAIT_MS * repeats);
				continue;
			}
			if (!repeatable) {
				throw transportError(this.getNode(), undefined, secret, {
					path: request.path,
					status,
					body: response.body,
					repeated: false,
					itemIndex: request.itemIndex,
				});
			}
		}
		throw serviceError(this.getNode(), status, response.body, secret, request.itemIndex);
	}
}
