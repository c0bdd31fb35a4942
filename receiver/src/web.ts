/**
 * The receiver on Web Crypto alone, for runtimes without `node:crypto` (workerd / Cloudflare Workers, and any
 * Web-standard runtime): the same verification core and rules as the Node.js entry, every step asynchronous.
 *
 * `import { createWebHandler } from '@messenger-bot-builder/receiver/web'`
 */
import { checkRequestLine, DEFAULT_BODY_TIMEOUT_MS, readWebStream } from './body';
import { DeliveryError, readHeaders, type DeliveryEvent, type VerifiedDelivery } from '../../nodes/shared/delivery';
import { webCrypto } from './webCrypto';
import { positiveNumber, type VerifyOptions } from './options';
import { refusalLine, signedEventIdOf } from './refusalLog';
import { createVerifierOn, type DeliveryVerifier } from './deliveryVerifier';
import { DEFAULT_LOGGER } from './observability/consoleLogger';
import { loggerOf, type ReceiverLogger } from './observability/logger';

export {
	DeliveryError,
	DELIVERY_ERROR_CODES,
	DELIVERY_ERROR_STATUS,
	isDeliveryError,
	isEventType,
	isKnownEventType,
	KNOWN_EVENT_TYPES,
} from '../../nodes/shared/delivery';
export type { DeliveryErrorCode } from '../../nodes/shared/delivery';
export type { LogFields, ReceiverLogCode, ReceiverLogger } from './observability/logger';
export type { DeliveryEvent, VerifiedDelivery, DeliveryVerifier, VerifyOptions };

/** A verifier whose cryptography is Web Crypto's (`crypto.subtle`). */
export function createWebVerifier(options: VerifyOptions): DeliveryVerifier {
	return createVerifierOn(options, webCrypto);
}

export interface WebHandlerOptions extends VerifyOptions {
	/**
	 * Runs for each verified delivery; the answer is 2xx only once it has succeeded, so the sender retries a failure.
	 * A retried event comes again with the same `event.id`: deduplicate on it where running twice matters.
	 */
	onEvent(event: DeliveryEvent, delivery: VerifiedDelivery): unknown;
	/** Receives refusals that carry a diagnostic (clocks apart, a re-serialized body) and `onEvent` failures. */
	onError?(error: unknown, event: DeliveryEvent | undefined): unknown;
	/** Longest time a request body may take to arrive (default 10 000 ms); then 408. */
	bodyTimeoutMs?: number;
	/**
	 * Where the handler's lines go when there is no `onError` (see docs/observability.md). Default: the console, as
	 * `[receiver] ...` lines.
	 */
	logger?: ReceiverLogger;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
	return new Response(JSON.stringify(body), {
		status,
		headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
	});
}

/**
 * A `fetch` handler: `export default { fetch: createWebHandler({ secrets: [env.HOOK_SECRET], onEvent }) }`. Verifies,
 * runs `onEvent`, and answers; the refusal's body carries the code and message,
 * never the diagnostic.
 */
export function createWebHandler(options: WebHandlerOptions): (request: Request) => Promise<Response> {
	if (typeof options?.onEvent !== 'function') throw new TypeError('onEvent must be a function');
	const { onEvent, onError, bodyTimeoutMs, logger: given, ...verifyOptions } = options;
	const logger = loggerOf(given, DEFAULT_LOGGER);
	const verifier = createWebVerifier(verifyOptions);
	const bodyTimeout = positiveNumber(bodyTimeoutMs, DEFAULT_BODY_TIMEOUT_MS, 'bodyTimeoutMs');
	return async (request) => {
		let delivery: VerifiedDelivery;
		try {
			const headers = readHeaders(request.headers);
			checkRequestLine(request.method, headers, verifier.maxBodyBytes);
			const body = await readWebStream(request.body, verifier.maxBodyBytes, bodyTimeout);
			delivery = await verifier.verify(body, request.headers);
		} catch (error) {
			if (!(error instanceof DeliveryError)) throw error;
			if (error.diagnostic !== undefined) {
				if (onError) await onError(error, undefined);
				else {
					const eventId = signedEventIdOf(error, readHeaders(request.headers));
					logger.warn(refusalLine(error, eventId, 0), {
						code: 'delivery.refused',
						reason: error.code,
						...(eventId === undefined ? {} : { eventId }),
					});
				}
			}
			return json(
				error.status,
				{ code: error.code, error: error.message },
				error.code === 'method_not_allowed' ? { allow: 'POST' } : {},
			);
		}
		const { event } = delivery;
		try {
			await onEvent(event, delivery);
		} catch (error) {
			if (onError) await onError(error, event);
			else
				logger.error(`onEvent failed for ${event.type} ${event.id}`, {
					code: 'listener.failed',
					error,
					eventId: event.id,
					eventType: event.type,
				});
			return json(500, { code: 'listener_failed', error: 'The event could not be processed; retry later' });
		}
		return json(200, { received: true, id: event.id });
	};
}
