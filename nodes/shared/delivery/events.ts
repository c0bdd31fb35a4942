/**
 * Delivery events and the checks of their shape, kept to the fields the service names; extra fields are allowed
 * and kept. A kind this version does not know is checked as an envelope only (the service may add kinds).
 */

import { EVENT_KINDS, type EventKind } from './eventKinds';

type Identifier = string | number;

/** A subscriber card. The service names these fields; it may send more, which are kept. */
export interface SubscriberCard {
	botid: Identifier;
	clientid: Identifier;
	messenger: string;
	name?: string | null;
	username?: string | null;
	note?: string | null;
	tags?: string[];
	active?: boolean;
	blocked?: boolean;
	dialog?: boolean;
	/** The internal card number. */
	id?: number;
	/** Subscription time, ISO 8601. */
	subscribed?: string;
	/** Name of the CRM funnel stage, or null. */
	stage?: string | null;
	/** Variables grouped by chain. */
	variables?: Record<string, unknown>;
	[field: string]: unknown;
}

export interface Payment {
	id: Identifier;
	amount: number | string;
	currency: string;
	botid: Identifier;
	clientid: Identifier;
	messenger: string;
	description?: string | null;
	paid_at: string;
	[field: string]: unknown;
}

interface Envelope<T extends string, D> {
	id: string;
	type: T;
	/** ISO 8601 with an offset. */
	created: string;
	/** The hook the delivery is for. */
	hook: string;
	data: D;
	[field: string]: unknown;
}

export type SubscriberNewEvent = Envelope<'subscriber.new', { subscriber: SubscriberCard; [field: string]: unknown }>;
export type SubscriberStageEvent = Envelope<
	'subscriber.stage',
	{ subscriber: SubscriberCard; stage: string; previous: string | null; [field: string]: unknown }
>;
export type PaymentSuccessEvent = Envelope<'payment.success', { payment: Payment; [field: string]: unknown }>;

export interface EventMap {
	'subscriber.new': SubscriberNewEvent;
	'subscriber.stage': SubscriberStageEvent;
	'payment.success': PaymentSuccessEvent;
}
/** A documented kind; EventMap must name each one (KnownDeliveryEvent indexes it by every kind). */
export type KnownEventType = EventKind;
export type KnownDeliveryEvent = EventMap[KnownEventType];
/** An event of a kind this version does not know: only the envelope is checked. */
export type UnknownDeliveryEvent = Envelope<string, Record<string, unknown>>;
export type DeliveryEvent = KnownDeliveryEvent | UnknownDeliveryEvent;

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === 'string';
const isNonEmptyString = (value: unknown) => typeof value === 'string' && value !== '';
const isNumber = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
const isIdentifier = (value: unknown) => isNonEmptyString(value) || isNumber(value);
/**
 * An event id: text with no lone surrogate (`"\ud800"` in the JSON). Written as UTF-8 (a Redis key, a job id's hash)
 * every lone surrogate becomes U+FFFD, so two different events could share one id there and one be dropped.
 */
const isEventId = (value: unknown) =>
	isNonEmptyString(value) && (value as string & { isWellFormed(): boolean }).isWellFormed();
const isOptionalBoolean = (value: unknown) => value === undefined || typeof value === 'boolean';
const isOptionalNumber = (value: unknown) => value === undefined || isNumber(value);
const isOptionalString = (value: unknown) => value === undefined || isString(value);
const isNullishString = (value: unknown) => value === undefined || value === null || isString(value);
const isOptionalStringArray = (value: unknown) =>
	value === undefined || (Array.isArray(value) && value.every(isString));
const isOptionalPlainObject = (value: unknown) => value === undefined || isPlainObject(value);

const isDigit = (text: string, at: number) => {
	const code = text.charCodeAt(at);
	return code >= 48 && code <= 57;
};
const isDigitPair = (text: string, at: number) => isDigit(text, at) && isDigit(text, at + 1);

/**
 * Whether `text` is an ISO 8601 date-time in the form `YYYY-MM-DDTHH:MM`, then optionally `:SS` and a fraction
 * (`.` and digits), then `Z` or an offset `±HH:MM`, nothing else (`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$`).
 * Read by position: a regular expression costs more than all of an event's other checks.
 */
function isDateTimeForm(text: string): boolean {
	if (!(
		isDigitPair(text, 0) &&
		isDigitPair(text, 2) &&
		text.charCodeAt(4) === 45 &&
		isDigitPair(text, 5) &&
		text.charCodeAt(7) === 45
	))
		return false;
	if (!(
		isDigitPair(text, 8) &&
		text.charCodeAt(10) === 84 &&
		isDigitPair(text, 11) &&
		text.charCodeAt(13) === 58 &&
		isDigitPair(text, 14)
	))
		return false;
	let at = 16;
	if (text.charCodeAt(at) === 58) {
		if (!isDigitPair(text, at + 1)) return false;
		at += 3;
		if (text.charCodeAt(at) === 46) {
			const fraction = at + 1;
			at = fraction;
			while (isDigit(text, at)) at += 1;
			if (at === fraction) return false;
		}
	}
	const zone = text.charCodeAt(at);
	if (zone === 90) return at + 1 === text.length;
	if (zone !== 43 && zone !== 45) return false;
	return (
		isDigitPair(text, at + 1) && text.charCodeAt(at + 3) === 58 && isDigitPair(text, at + 4) && at + 6 === text.length
	);
}

/** The number written by the two ASCII digits at `at` (checked by {@link isDateTimeForm}). */
const twoDigits = (text: string, at: number) => (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;

function daysInMonth(year: number, month: number): number {
	if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
	return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * An ISO 8601 date-time ({@link isDateTimeForm}) that names a moment: a day its month has, hours to 23 (or 24:00
 * exactly, the end of a day), minutes and seconds to 59, an offset under 24 hours. Read from fixed positions rather
 * than by `Date.parse`, which costs more than the rest of an event's checks and takes any day up to 31 in every month.
 */
const isDateTime = (value: unknown) => {
	if (typeof value !== 'string' || !isDateTimeForm(value)) return false;
	const year = twoDigits(value, 0) * 100 + twoDigits(value, 2);
	const month = twoDigits(value, 5);
	const day = twoDigits(value, 8);
	if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
	// Seconds, when written, follow the minutes at index 16; the time ends where `Z` or the offset begins.
	const timeEnd = value.charCodeAt(value.length - 1) === 90 /* Z */ ? value.length - 1 : value.length - 6;
	const hour = twoDigits(value, 11);
	const minute = twoDigits(value, 14);
	const second = timeEnd > 16 ? twoDigits(value, 17) : 0;
	if (minute > 59 || second > 59) return false;
	if (hour === 24) {
		if (minute !== 0 || second !== 0) return false;
		for (let i = 20; i < timeEnd; i += 1) if (value.charCodeAt(i) !== 48) return false;
	} else if (hour > 23) {
		return false;
	}
	return timeEnd === value.length - 1 || (twoDigits(value, timeEnd + 1) <= 23 && twoDigits(value, timeEnd + 4) <= 59);
};

/*
 * The shapes, field by field in a fixed order, each problem named by its path. Written out rather than walked from a
 * table of fields and checks: read by name, each field is found through the inline cache of its own load (the
 * service's events all have the same layout), where a table's `value[field]` and `check(value)` go through generic
 * lookups and calls, which would make most of an event's check.
 */

function subscriberCardProblem(card: unknown, path: string): string | undefined {
	if (!isPlainObject(card)) return path;
	if (!isIdentifier(card.botid)) return `${path}.botid`;
	if (!isIdentifier(card.clientid)) return `${path}.clientid`;
	if (!isString(card.messenger)) return `${path}.messenger`;
	if (!isNullishString(card.name)) return `${path}.name`;
	if (!isNullishString(card.username)) return `${path}.username`;
	if (!isNullishString(card.note)) return `${path}.note`;
	if (!isOptionalStringArray(card.tags)) return `${path}.tags`;
	if (!isOptionalBoolean(card.active)) return `${path}.active`;
	if (!isOptionalBoolean(card.blocked)) return `${path}.blocked`;
	if (!isOptionalBoolean(card.dialog)) return `${path}.dialog`;
	if (!isOptionalNumber(card.id)) return `${path}.id`;
	if (!isOptionalString(card.subscribed)) return `${path}.subscribed`;
	if (!isNullishString(card.stage)) return `${path}.stage`;
	if (!isOptionalPlainObject(card.variables)) return `${path}.variables`;
	return undefined;
}

function paymentProblem(payment: unknown, path: string): string | undefined {
	if (!isPlainObject(payment)) return path;
	if (!isIdentifier(payment.id)) return `${path}.id`;
	if (!(isNumber(payment.amount) || isString(payment.amount))) return `${path}.amount`;
	if (!isString(payment.currency)) return `${path}.currency`;
	if (!isIdentifier(payment.botid)) return `${path}.botid`;
	if (!isIdentifier(payment.clientid)) return `${path}.clientid`;
	if (!isString(payment.messenger)) return `${path}.messenger`;
	if (!isNullishString(payment.description)) return `${path}.description`;
	if (!isString(payment.paid_at)) return `${path}.paid_at`;
	return undefined;
}

/** Where the `data` of each kind the service documents fails its shape (paths from the event: "data.stage"). */
const DATA_PROBLEMS: Record<KnownEventType, (data: Record<string, unknown>) => string | undefined> = {
	'subscriber.new': (data) => subscriberCardProblem(data.subscriber, 'data.subscriber'),
	'subscriber.stage': (data) => {
		const problem = subscriberCardProblem(data.subscriber, 'data.subscriber');
		if (problem) return problem;
		if (!isString(data.stage)) return 'data.stage';
		return data.previous === null || isString(data.previous) ? undefined : 'data.previous';
	},
	'payment.success': (data) => paymentProblem(data.payment, 'data.payment'),
};

export const KNOWN_EVENT_TYPES: KnownEventType[] = EVENT_KINDS.map((kind) => kind.value);

export function isKnownEventType(type: string): type is KnownEventType {
	return Object.hasOwn(DATA_PROBLEMS, type);
}

/** Narrows an event to one kind: `if (isEventType(e, 'payment.success')) e.data.payment.amount`. */
export function isEventType<T extends KnownEventType>(event: DeliveryEvent, type: T): event is EventMap[T] {
	return event.type === type;
}

/** Where a parsed body fails to be an event ("created", "data.stage", …), or undefined when it is one. */
export function eventProblem(body: unknown): string | undefined {
	if (!isPlainObject(body)) return '(body)';
	if (!isEventId(body.id)) return 'id';
	const type = body.type;
	if (!isNonEmptyString(type)) return 'type';
	if (!isDateTime(body.created)) return 'created';
	if (!isNonEmptyString(body.hook)) return 'hook';
	const data = body.data;
	if (!isPlainObject(data)) return 'data';
	return isKnownEventType(type as string) ? DATA_PROBLEMS[type as KnownEventType](data) : undefined;
}
