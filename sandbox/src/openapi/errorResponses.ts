import { ref, sandbox, SANDBOX_MARK, type Schema, withSandboxNote } from './schema';

const pascal = (words: string) =>
	words
		.split(/[^A-Za-z0-9]+/)
		.filter(Boolean)
		.map((word) => word[0].toUpperCase() + word.slice(1))
		.join('');

/** The error codes the service's documentation names. */
const DOCUMENTED_CODES = new Set(['list_exists']);

/**
 * Error answers, each kept once in components.responses under a name that says its status and codes
 * (e.g. `Status422MissingParamInvalidParamInvalidBodyNotFound`): operations refer to them.
 */
export class ErrorResponses {
	readonly components: Record<string, unknown> = {};

	/** `sandboxRule`: the sandbox's own rule behind the answer, marked on it and said after its description. */
	ref(
		status: string,
		description: string,
		codes: string[],
		headers?: Record<string, unknown>,
		sandboxRule?: string,
	): Schema {
		const unique = [...new Set(codes)];
		const name = `Status${status}${unique.map(pascal).join('')}${headers ? '' : status === '429' ? 'NoRetryAfter' : ''}`;
		this.components[name] ??= {
			...(sandboxRule
				? { description: withSandboxNote(description, sandboxRule), [SANDBOX_MARK]: sandboxRule }
				: { description }),
			...(headers ? { headers } : {}),
			content: {
				'application/json': {
					schema: {
						allOf: [
							ref('Error'),
							{
								type: 'object',
								properties: {
									// The documentation names one code (list_exists) and leaves the list and their statuses open.
									code: unique.every((code) => DOCUMENTED_CODES.has(code))
										? { type: 'string', enum: unique }
										: sandbox(
												{ type: 'string', enum: unique },
												'The codes the sandbox answers with this status; the documentation names only `list_exists`, and the full list of codes and their statuses is not shown.',
											),
								},
							},
						],
					},
				},
			},
		};
		return { $ref: `#/components/responses/${name}` };
	}
}

/** A failure inside the sandbox (a bug, a store it cannot write): every operation can answer it. */
export const internalError = (errors: ErrorResponses) =>
	errors.ref(
		'500',
		'The sandbox failed unexpectedly (a fault of its own, such as a data file it cannot write); a change may or may not have been made.',
		['internal'],
	);

/** Refusals of the request body itself, before any method runs. */
export const bodyErrors = (errors: ErrorResponses) => ({
	'400': errors.ref(
		'400',
		'The body is not valid JSON, ended early, or does not match its Content-Type or Content-Encoding.',
		['invalid_json', 'aborted', 'invalid_body'],
	),
	'413': errors.ref('413', 'The body is larger than 10 MB.', ['too_large']),
	'415': errors.ref('415', "The body's charset or Content-Encoding is not supported.", [
		'unsupported_charset',
		'unsupported_encoding',
	]),
});
