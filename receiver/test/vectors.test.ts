import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createReceiver, createVerifier, DELIVERY_ERROR_CODES, DeliveryError, type VerifyOptions } from '../src';
import { captureRefusalWarnings } from './consoleCapture';

const DIR = join(__dirname, '../../test/fixtures/deliveries');

interface Vector {
	name: string;
	description: string;
	verifier: VerifyOptions & { now: number };
	request: { method: string; headers: Record<string, string>; body: string };
	expected:
		{ valid: true; eventId: string; type: string; status: number } | { valid: false; error: string; status: number };
}

const vectors: Vector[] = readdirSync(DIR)
	.filter((file) => file.endsWith('.json'))
	.map((file) => JSON.parse(readFileSync(join(DIR, file), 'utf8')));

describe('shared delivery vectors', () => {
	it('exist and cover valid and invalid deliveries of every scheme', () => {
		expect(vectors.length).toBeGreaterThanOrEqual(40);
		const errors = new Set(vectors.flatMap((v) => (v.expected.valid ? [] : [v.expected.error])));
		for (const code of errors) expect(DELIVERY_ERROR_CODES).toContain(code);
		expect(vectors.filter((v) => v.expected.valid).length).toBeGreaterThanOrEqual(12);
	});

	describe.each(vectors.map((v) => [v.name, v] as const))('%s', (_name, vector) => {
		it('verifyDelivery gives the expected outcome', async () => {
			const verifier = createVerifier(vector.verifier);
			const outcome = verifier.verify(vector.request.body, vector.request.headers);
			if (vector.expected.valid) {
				const { event } = await outcome;
				expect({ id: event.id, type: event.type }).toEqual({ id: vector.expected.eventId, type: vector.expected.type });
			} else {
				const error = await outcome.then(
					() => undefined,
					(e: unknown) => e,
				);
				expect(error).toBeInstanceOf(DeliveryError);
				expect((error as DeliveryError).code).toBe(vector.expected.error);
			}
		});

		it('the receiver answers the expected status', async () => {
			const warnings = captureRefusalWarnings();
			try {
				const receiver = createReceiver({ ...vector.verifier, dedupe: false });
				const answer = await receiver.receive(vector.request);
				expect(answer.status).toBe(vector.expected.status);
				if (!vector.expected.valid) expect(JSON.parse(answer.body).code).toBe(vector.expected.error);
				await receiver.idle();
				// Without onError, a refusal whose cause someone can act on is reported once, as a warning naming its code.
				const expected = vector.expected.valid ? [] : [vector.expected.error];
				expect(warnings.refusals().every((code) => expected.includes(code))).toBe(true);
				expect(warnings.refusals().length).toBeLessThanOrEqual(1);
			} finally {
				warnings.restore();
			}
		});
	});
});
