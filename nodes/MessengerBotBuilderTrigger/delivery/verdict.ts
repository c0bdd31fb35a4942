/**
 * Why a delivery was refused. Each code names one check, so logs and tests can tell them apart; the
 * vocabulary is the one of the shared delivery test vectors.
 */
export type RejectionCode =
	| 'missing_signature'
	| 'malformed_signature'
	| 'invalid_signature'
	| 'algorithm_not_allowed'
	| 'key_not_found'
	| 'invalid_claims'
	| 'expired'
	| 'not_yet_valid'
	| 'audience_mismatch'
	| 'issuer_mismatch'
	| 'event_id_mismatch'
	| 'body_hash_mismatch'
	| 'timestamp_out_of_tolerance'
	| 'body_too_large'
	| 'malformed_json'
	| 'invalid_payload';

/** The HTTP status that answers a refusal: the body's size and shape have their own, every signature problem is 401. */
export function refusalStatus(code: RejectionCode): number {
	if (code === 'body_too_large') return 413;
	if (code === 'malformed_json' || code === 'invalid_payload') return 400;
	return 401;
}

/** A delivery event: `{ id, type, created, hook, data }`; other fields are kept as sent. */
export interface DeliveryEvent {
	id: string;
	type: string;
	created?: string;
	hook?: string;
	data?: unknown;
	[field: string]: unknown;
}

export type SignatureScheme = 'jwt' | 'standard-webhooks';

export type Verdict =
	| { ok: true; scheme: SignatureScheme; event: DeliveryEvent }
	| { ok: false; code: RejectionCode; reason: string };

/** Thrown inside the verifier and turned into a refusing verdict at its edge. */
export class Rejection extends Error {
	constructor(
		readonly code: RejectionCode,
		readonly reason: string,
	) {
		super(reason);
	}
}

export function reject(code: RejectionCode, reason: string): never {
	throw new Rejection(code, reason);
}
