/**
 * Delivery events and the checks of their shape, kept to the fields the service names; extra fields are allowed
 * and kept. A kind this version does not know is checked as an envelope only (the service may add kinds).
 */

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
export type KnownEventType = keyof EventMap;
export type KnownDeliveryEvent = EventMap[KnownEventType];
/** An event of a kind this version does not know: only the envelope is checked. */
export type UnknownDeliveryEvent = Envelope<string, Record<string, unknown>>;
export type DeliveryEvent = KnownDeliveryEvent | UnknownDeliveryEvent;

type Check = (value: unknown) => boolean;

export const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isString: Check = (value) => typeof value === 'string';
const isNonEmptyString: Check = (value) => typeof value === 'string' && value !== '';
const isNumber: Check = (value) => typeof value === 'number' && Number.isFinite(value);
const isIdentifier: Check = (value) => isNonEmptyString(value) || isNumber(value);
/**
 * An event id: text with no lone surrogate (`"\ud800"` in the JSON). Written as UTF-8 (a Redis key, a job id's hash)
 * every lone surrogate becomes U+FFFD, so two different events could share one id there and one be dropped.
 */
const isEventId: Check = (value) => isNonEmptyString(value) && (value as string & { isWellFormed(): boolean }).isWellFormed();
const isBoolean: Check = (value) => typeof value === 'boolean';
const isStringArray: Check = (value) => Array.isArray(value) && value.every(isString);
const optional = (check: Check): Check => (value) => value === undefined || check(value);
const nullish = (check: Check): Check => (value) => value === undefined || value === null || check(value);
const nullable = (check: Check): Check => (value) => value === null || check(value);
/** ISO 8601 date-time: seconds optional, fractions allowed, `Z` or an offset (one object: a literal in the check would be made per call). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The number written by the two ASCII digits at `at` (checked by {@link DATE_TIME}). */
const twoDigits = (text: string, at: number) => (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * A {@link DATE_TIME} that names a moment: a day its month has, hours to 23 (or 24:00 exactly, the end of a day),
 * minutes and seconds to 59, an offset under 24 hours. Read from fixed positions rather than by `Date.parse`, which
 * costs more than the rest of an event's checks and takes any day up to 31 in every month.
 */
const isDateTime: Check = (value) => {
  if (typeof value !== 'string' || !DATE_TIME.test(value)) return false;
  const year = twoDigits(value, 0) * 100 + twoDigits(value, 2);
  const month = twoDigits(value, 5);
  const day = twoDigits(value, 8);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  // Seconds, when written, follow the minutes at index 16; the time ends where `Z` or the offset begins.
  const timeEnd = value.endsWith('Z') ? value.length - 1 : value.length - 6;
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

interface ShapeSpec {
  [field: string]: Check | ShapeSpec;
}

/** A shape's fields as a list, made once: the check runs for every delivery. */
type Shape = ReadonlyArray<readonly [field: string, check: Check | Shape]>;

function shape(spec: ShapeSpec): Shape {
  return Object.entries(spec).map(([field, check]) => [field, typeof check === 'function' ? check : shape(check)] as const);
}

function firstProblem(value: unknown, fields: Shape, path: string): string | undefined {
  if (!isPlainObject(value)) return path || '(body)';
  for (const [field, check] of fields) {
    const problem =
      typeof check === 'function'
        ? check(value[field])
          ? undefined
          : path
            ? `${path}.${field}`
            : field
        : firstProblem(value[field], check, path ? `${path}.${field}` : field);
    if (problem) return problem;
  }
  return undefined;
}

const envelope = shape({ id: isEventId, type: isNonEmptyString, created: isDateTime, hook: isNonEmptyString, data: isPlainObject });

const subscriberCard: ShapeSpec = {
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

const payment: ShapeSpec = {
  id: isIdentifier,
  amount: (value) => isNumber(value) || isString(value),
  currency: isString,
  botid: isIdentifier,
  clientid: isIdentifier,
  messenger: isString,
  description: nullish(isString),
  paid_at: isString,
};

/** The `data` of each kind the service documents. */
const DATA_SHAPES: Record<KnownEventType, Shape> = {
  'subscriber.new': shape({ subscriber: subscriberCard }),
  'subscriber.stage': shape({ subscriber: subscriberCard, stage: isString, previous: nullable(isString) }),
  'payment.success': shape({ payment }),
};

export const KNOWN_EVENT_TYPES = Object.keys(DATA_SHAPES) as KnownEventType[];

export function isKnownEventType(type: string): type is KnownEventType {
  return Object.hasOwn(DATA_SHAPES, type);
}

/** Narrows an event to one kind: `if (isEventType(e, 'payment.success')) e.data.payment.amount`. */
export function isEventType<T extends KnownEventType>(event: DeliveryEvent, type: T): event is EventMap[T] {
  return event.type === type;
}

/** Where a parsed body fails to be an event ("created", "data.stage", …), or undefined when it is one. */
export function eventProblem(body: unknown): string | undefined {
  const problem = firstProblem(body, envelope, '');
  if (problem) return problem;
  const { type, data } = body as { type: string; data: unknown };
  return isKnownEventType(type) ? firstProblem(data, DATA_SHAPES[type], 'data') : undefined;
}
