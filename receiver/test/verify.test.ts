import { DeliveryError, verifyDelivery, type VerifyOptions } from '../src';
import { HOOK_ID, jwtOnly, newSecret, signedDelivery, standardWebhooksOnly } from './helpers';

/**
 * `verifyDelivery` reuses what it prepared for an options object (imported keys, a fetched key set), but never past a
 * change to that object: a leaked secret removed from `secrets` in place must stop verifying on the next call.
 */
const refusal = (promise: Promise<unknown>) =>
	promise.then(
		() => 'valid',
		(error: unknown) => (error instanceof DeliveryError ? error.code : Promise.reject(error)),
	);

describe('verifyDelivery with one options object changed between calls', () => {
	it.each([
		['JWT', jwtOnly],
		['Standard Webhooks', standardWebhooksOnly],
	])(
		'%s: a secret removed from options.secrets in place stops verifying at once; the one kept still verifies',
		async (_scheme, pick) => {
			const leaked = newSecret();
			const current = newSecret();
			const options: VerifyOptions & { secrets: string[] } = { secrets: [leaked, current] };
			const byLeaked = await signedDelivery(leaked);
			const byCurrent = await signedDelivery(current);
			expect(await refusal(verifyDelivery(byLeaked.body, pick(byLeaked.headers), options))).toBe('valid');
			expect(await refusal(verifyDelivery(byCurrent.body, pick(byCurrent.headers), options))).toBe('valid');

			options.secrets.splice(0, 1); // the leaked secret, removed from the same array

			expect(await refusal(verifyDelivery(byLeaked.body, pick(byLeaked.headers), options))).toBe('invalid_signature');
			expect(await refusal(verifyDelivery(byCurrent.body, pick(byCurrent.headers), options))).toBe('valid');
		},
	);

	it('a secret replaced in place (same array, same length) and a new secrets array both take effect', async () => {
		const [first, second, third] = [newSecret(), newSecret(), newSecret()];
		const options: VerifyOptions & { secrets: string[] } = { secrets: [first] };
		const byFirst = await signedDelivery(first);
		const bySecond = await signedDelivery(second);
		const byThird = await signedDelivery(third);
		expect(await refusal(verifyDelivery(byFirst.body, byFirst.headers, options))).toBe('valid');
		options.secrets[0] = second;
		expect(await refusal(verifyDelivery(byFirst.body, byFirst.headers, options))).toBe('invalid_signature');
		expect(await refusal(verifyDelivery(bySecond.body, bySecond.headers, options))).toBe('valid');
		options.secrets = [third];
		expect(await refusal(verifyDelivery(bySecond.body, bySecond.headers, options))).toBe('invalid_signature');
		expect(await refusal(verifyDelivery(byThird.body, byThird.headers, options))).toBe('valid');
	});

	it('a secret given as a string, then changed, and an audience edited in place take effect', async () => {
		const [first, second] = [newSecret(), newSecret()];
		const options: VerifyOptions & { audience: string[] } = { secrets: first, audience: [HOOK_ID] };
		const delivery = await signedDelivery(first); // for hook_1
		expect(await refusal(verifyDelivery(delivery.body, delivery.headers, options))).toBe('valid');
		options.audience[0] = 'hook_2';
		expect(await refusal(verifyDelivery(delivery.body, delivery.headers, options))).toBe('audience_mismatch');
		options.audience.push(HOOK_ID);
		expect(await refusal(verifyDelivery(delivery.body, delivery.headers, options))).toBe('valid');
		options.secrets = second;
		expect(await refusal(verifyDelivery(delivery.body, delivery.headers, options))).toBe('invalid_signature');
	});

	it('an unchanged options object keeps verifying, and a malformed one is still a configuration error', async () => {
		const secret = newSecret();
		const options = { secrets: [secret] };
		for (let i = 0; i < 3; i += 1) {
			const delivery = await signedDelivery(secret);
			expect(await refusal(verifyDelivery(delivery.body, delivery.headers, options))).toBe('valid');
		}
		await expect(verifyDelivery('{}', {}, null as never)).rejects.toThrow(TypeError);
		await expect(verifyDelivery('{}', {}, { secrets: ['not-a-secret'] })).rejects.toThrow(TypeError);
	});
});
