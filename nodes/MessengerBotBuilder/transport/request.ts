import { createHash } from 'node:crypto';
import type {
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	INode,
	NodeApiError,
} from 'n8n-workflow';
import { sleep } from 'n8n-workflow';
import {
	markMayHaveTakenEffect,
	noCredentialError,
	notDoneError,
	serviceError,
	transportError,
	type FieldsOfParams,
} from './errors';
import { answeredClean, answeredRateLimited, waitForTurn } from './pacing';

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
	/** For a change: what the user should look at in the service when it may have taken effect. */
	check?: string;
	/** Item this request serves, so errors point at it. */
	itemIndex?: number;
	/** The node's field of each parameter whose field depends on the operation, for errors (e.g. `{ id: 'Webhook ID' }`). */
	fields?: FieldsOfParams;
}

/** How long, by default, one request waits out 429s in total before its item fails. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 300;
/** The node option that changes it (inside the "Request Options" collection). */
export const RATE_LIMIT_WAIT_PARAMETER = 'requestOptions.rateLimitWait';
/** A read (or keyed write) that got no answer or a 5xx is repeated this many times. */
const MAX_REPEATS = 5;
/** First pause before such a repeat; it doubles each time (with jitter). */
const REPEAT_PAUSE_MS = 250;
const TIMEOUT_MS = 60_000;
/** Without `Retry-After`: the first 429 wait, doubled per consecutive 429 up to `MAX_UNGUIDED_WAIT_MS`. */
const FIRST_UNGUIDED_WAIT_MS = 250;
const MAX_UNGUIDED_WAIT_MS = 10_000;
/** A `Retry-After` of 0 still waits this long, so a saturated service is not hammered. */
const MIN_RATE_LIMIT_WAIT_MS = 100;
/** Waits for `Retry-After` are stretched by up to this share, so refused senders do not return together. */
const RETRY_AFTER_JITTER = 0.25;

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

/**
 * Milliseconds to wait after a 429: never less than `Retry-After` (seconds or an HTTP date), plus
 * jitter; without the header, a short wait that doubles per consecutive 429, with jitter.
 */
function rateLimitWaitMs(header: string | string[] | undefined, consecutive: number): number {
	const value = Array.isArray(header) ? header[0] : header;
	let guided: number | undefined;
	if (value) {
		const seconds = Number(value);
		if (Number.isFinite(seconds) && seconds >= 0) guided = seconds * 1000;
		else if (!Number.isNaN(Date.parse(value))) guided = Math.max(Date.parse(value) - Date.now(), 0);
	}
	if (guided !== undefined) return Math.max(guided, MIN_RATE_LIMIT_WAIT_MS) * (1 + Math.random() * RETRY_AFTER_JITTER);
	const ceiling = Math.min(FIRST_UNGUIDED_WAIT_MS * 2 ** consecutive, MAX_UNGUIDED_WAIT_MS);
	return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** The pause before the n-th repeat (from 1) of a request that got no answer or a 5xx. */
function repeatPauseMs(repeat: number): number {
	const ceiling = REPEAT_PAUSE_MS * 2 ** (repeat - 1);
	return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Identifies a credential (for pacing and what the node learned about it) without keeping the key. */
function credentialId(baseUrl: string, apiKey: string): string {
	return createHash('sha256').update(`${baseUrl}\n${apiKey}`).digest('hex');
}

export function normalizeBaseUrl(baseUrl: string): string {
	return baseUrl.trim().replace(/\/+$/, '');
}

interface Credential {
	baseUrl: string;
	secret: string;
	/** A hash of base URL and key. */
	id: string;
}

async function credentialOf(this: ApiContext): Promise<Credential> {
	if (!this.getNode().credentials?.[CREDENTIAL_NAME]) throw noCredentialError(this.getNode());
	const credentials = await this.getCredentials<{ apiKey: string; baseUrl: string }>(CREDENTIAL_NAME);
	const baseUrl = normalizeBaseUrl(String(credentials.baseUrl ?? ''));
	const secret = String(credentials.apiKey ?? '');
	return { baseUrl, secret, id: credentialId(baseUrl, secret) };
}

/** Identifies the credential in use, for state kept per credential in this process. */
export async function credentialIdOf(this: ApiContext): Promise<string> {
	return (await credentialOf.call(this)).id;
}

/** Milliseconds one request may spend waiting out 429s: the node option, else 5 minutes. */
function rateLimitBudgetMs(this: ApiContext, itemIndex: number | undefined): number {
	const execute = this as IExecuteFunctions;
	if (typeof execute.getInputData !== 'function') return DEFAULT_RATE_LIMIT_WAIT_SECONDS * 1000;
	const seconds = Number(
		execute.getNodeParameter(RATE_LIMIT_WAIT_PARAMETER, itemIndex ?? 0, DEFAULT_RATE_LIMIT_WAIT_SECONDS),
	);
	return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_RATE_LIMIT_WAIT_SECONDS * 1000;
}

const roundSeconds = (ms: number) => Math.round(ms / 100) / 10;

/** The HTTP request n8n sends for `request`: answers of every status come back, to be judged here. */
function httpOptions(baseUrl: string, request: ApiRequest): IHttpRequestOptions {
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
	return options;
}

/** What the attempts of one request went through, and so whether another attempt is allowed. */
class Attempts {
	/** A change: a POST that is not read-only. */
	readonly change: boolean;
	/** Sent with an Idempotency-Key, so safe to repeat. */
	readonly keyed: boolean;
	waitedMs = 0;
	repeats = 0;
	/** Some attempt of this change got no answer or a 5xx: it may have been applied. */
	mayHaveTakenEffect = false;
	private consecutive429 = 0;

	constructor(
		private readonly request: ApiRequest,
		readonly budgetMs: number,
	) {
		this.change = request.method === 'POST' && request.readOnly !== true;
		this.keyed = !!request.idempotencyKey;
	}

	/** No answer, or a 5xx: a read or a keyed change is repeated after a pause (true); another change never is. */
	async repeatAfterLoss(): Promise<boolean> {
		if (this.change) this.mayHaveTakenEffect = true;
		const repeatable = !this.change || this.keyed;
		if (!repeatable || this.repeats >= MAX_REPEATS) return false;
		await sleep(repeatPauseMs(++this.repeats));
		return true;
	}

	/** A 429: a refused request did nothing, so it is waited out and repeated while the time budget lasts (true). */
	async waitOutRateLimit(retryAfter: string | string[] | undefined): Promise<boolean> {
		const wait = rateLimitWaitMs(retryAfter, this.consecutive429++);
		if (this.waitedMs + wait > this.budgetMs) return false;
		this.waitedMs += wait;
		await sleep(wait);
		return true;
	}

	/** An answer other than 429: the next 429 starts the unguided waits from the shortest again. */
	answered(): void {
		this.consecutive429 = 0;
	}

	/** A change of which an attempt may have reached the service is reported as such, whatever the last answer was. */
	reported(error: NodeApiError): NodeApiError {
		const { path, check } = this.request;
		return this.mayHaveTakenEffect
			? markMayHaveTakenEffect(error, { path, check, repeatedWithKey: this.keyed })
			: error;
	}
}

/** The error once the rate-limit budget is spent: how long the node waited and which option gives it longer. */
function rateLimitedError(
	node: INode,
	response: FullResponse,
	secret: string,
	request: ApiRequest,
	attempts: Attempts,
) {
	const error = serviceError(node, response.statusCode, response.body, secret, request.itemIndex, request.fields);
	error.description = `The service kept refusing with 429 (too many requests with this key); the node waited ${roundSeconds(attempts.waitedMs)} s in total and gives up after ${roundSeconds(attempts.budgetMs)} s (Request Options → Wait on Rate Limit). Fewer workflows or workers using this key at once help.`;
	error.context.waitedSeconds = roundSeconds(attempts.waitedMs);
	return attempts.reported(error);
}

/**
 * The one way the node talks to the service: authenticated through n8n, paced per credential,
 * 429s waited out (a refused request did nothing, so it is always repeated, within a time budget),
 * reads and keyed changes repeated after a lost answer or a 5xx, other changes never repeated,
 * and every failure a NodeApiError without the key. A change of which an attempt may have reached
 * the service is reported as such whatever the last answer was.
 */
export async function apiRequest(this: ApiContext, request: ApiRequest): Promise<IDataObject> {
	const credential = await credentialOf.call(this);
	const { secret } = credential;
	const options = httpOptions(credential.baseUrl, request);
	const attempts = new Attempts(request, rateLimitBudgetMs.call(this, request.itemIndex));
	const lost = (status?: number, body?: unknown, cause?: Error) =>
		transportError(this.getNode(), cause, secret, {
			path: request.path,
			status,
			body,
			repeats: attempts.repeats,
			mayHaveTakenEffect: attempts.mayHaveTakenEffect,
			keyed: attempts.keyed,
			check: request.check,
			itemIndex: request.itemIndex,
		});
	for (;;) {
		await waitForTurn(credential.id);
		let response: FullResponse;
		try {
			response = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_NAME,
				options,
			)) as FullResponse;
		} catch (error) {
			if (await attempts.repeatAfterLoss()) continue;
			throw lost(undefined, undefined, error as Error);
		}
		const status = response.statusCode;
		if (status === 429) {
			answeredRateLimited(credential.id);
			if (await attempts.waitOutRateLimit(response.headers['retry-after'])) continue;
			throw rateLimitedError(this.getNode(), response, secret, request, attempts);
		}
		attempts.answered();
		answeredClean(credential.id);
		if (status >= 200 && status < 300) {
			const body = (response.body ?? {}) as IDataObject;
			if (body.ok === false) throw notDoneError(this.getNode(), request.path, body, secret, request.itemIndex);
			return body;
		}
		if (status >= 500) {
			if (await attempts.repeatAfterLoss()) continue;
			throw lost(status, response.body);
		}
		throw attempts.reported(
			serviceError(this.getNode(), status, response.body, secret, request.itemIndex, request.fields),
		);
	}
}
