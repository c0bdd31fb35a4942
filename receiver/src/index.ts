export { createReceiver, Receiver } from './receiver';
export type { IncomingDelivery } from './receiver';
export { DEFAULT_LISTENER_DEADLINE_MS, DEFAULT_MAX_RUN_MS } from './receiverOptions';
export type { ReceiverOptions, AcknowledgeMode } from './receiverOptions';
export type { DeliveryAnswer } from './answers';
export type { HandleContext } from './dispatch';
export { LeaseLostError } from './listeners';
export type { DeliveryContext, EventHandler, ErrorHandler } from './listeners';
export { DEFAULT_BODY_TIMEOUT_MS } from './body';
export { deliveryQueue, jobIdOf, DEFAULT_QUEUE_PREFIX, DEFAULT_QUEUE_NAME } from './queue';
export type { DeliveryQueue, DeliveryQueueOptions, QueueLocation, QueuedDelivery } from './queue';
export {
	createQueueWorker,
	QueueWorker,
	DEFAULT_QUEUE_MAX_RUN_MS,
	DEFAULT_DEAD_LETTER_WARNING_THRESHOLD,
} from './queueWorker';
export type { QueueWorkerOptions } from './queueWorker';
export { listDeadLetters, replayDeadLetters } from './deadLetters';
export type { DeadLetter, DeadLetterFilter } from './deadLetters';
export { consoleLogger } from './observability/consoleLogger';
export type { ReceiverLogger, LogFields, LogLevel, ReceiverLogCode } from './observability/logger';
export type { DeliveryOutcome } from './observability/telemetry';
export { DEFAULT_COMMAND_TIMEOUT_MS } from './redisConnection';
export type { RedisCommandClient } from './redisConnection';
export { verifyDelivery, createVerifier } from './nodeVerifier';
export type { RawBody, VerifiedDelivery, DeliveryVerifier } from './nodeVerifier';
export type { VerifyOptions, DeliveryAlgorithm, SignatureScheme, Clock } from './options';
export { DEFAULT_TOLERANCE_SECONDS, DEFAULT_MAX_BODY_BYTES, DEFAULT_CLOCK_SKEW_SECONDS } from './options';
export {
	DeliveryError,
	isDeliveryError,
	DELIVERY_ERROR_CODES,
	DELIVERY_ERROR_STATUS,
	EVENT_KINDS,
	eventProblem,
	isEventType,
	isKnownEventType,
	KNOWN_EVENT_TYPES,
} from '../../nodes/shared/delivery';
export type {
	DeliveryErrorCode,
	DeliveryEvent,
	EventKind,
	EventMap,
	HeaderSource,
	KnownDeliveryEvent,
	KnownEventType,
	Payment,
	PaymentSuccessEvent,
	SubscriberCard,
	SubscriberNewEvent,
	SubscriberStageEvent,
	UnknownDeliveryEvent,
} from '../../nodes/shared/delivery';
export { captureRawBody } from './node';
export type { NodeRequest, NodeRequestHandler } from './node';
export { memoryDedupeStore } from './dedupe/memory';
export type { MemoryDedupeStoreOptions, MemoryDedupeStore } from './dedupe/memory';
export { redisDedupeStore } from './dedupe/redis';
export type { RedisDedupeStoreOptions, RedisDedupeStore } from './dedupe/redis';
export type { DedupeStore, BeginOutcome } from './dedupe/store';
export { DEFAULT_DEDUPE_TTL_SECONDS, DEFAULT_LEASE_MS } from './dedupe/store';
export {
	signDelivery,
	signStandardWebhooksV1a,
	generateHookKeyPair,
	generateHookSecret,
	DEFAULT_ISSUER,
	JWT_LIFETIME_SECONDS,
} from './sign';
export type { SignV1aInput, SignDeliveryInput, DeliverySignatureHeaders, AsymmetricJwtKey } from './sign';
export { decodeHookSecret, decodeHookPublicKey, HOOK_SECRET_PREFIX, HOOK_PUBLIC_KEY_PREFIX } from './secret';
export { sampleEvent } from './samples';
export type { SampleEventOptions } from './samples';
