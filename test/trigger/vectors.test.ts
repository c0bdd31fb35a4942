import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
	refusalStatus,
	verifyDelivery,
	type VerificationKeys,
	type VerifyOptions,
} from '../../nodes/MessengerBotBuilderTrigger/delivery';

/** One shared delivery vector (format: test/fixtures/deliveries/README.md). */
interface Vector {
	name: string;
	description: string;
	verifier: VerificationKeys & VerifyOptions & { now: number };
	request: { method: string; headers: Record<string, string | string[]>; body: string };
	expected:
		{ valid: true; eventId: string; type: string; status: number } | { valid: false; error: string; status: number };
}

const folder = join(__dirname, '..', 'fixtures', 'deliveries');
const vectors: Vector[] = readdirSync(folder)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => JSON.parse(readFileSync(join(folder, file), 'utf8')) as Vector);

describe('the trigger verifier on the shared delivery vectors', () => {
	it('finds valid and invalid vectors', () => {
		expect(vectors.filter((vector) => vector.expected.valid).length).toBeGreaterThan(5);
		expect(vectors.filter((vector) => !vector.expected.valid).length).toBeGreaterThan(10);
	});

	it.each(vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
		const { verifier, request, expected } = vector;
		const verdict = verifyDelivery(
			{ headers: request.headers, rawBody: Buffer.from(request.body, 'utf8') },
			{
				secrets: verifier.secrets,
				publicKeys: verifier.publicKeys,
				jwks: verifier.jwks,
				algorithms: verifier.algorithms,
				audience: verifier.audience,
				issuer: verifier.issuer,
			},
			{ now: verifier.now, toleranceSeconds: verifier.toleranceSeconds, maxBodyBytes: verifier.maxBodyBytes },
		);
		if (expected.valid) {
			expect(verdict).toMatchObject({ ok: true, event: { id: expected.eventId, type: expected.type } });
		} else {
			expect(verdict).toMatchObject({ ok: false, code: expected.error });
			if (!verdict.ok) expect(refusalStatus(verdict.code)).toBe(expected.status);
		}
	});
});
