import type { ReceiverLogger } from './observability/logger';
import { DeliveryError, type DeliveryEvent } from '../../nodes/shared/delivery';

/** The answer to give the sender. */
export interface DeliveryAnswer {
	status: number;
	headers: Record<string, string>;
	body: string;
	/** Set when the delivery was verified (also for duplicates). */
	event?: DeliveryEvent;
	duplicate?: boolean;
	/** Set when the delivery was refused. */
	error?: DeliveryError;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const CLOSING_CODES = new Set(['body_too_large', 'body_timeout']);

export function refusal(error: DeliveryError): DeliveryAnswer {
	const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
	if (error.code === 'method_not_allowed') headers.allow = 'POST';
	if (CLOSING_CODES.has(error.code)) headers.connection = 'close';
	return { status: error.status, headers, body: JSON.stringify({ code: error.code, error: error.message }), error };
}

/** Ids that JSON writes as they are, between quotes (the service's `evt_...` ids). */
const PLAIN_ID = /^[\w.:-]*$/;

/** The answer to a verified delivery: `{ received: true, id, duplicate }`, or `{ received: true, id, queued: true }`. */
export function acceptance(event: DeliveryEvent, duplicate: boolean | 'queued'): DeliveryAnswer {
	const id = PLAIN_ID.test(event.id) ? `"${event.id}"` : JSON.stringify(event.id);
	return {
		status: 200,
		headers: { 'content-type': JSON_CONTENT_TYPE },
		body:
			duplicate === 'queued'
				? `{"received":true,"id":${id},"queued":true}`
				: `{"received":true,"id":${id},"duplicate":${duplicate}}`,
		event,
		duplicate: duplicate === 'queued' ? undefined : duplicate,
	};
}

/** The answer to a refused delivery; an error that is not a refusal propagates. */
export function refusalOf(error: unknown, explain?: (error: DeliveryError) => DeliveryError): DeliveryAnswer {
	const refused = asDeliveryError(error);
	return refusal(explain ? explain(refused) : refused);
}

/** The answer to anything: a refusal, or a fault of the receiver (logged, answered 500 so that the sender retries). */
export function answerToAnything(error: unknown, logger: ReceiverLogger): DeliveryAnswer {
	if (error instanceof DeliveryError) return refusal(error);
	logger.error('a delivery could not be handled', { code: 'delivery.failed', error });
	return refusal(new DeliveryError('internal_error', 'The receiver failed; retry later'));
}

/** Refusals become answers; anything else is a fault of the receiver or the connection and propagates. */
function asDeliveryError(error: unknown): DeliveryError {
	if (error instanceof DeliveryError) return error;
	throw error;
}
