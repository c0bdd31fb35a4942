import { z } from 'zod';

/** Identifiers the service writes either as numbers or as strings. */
const identifier = z.union([z.string().min(1), z.number()]);

/**
 * A subscriber card. The service names these fields; it may send more, which are kept.
 */
export const subscriberCardSchema = z.looseObject({
  botid: identifier,
  clientid: identifier,
  messenger: z.string(),
  name: z.string().nullish(),
  username: z.string().nullish(),
  note: z.string().nullish(),
  tags: z.array(z.string()).optional(),
  active: z.boolean().optional(),
  blocked: z.boolean().optional(),
  dialog: z.boolean().optional(),
  /** The internal card number. */
  id: z.number().optional(),
  /** Subscription time, ISO 8601. */
  subscribed: z.string().optional(),
  /** Name of the CRM funnel stage, or null. */
  stage: z.string().nullish(),
  /** Variables grouped by chain. */
  variables: z.record(z.string(), z.unknown()).optional(),
});

export const paymentSchema = z.looseObject({
  id: identifier,
  amount: z.union([z.number(), z.string()]),
  currency: z.string(),
  botid: identifier,
  clientid: identifier,
  messenger: z.string(),
  description: z.string().nullish(),
  paid_at: z.string(),
});

/** Fields every event has, whatever its kind. */
const envelopeShape = {
  id: z.string().min(1),
  type: z.string().min(1),
  created: z.iso.datetime({ offset: true }),
  hook: z.string().min(1),
};

/** Any event, including kinds this version does not know (the service may add kinds). */
export const deliveryEnvelopeSchema = z.looseObject({
  ...envelopeShape,
  data: z.record(z.string(), z.unknown()),
});

export const subscriberNewEventSchema = z.looseObject({
  ...envelopeShape,
  type: z.literal('subscriber.new'),
  data: z.looseObject({ subscriber: subscriberCardSchema }),
});

export const subscriberStageEventSchema = z.looseObject({
  ...envelopeShape,
  type: z.literal('subscriber.stage'),
  data: z.looseObject({
    subscriber: subscriberCardSchema,
    stage: z.string(),
    previous: z.string().nullable(),
  }),
});

export const paymentSuccessEventSchema = z.looseObject({
  ...envelopeShape,
  type: z.literal('payment.success'),
  data: z.looseObject({ payment: paymentSchema }),
});

/** The schema of each event kind this version knows. */
export const eventSchemas = {
  'subscriber.new': subscriberNewEventSchema,
  'subscriber.stage': subscriberStageEventSchema,
  'payment.success': paymentSuccessEventSchema,
} as const;

export type SubscriberCard = z.infer<typeof subscriberCardSchema>;
export type Payment = z.infer<typeof paymentSchema>;
export type SubscriberNewEvent = z.infer<typeof subscriberNewEventSchema>;
export type SubscriberStageEvent = z.infer<typeof subscriberStageEventSchema>;
export type PaymentSuccessEvent = z.infer<typeof paymentSuccessEventSchema>;

export type EventMap = { [K in keyof typeof eventSchemas]: z.infer<(typeof eventSchemas)[K]> };
export type KnownEventType = keyof EventMap;
export type KnownDeliveryEvent = EventMap[KnownEventType];
/** An event of a kind this version does not know: only the envelope is checked. */
export type UnknownDeliveryEvent = z.infer<typeof deliveryEnvelopeSchema>;
export type DeliveryEvent = KnownDeliveryEvent | UnknownDeliveryEvent;

export const KNOWN_EVENT_TYPES = Object.keys(eventSchemas) as KnownEventType[];

export function isKnownEventType(type: string): type is KnownEventType {
  return Object.hasOwn(eventSchemas, type);
}

/** Narrows an event to one kind: `if (isEventType(e, 'payment.success')) e.data.payment.amount`. */
export function isEventType<T extends KnownEventType>(event: DeliveryEvent, type: T): event is EventMap[T] {
  return event.type === type;
}
