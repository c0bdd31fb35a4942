import {
	DELIVERY_ERROR_CODES,
	DELIVERY_ERROR_STATUS,
	DeliveryError,
	heldBackNote,
	isDeliveryError,
	refuse,
	UnverifiedHintGate,
} from '../../nodes/shared/delivery';

/**
 * Refusals as the core builds them: each code's HTTP status, what a refusal carries, and the gate that passes a
 * diagnostic drawn from an unverified request at most once per interval.
 */

describe('refusals', () => {
	it('each code has its HTTP status', () => {
		expect(DELIVERY_ERROR_CODES).toEqual(Object.keys(DELIVERY_ERROR_STATUS));
		const expected: Record<string, number> = {
			missing_signature: 401,
			malformed_signature: 401,
			invalid_signature: 401,
			algorithm_not_allowed: 401,
			key_not_found: 401,
			invalid_claims: 401,
			expired: 401,
			not_yet_valid: 401,
			audience_mismatch: 401,
			issuer_mismatch: 401,
			event_id_mismatch: 401,
			body_hash_mismatch: 401,
			timestamp_out_of_tolerance: 401,
			body_too_large: 413,
			malformed_json: 400,
			invalid_payload: 400,
			unsupported_media_type: 415,
			method_not_allowed: 405,
			key_set_unavailable: 503,
			dedupe_unavailable: 503,
			event_in_progress: 503,
			listener_failed: 500,
			listener_timeout: 503,
			queue_unavailable: 503,
			body_timeout: 408,
			client_aborted: 400,
			internal_error: 500,
		};
		expect(DELIVERY_ERROR_STATUS).toEqual(expected);
		for (const code of DELIVERY_ERROR_CODES) expect(new DeliveryError(code, 'm').status).toBe(expected[code]);
	});

	it('carries a cause, diagnostic and clock difference only when given', () => {
		const bare = new DeliveryError('expired', 'too old');
		expect([bare.name, bare.message, bare.code, bare.status]).toEqual(['DeliveryError', 'too old', 'expired', 401]);
		expect(['cause' in bare, bare.diagnostic, bare.clockDifferenceSeconds]).toEqual([false, undefined, undefined]);
		const cause = new Error('why');
		const full = new DeliveryError('expired', 'too old', {
			cause,
			diagnostic: 'fix the clock',
			clockDifferenceSeconds: 0,
		});
		expect([full.cause, full.diagnostic, full.clockDifferenceSeconds]).toEqual([cause, 'fix the clock', 0]);
		const empty = new DeliveryError('expired', 'm', {});
		expect(['cause' in empty, empty.diagnostic, empty.clockDifferenceSeconds]).toEqual([false, undefined, undefined]);
	});

	it('refuse throws the refusal; isDeliveryError tells refusals from other errors', () => {
		let thrown: unknown;
		try {
			refuse('body_too_large', 'big', { diagnostic: 'd' });
		} catch (error) {
			thrown = error;
		}
		expect(isDeliveryError(thrown)).toBe(true);
		expect(thrown).toMatchObject({ code: 'body_too_large', status: 413, message: 'big', diagnostic: 'd' });
		expect(isDeliveryError(new Error('x'))).toBe(false);
		expect(isDeliveryError({ code: 'expired', status: 401 })).toBe(false);
	});
});

describe('the gate of unverified hints', () => {
	it('lets one through per interval, the next exactly when the interval has passed, and counts those held back', () => {
		const gate = new UnverifiedHintGate(1000);
		expect([
			gate.pass(5000),
			gate.pass(5999),
			gate.pass(5999),
			gate.pass(6000),
			gate.pass(6999),
			gate.pass(7000),
		]).toEqual([0, undefined, undefined, 2, undefined, 1]);
	});

	it('says how many were held back, in the singular for one, and nothing for none', () => {
		expect([heldBackNote(0), heldBackNote(1), heldBackNote(3)]).toEqual([
			'',
			' (1 more unverified hint was held back since the last one)',
			' (3 more unverified hints were held back since the last one)',
		]);
	});
});
