/**
 * Every error the API answers is `{ code, error }` JSON with an HTTP status (see docs/rules.md: "Errors").
 * Handlers throw ApiError; the server turns it into the response and changes nothing else.
 */
export class ApiError extends Error {
	readonly status: number;
	readonly code: string;
	readonly extra: Record<string, unknown>;

	constructor(status: number, code: string, message: string, extra: Record<string, unknown> = {}) {
		super(message);
		this.name = 'ApiError';
		this.status = status;
		this.code = code;
		this.extra = extra;
	}

	toBody(): Record<string, unknown> {
		return { code: this.code, error: this.message, ...this.extra };
	}
}

export const missingParam = (name: string) =>
	new ApiError(422, 'missing_param', `Parameter "${name}" is required`, { param: name });

export const invalidParam = (name: string, why: string) =>
	new ApiError(422, 'invalid_param', `Parameter "${name}" ${why}`, { param: name });

/**
 * A well-formed parameter that does not fit what is stored or the rest of the request (a list's columns, a chain of
 * another bot, an item named twice): a rule the OpenAPI document states in words, since a schema cannot.
 */
export const conflictingParam = (name: string, why: string) =>
	new ApiError(422, 'param_conflict', `Parameter "${name}" ${why}`, { param: name });

export const notFound = (what: string, param?: string) =>
	param
		? new ApiError(422, 'not_found', `Parameter "${param}": ${what} not found`, { param })
		: new ApiError(422, 'not_found', `${what} not found`);

export const unauthorized = (message: string) => new ApiError(401, 'unauthorized', message);

export const forbiddenScope = (scope: string) =>
	new ApiError(403, 'forbidden', `The API key lacks the scope "${scope}"`, { scope });

export const forbiddenBot = (botid: string) =>
	new ApiError(403, 'bot_forbidden', `The API key may not access bot ${botid}`, { param: 'botid' });
