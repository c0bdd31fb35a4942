import { isPlainObject } from './encoding';

/**
 * Shape checks of delivery events, kept to the fields the service names; extra fields are allowed
 * and kept. Each function returns the path of the first field that is wrong, or undefined.
 */
type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string';
const isNonEmptyString: Check = (value) => typeof value === 'string' && value !== '';
const isIdentifier: Check = (value) => isNonEmptyString(value) || (typeof value === 'number' && Number.isFinite(value));
const optional = (check: Check): Check => (value) => value === undefined || check(value);
const nullish = (check: Check): Check => (value) => value === undefined || value === null || check(value);
const nullable = (check: Check): Check => (value) => value === null || check(value);
const isBoolean: Check = (value) => typeof value === 'boolean';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isStringArray: Check = (value) => Array.isArray(value) && value.every(isString);
/** ISO 8601 date-time with seconds optional, fractions allowed, and `Z` or an offset. */
const isDateTime: Check = (value) =>
	typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value));

interface Shape {
	[field: string]: Check | Shape;
}

function firstProblem(value: unknown, shape: Shape, path: string): string | undefined {
	if (!isPlainObject(value)) return path || '(body)';
	for (const [field, check] of Object.entries(shape)) {
		const where = path ? `${path}.${field}` : field;
		const problem = typeof check === 'function' ? (check(value[field]) ? undefined : where) : firstProblem(value[field], check, where);
		if (problem) return problem;
	}
	return undefined;
}

const envelope: Shape = {
	id: isNonEmptyString,
	type: isNonEmptyString,
	created: isDateTime,
	hook: isNonEmptyString,
	data: isPlainObject,
};

const subscriberCard: Shape = {
	botid: isIdentifier,
	clientid: isIdentifier,
	messenger: isString,
	name: nullish(isString),
	username: nullish(isString),
	note: nullish(isString),
	tags: optional(isStringArray),
	active: optional(isBoolean),
	blocked: optional(isBoolean),
	dialog: optional(isBoolean),
	id: optional(isNumber),
	subscribed: optional(isString),
	stage: nullish(isString),
	variables: optional(isPlainObject),
};

const payment: Shape = {
	id: isIdentifier,
	amount: (value) => isNumber(value) || isString(value),
	currency: isString,
	botid: isIdentifier,
	clientid: isIdentifier,
	messenger: isString,
	description: nullish(isString),
	paid_at: isString,
};

/** The `data` of each kind the service documents. Kinds not listed here are checked as envelopes only. */
const dataShapes: Record<string, Shape> = {
	'subscriber.new': { subscriber: subscriberCard },
	'subscriber.stage': { subscriber: subscriberCard, stage: isString, previous: nullable(isString) },
	'payment.success': { payment },
};

/** Where the body fails to be an event envelope ("created", …), or undefined. */
export function envelopeProblem(body: unknown): string | undefined {
	return firstProblem(body, envelope, '');
}

/** Where a documented kind's `data` is wrong ("data.stage", …), or undefined; other kinds are not checked. */
export function dataProblem(type: string, data: unknown): string | undefined {
	const shape = Object.prototype.hasOwnProperty.call(dataShapes, type) ? dataShapes[type] : undefined;
	return shape ? firstProblem(data, shape, 'data') : undefined;
}
