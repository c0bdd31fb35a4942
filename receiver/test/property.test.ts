import fc from 'fast-check';
import { createVerifier, generateHookSecret, sampleEvent, signDelivery } from '../src';
import { propertyRuns } from './propertyRuns';

/**
 * Whatever is changed in a correctly signed delivery (a body byte, a header, a signature character), the result is
 * never accepted. Both schemes are checked on their own, and together.
 */
const NOW = 1795000000;
const secret = generateHookSecret();
const verifier = createVerifier({ secrets: secret, audience: 'hook_prop', now: NOW });

interface Delivery {
	body: Buffer;
	headers: Record<string, string>;
}

async function validDelivery(type: string, withJwt: boolean, withStandardWebhooks: boolean): Promise<Delivery> {
	const event = sampleEvent(type, { id: 'evt_prop_1', hook: 'hook_prop', created: new Date(NOW * 1000).toISOString() });
	const body = JSON.stringify(event);
	const signed = await signDelivery({ body, eventId: event.id, hookId: event.hook, secret, timestamp: NOW - 1 });
	const headers: Record<string, string> = {};
	if (withJwt) headers['x-signature'] = signed['x-signature'];
	if (withStandardWebhooks) {
		for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) headers[name] = signed[name];
	}
	return { body: Buffer.from(body), headers };
}

const accepted = (delivery: Delivery) =>
	verifier.verify(delivery.body, delivery.headers).then(
		() => true,
		() => false,
	);

const schemes = fc.constantFrom([true, false], [false, true], [true, true]);
const kinds = fc.constantFrom('subscriber.new', 'subscriber.stage', 'payment.success', 'subscriber.tagged');

type Mutation =
	| { target: 'body'; at: number; byte: number; kind: string }
	| { target: 'header'; which: number; at: number; char: string; kind: string };

/** Changes, inserts or deletes bytes of the body. */
const bodyMutation: fc.Arbitrary<Mutation> = fc.record({
	target: fc.constant('body' as const),
	at: fc.nat(),
	byte: fc.integer({ min: 0, max: 255 }),
	kind: fc.constantFrom('replace', 'insert', 'delete'),
});

function mutateBody(
	{ at, byte, kind }: { at: number; byte: number; kind: string },
	delivery: Delivery,
): Delivery | undefined {
	{
		const body = delivery.body;
		const index = at % body.length;
		let next: Buffer;
		if (kind === 'replace') {
			if (body[index] === byte) return undefined;
			next = Buffer.from(body);
			next[index] = byte;
		} else if (kind === 'insert') {
			next = Buffer.concat([body.subarray(0, index), Buffer.from([byte]), body.subarray(index)]);
		} else {
			next = Buffer.concat([body.subarray(0, index), body.subarray(index + 1)]);
		}
		return { ...delivery, body: next };
	}
}

const BASE64_CHARS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_='];

/** Changes one character of one header value (including signatures), or removes/duplicates a header. */
const headerMutation: fc.Arbitrary<Mutation> = fc.record({
	target: fc.constant('header' as const),
	which: fc.nat(),
	// Often near the end, where base64 signatures keep unused bits.
	at: fc.oneof(fc.nat(), fc.integer({ min: -3, max: -1 })),
	char: fc.oneof(fc.string({ minLength: 1, maxLength: 1, unit: 'binary-ascii' }), fc.constantFrom(...BASE64_CHARS)),
	kind: fc.constantFrom('replace', 'insert', 'delete', 'drop-signatures', 'signature-tail'),
});

function mutateHeader(
	{ which, at, char, kind }: { which: number; at: number; char: string; kind: string },
	delivery: Delivery,
): Delivery | undefined {
	{
		const names = Object.keys(delivery.headers);
		if (names.length === 0) return undefined;
		const signatureNames = names.filter(
			(candidate) => candidate === 'x-signature' || candidate === 'webhook-signature',
		);
		if (kind === 'signature-tail' && signatureNames.length === 0) return undefined;
		const name =
			kind === 'signature-tail' ? signatureNames[which % signatureNames.length] : names[which % names.length];
		const value = delivery.headers[name];
		const index = at < 0 ? Math.max(0, value.length + at) : at % value.length;
		if (kind === 'drop-signatures') {
			const { 'x-signature': _jwt, 'webhook-signature': _sw, ...rest } = delivery.headers;
			return { ...delivery, headers: rest };
		}
		// The last character of a signature, replaced by a base64 character: some spell the same bytes.
		if (kind === 'signature-tail') {
			const tail = value.endsWith('=') ? value.length - 2 : value.length - 1;
			return {
				...delivery,
				headers: {
					...delivery.headers,
					[name]: value.slice(0, tail) + BASE64_CHARS[which % 64] + value.slice(tail + 1),
				},
			};
		}
		const next =
			kind === 'replace'
				? value.slice(0, index) + char + value.slice(index + 1)
				: kind === 'insert'
					? value.slice(0, index) + char + value.slice(index)
					: value.slice(0, index) + value.slice(index + 1);
		// HTTP ignores whitespace around a header value: such a change is no change.
		if (next.trim() === value.trim()) return undefined;
		return { ...delivery, headers: { ...delivery.headers, [name]: next } };
	}
}

const mutate = (mutation: Mutation, delivery: Delivery) =>
	mutation.target === 'body' ? mutateBody(mutation, delivery) : mutateHeader(mutation, delivery);

/** With both schemes present, only a change that breaks the one the verifier uses (JWT) matters. */
function breaksEveryUsableSignature(delivery: Delivery, mutated: Delivery): boolean {
	const jwtPresent = delivery.headers['x-signature'] !== undefined;
	// A change to the Standard Webhooks headers alone does not matter when a JWT decides.
	return !(
		jwtPresent &&
		mutated.headers['x-signature'] === delivery.headers['x-signature'] &&
		mutated.body.equals(delivery.body)
	);
}

describe('mutated deliveries are never accepted (fast-check)', () => {
	it('the unmutated deliveries are accepted', async () => {
		await fc.assert(
			fc.asyncProperty(kinds, schemes, async (kind, [jwt, sw]) =>
				expect(await accepted(await validDelivery(kind, jwt, sw))).toBe(true),
			),
			{ numRuns: 20 },
		);
	});

	it.each([
		['body', bodyMutation],
		['header or signature', headerMutation],
	])('after a %s mutation', async (_label, mutation) => {
		await fc.assert(
			fc.asyncProperty(
				kinds,
				schemes,
				fc.array(mutation, { minLength: 1, maxLength: 3 }),
				async (kind, [jwt, sw], mutations) => {
					const original = await validDelivery(kind, jwt, sw);
					let mutated: Delivery = original;
					for (const mutation of mutations) mutated = mutate(mutation, mutated) ?? mutated;
					fc.pre(mutated !== original && breaksEveryUsableSignature(original, mutated));
					fc.pre(
						!(
							mutated.body.equals(original.body) && JSON.stringify(mutated.headers) === JSON.stringify(original.headers)
						),
					);
					expect(await accepted(mutated)).toBe(false);
				},
			),
			{ numRuns: propertyRuns(1500) },
		);
	});
});
