import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** The body of an error answer: `{ code, error }`, plus `param` for 422 and `scope` for 403. */
export interface ServiceErrorBody {
	code?: string;
	error?: string;
	param?: string;
	scope?: string;
	/** The largest value a refused parameter accepts, where the service says it. */
	max?: number;
}

const HINTS: Record<number, string> = {
	401: 'The API key was not accepted: check the key and the base URL in the credential, and that the key has not expired or been revoked.',
	404: 'The service does not know this method: check that the Base URL in the credential ends with /api.',
};

/** Replaces every occurrence of the key so it can never leak through a message. */
export function redact(text: string, secret: string): string {
	return secret ? text.split(secret).join('***') : text;
}

/** The node's field for a parameter of the service, so a 422 points at what the user can change. */
const FIELD_OF_PARAM: Record<string, string> = {
	botid: 'Bot',
	clientid: 'Client ID',
	messenger: 'Messenger',
	subscriber: 'Card Number',
	chaincode: 'Chain',
	chain: 'Chain',
	stepcode: 'Step Code',
	block: 'Block',
	data: 'Variables',
	text: 'Text',
	buttons: 'Buttons',
	tag: 'Tags',
	code: 'Broadcast Code',
	stage: 'Stage',
	listid: 'List',
	list: 'List',
	rowid: 'Row ID',
	rowids: 'Row IDs',
	row: 'Columns',
	rows: 'Columns',
	values: 'Columns',
	where: 'Conditions',
	headers: 'Columns',
	group: 'Project',
	webappid: 'Web App ID',
	itemid: 'Item ID',
	items: 'Item ID',
	url: 'URL',
	events: 'Events',
	scopes: 'Scopes',
	bots: 'Bot Names or IDs',
	days: 'Days Valid',
	from: 'From',
	to: 'To',
	name: 'Name',
	username: 'Nickname',
	note: 'Note',
	column: 'Column Name or ID',
	limit: 'Limit',
	query: 'Search For',
	path: 'Path Contains',
	status: 'Status',
};

/** The node's fields of this call's parameters whose field depends on the operation (`id`: Webhook ID, Key ID…). */
export type FieldsOfParams = Record<string, string>;

function parameterHint(param: string, fields: FieldsOfParams): string {
	// Bulk methods name an entry's parameter, e.g. `items[2].itemid`: the field is the last part.
	const name =
		param
			.replace(/\[\d+\]/g, '')
			.split('.')
			.pop() ?? param;
	const field = fields[name] ?? FIELD_OF_PARAM[name];
	return field ? `Check the field "${field}" (the service's parameter "${param}").` : `Check the parameter "${param}".`;
}

function describe(status: number, body: ServiceErrorBody, fields: FieldsOfParams): string | undefined {
	if (status === 403 && body.scope) {
		return `The API key lacks the scope "${body.scope}". Use a key that has it (API Key → Create with scopes), or the account key.`;
	}
	if (status === 403 && body.code === 'not_creator') {
		return 'A key may revoke only itself and the keys it created (directly or through keys it created); the account key may revoke any. Revoke this key with the key that created it, or with the account key.';
	}
	if (status === 403 && body.param) {
		return `The API key may not touch what "${body.param}" names: it is restricted to other bots. Use a key made for this bot (API Key → Create with bots), or the account key.`;
	}
	// A refusal that names a parameter (422, or a 404 for a record that is not there) points at its field.
	if (body.param) return parameterHint(body.param, fields);
	return HINTS[status];
}

/**
 * A 2xx answer that says `"ok": false` (documented as a boolean in the answers of sends, starts and writes): the
 * service did not carry the call out, so the item fails instead of being reported done.
 */
export function notDoneError(
	node: INode,
	path: string,
	rawBody: IDataObject,
	secret: string,
	itemIndex?: number,
): NodeApiError {
	const reason = typeof rawBody.error === 'string' && rawBody.error ? rawBody.error : undefined;
	const code = typeof rawBody.code === 'string' && rawBody.code ? rawBody.code : 'not_ok';
	const details: JsonObject = { code, error: redact(reason ?? 'ok: false', secret) };
	const error = new NodeApiError(node, details, {
		message: redact(`${path} answered "ok": false${reason ? `: ${reason}` : ''} [${code}]`, secret),
		description:
			'The service answered the request but says it did not carry it out; the item is not reported done. Check its inputs and the service, then run it again.',
		itemIndex,
	});
	Object.assign(error.context, details);
	return error;
}

/** A NodeApiError for a non-2xx answer that carries the service's `code`, `error` and (403) `scope`. */
export function serviceError(
	node: INode,
	status: number,
	rawBody: unknown,
	secret: string,
	itemIndex?: number,
	fields: FieldsOfParams = {},
): NodeApiError {
	const body: ServiceErrorBody = rawBody && typeof rawBody === 'object' ? (rawBody as ServiceErrorBody) : {};
	const text = body.error ?? (typeof rawBody === 'string' && rawBody ? rawBody.slice(0, 300) : `HTTP ${status}`);
	const code = body.code ?? `http_${status}`;
	const details: JsonObject = { code, error: redact(text, secret), status };
	if (body.param) details.param = body.param;
	if (body.scope) details.scope = body.scope;
	if (typeof body.max === 'number') details.max = body.max;
	const error = new NodeApiError(node, details, {
		message: redact(`${text} [${code}]`, secret),
		description: describe(status, body, fields),
		httpCode: String(status),
		itemIndex,
	});
	Object.assign(error.context, details);
	return error;
}

/**
 * A call from a node that has no credential selected. In the editor this happens when n8n asks for a list of
 * options (e.g. the trigger's Bot Names or IDs) before it has put the credential on a node just added: n8n 2.41
 * skips the reload it starts when the credential is set while that first request runs, so its error stays until
 * the list is loaded again.
 */
export function noCredentialError(node: INode): NodeOperationError {
	return new NodeOperationError(node, 'No Messenger Bot Builder API credential is selected yet', {
		description:
			'Select the credential at the top of the node. If it is selected already, n8n asked for this list before the credential was set: choose "Refresh List" in the field\'s menu, or close and reopen the node.',
		level: 'warning',
	});
}

/** What a failed change tells the user to do when it may have taken effect. */
function mayHaveTakenEffectText(path: string, check: string | undefined, repeatedWithKey: boolean): string {
	const how = repeatedWithKey
		? 'It was repeated with the same Idempotency-Key, so it took effect at most once, but its answer never arrived.'
		: 'It was not repeated automatically, so that nothing happens twice.';
	return `${path} changes data and an attempt may have reached the service before its answer was lost: it may have taken effect. ${how} ${check ?? 'Check the result in the service'} before running it again.`;
}

/**
 * Marks an error of a change whose earlier attempt may have reached the service: whatever the
 * last answer said, the change may have taken effect, and the description says what to check.
 */
export function markMayHaveTakenEffect(
	error: NodeApiError,
	what: { path: string; check?: string; repeatedWithKey: boolean },
): NodeApiError {
	error.description = `${mayHaveTakenEffectText(what.path, what.check, what.repeatedWithKey)}${error.description ? ` (Last answer: ${error.description})` : ''}`;
	error.context.mayHaveTakenEffect = true;
	if (what.repeatedWithKey) error.context.sentWithIdempotencyKey = true;
	return error;
}

/**
 * A request that got no answer (connection refused, timeout) or a 5xx after its repeats. Only the
 * message of the low-level error is kept: its request options hold the key. For a change that may
 * have reached the service, the description says so and what to check.
 */
export function transportError(
	node: INode,
	cause: { message?: string; code?: string } | undefined,
	secret: string,
	what: {
		path: string;
		status?: number;
		body?: unknown;
		/** Times the request was repeated before giving up. */
		repeats: number;
		/** A change of which some attempt may have reached the service. */
		mayHaveTakenEffect: boolean;
		/** Sent with an Idempotency-Key. */
		keyed: boolean;
		/** For a change: what to look at in the service. */
		check?: string;
		itemIndex?: number;
	},
): NodeApiError {
	const answer = what.body && typeof what.body === 'object' ? (what.body as ServiceErrorBody) : {};
	const reason = cause?.message ?? answer.error ?? `HTTP ${what.status}`;
	const code = answer.code ?? (what.status ? `http_${what.status}` : (cause?.code ?? 'no_response'));
	const description = what.mayHaveTakenEffect
		? mayHaveTakenEffectText(what.path, what.check, what.keyed && what.repeats > 0)
		: what.repeats > 0
			? `The request was repeated ${what.repeats} times and still failed. It only reads, so running it again later is safe.`
			: undefined;
	const details: JsonObject = { code, error: redact(reason, secret) };
	if (what.status) details.status = what.status;
	if (what.mayHaveTakenEffect) details.mayHaveTakenEffect = true;
	const error = new NodeApiError(node, details, {
		message: redact(`${what.path} failed: ${reason}`, secret),
		description,
		httpCode: what.status ? String(what.status) : undefined,
		itemIndex: what.itemIndex,
	});
	Object.assign(error.context, details);
	// Repeating it with the same Idempotency-Key takes effect at most once.
	if (what.keyed) error.context.sentWithIdempotencyKey = true;
	return error;
}

/**
 * A bulk change whose answer confirms fewer entries than were sent: some were applied, and which
 * ones the answer does not say. The items of the request fail as "may have taken effect".
 */
export function unconfirmedBulkChange(
	node: INode,
	what: { path: string; sent: number; confirmed: number; check: string; itemIndex: number },
): NodeOperationError {
	const error = new NodeOperationError(
		node,
		`${what.path} confirmed ${what.confirmed} of the ${what.sent} entries sent`,
		{
			itemIndex: what.itemIndex,
			description: `The service accepted the request but says it applied only ${what.confirmed} of its ${what.sent} entries, and not which: every item of this request may have taken effect. ${what.check} before running it again.`,
		},
	);
	Object.assign(error.context, { code: 'unconfirmed', mayHaveTakenEffect: true });
	return error;
}

/** Fails a bulk change whose answer confirms fewer entries than were sent; an answer that states nothing confirms nothing less. */
export function requireConfirmed(
	node: INode,
	what: { path: string; sent: number; confirmed: number | undefined; check: string; itemIndex: number },
): void {
	if (what.confirmed !== undefined && what.confirmed < what.sent)
		throw unconfirmedBulkChange(node, { ...what, confirmed: what.confirmed });
}

/** The first of `fields` in `answer` that holds a whole number (a count the service states), if any. */
export function statedCount(answer: Record<string, unknown>, ...fields: string[]): number | undefined {
	for (const field of fields) {
		const value = answer[field];
		if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
	}
	return undefined;
}
