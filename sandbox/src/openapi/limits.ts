/**
 * Sizes the sandbox keeps to where the service's documentation names none (and the 500 rows a request it names).
 * The OpenAPI document states them as schema bounds; the methods use the same numbers.
 */
export const LIMITS = {
	text: 4096,
	field: 1000,
	tag: 100,
	buttons: 10,
	clientid: 100,
	hookName: 200,
	url: 2048,
	broadcastName: 200,
	rowsPerRequest: 500,
	itemsPerRequest: 500,
	keyDays: 3650,
	idempotencyKey: 255,
	statDays: 366,
} as const;
