export { EVENT_KINDS, eventProblem, isEventType, isKnownEventType, KNOWN_EVENT_TYPES } from './core';
export type { EventKind } from './core';
export type {
	DeliveryEvent,
	EventMap,
	KnownDeliveryEvent,
	KnownEventType,
	Payment,
	PaymentSuccessEvent,
	SubscriberCard,
	SubscriberNewEvent,
	SubscriberStageEvent,
	UnknownDeliveryEvent,
} from './core';
