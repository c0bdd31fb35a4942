import {
	decodeCanonicalBase64urlText,
	heldBackNote,
	type DeliveryError,
	type DeliveryErrorCode,
	type HeaderReader,
} from '../../nodes/shared/delivery';

/**
 * The refusals whose diagnostic comes after a signature that matched, by where their signed event id is: the JWT's
 * `evt` claim, or the `webhook-id` header (signed with the body in Standard Webhooks). Refusals with an unverified
 * diagnostic name no id: the request chose it.
 */
const SIGNED_ID_SOURCE: Partial<Record<DeliveryErrorCode, 'jwt' | 'webhook-id'>> = {
	expired: 'jwt',
	not_yet_valid: 'jwt',
	body_hash_mismatch: 'jwt',
	timestamp_out_of_tolerance: 'webhook-id',
};

/** Ids are printed only when they look like ids: nothing a log reader could mistake for another line. */
const PRINTABLE_ID = /^[\w.:-]{1,200}$/;

/** The signed event id of a refused delivery whose signature matched, read back from its headers; else undefined. */
export function signedEventIdOf(error: DeliveryError, headers: HeaderReader): string | undefined {
	if (error.diagnosticUnverified) return undefined;
	const source = SIGNED_ID_SOURCE[error.code];
	let id: unknown;
	if (source === 'webhook-id') {
		id = headers.get('webhook-id');
	} else if (source === 'jwt') {
		const payload = headers.get('x-signature')?.split('.')[1];
		const text = payload === undefined ? undefined : decodeCanonicalBase64urlText(payload);
		try {
			id = text === undefined ? undefined : (JSON.parse(text) as { evt?: unknown } | null)?.evt;
		} catch {
			id = undefined;
		}
	}
	return typeof id === 'string' && PRINTABLE_ID.test(id) ? id : undefined;
}

/**
 * The log message of a refused delivery that carries a diagnostic: one line, its reason (code and diagnostic) and the
 * signed event id when there is one; the stack trace follows only with `logStackTraces` (a debugging aid).
 */
export function refusalLine(
	error: DeliveryError,
	eventId: string | undefined,
	heldBack: number,
	logStackTraces = false,
): string {
	const delivery = eventId === undefined ? 'a delivery' : `a delivery of event ${eventId}`;
	const line = `refused ${delivery} (${error.code}): ${error.diagnostic}${heldBackNote(heldBack)}`;
	return logStackTraces && error.stack ? `${line}\n${error.stack}` : line;
}
