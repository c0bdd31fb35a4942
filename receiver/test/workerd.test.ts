import { Miniflare } from 'miniflare';
import { generateHookKeyPair, generateHookSecret, sampleEvent, signDelivery, signStandardWebhooksV1a } from '../src';
import { bundleWorker, expectedOfficialOutcomes, expectedVectorOutcomes, vectors } from './workerd/bundle';

/**
 * The receiver's Web-standard entry (`@messenger-bot-builder/receiver/web`) for real in workerd, the runtime of
 * Cloudflare Workers, through miniflare, without `nodejs_compat`: Web Crypto only. It must reach every shared vector's
 * outcome and every official Standard Webhooks case's, and its fetch handler must accept signed deliveries.
 */
const SECRET = generateHookSecret();
const HOOK = 'hook_workerd';
const PAIR = generateHookKeyPair();

let mf: Miniflare;

beforeAll(async () => {
	const script = await bundleWorker({ secrets: [SECRET], publicKeys: [PAIR.publicKey], audience: [HOOK] });
	mf = new Miniflare({ modules: true, script, compatibilityDate: '2025-09-01' });
	await mf.ready;
}, 60_000);

afterAll(async () => {
	await mf?.dispose();
});

async function get(path: string) {
	const response = await mf.dispatchFetch(`http://worker${path}`);
	return response.json() as Promise<unknown>;
}

describe('the receiver in workerd (miniflare), Web Crypto only', () => {
	it('runs without Buffer or process, with crypto.subtle', async () => {
		expect(await get('/runtime')).toEqual({ buffer: 'undefined', process: 'undefined', subtle: 'object' });
	});

	it('reaches the outcome of every shared delivery vector', async () => {
		const results = await get('/vectors');
		expect(vectors.length).toBeGreaterThanOrEqual(50);
		expect(results).toEqual(expectedVectorOutcomes());
	});

	it('reaches the outcome of every official Standard Webhooks case', async () => {
		expect(await get('/official')).toEqual(expectedOfficialOutcomes());
	});

	it('its fetch handler accepts a JWT delivery and a v1a delivery, refuses a tampered one, and answers without the diagnostic', async () => {
		const send = (body: string, headers: Record<string, string>) =>
			mf.dispatchFetch('http://worker/hooks', {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...headers },
				body,
			});
		const jwtEvent = sampleEvent('subscriber.new', { hook: HOOK });
		const jwtBody = JSON.stringify(jwtEvent);
		const jwtAnswer = await send(
			jwtBody,
			await signDelivery({ body: jwtBody, eventId: jwtEvent.id, hookId: HOOK, secret: SECRET }),
		);
		expect(jwtAnswer.status).toBe(200);
		expect(await jwtAnswer.json()).toEqual({ received: true, id: jwtEvent.id });

		const v1aEvent = sampleEvent('payment.success', { hook: HOOK });
		const v1aBody = JSON.stringify(v1aEvent);
		const v1aHeaders = signStandardWebhooksV1a({
			body: v1aBody,
			eventId: v1aEvent.id,
			timestamp: Math.floor(Date.now() / 1000),
			privateKey: PAIR.privateKey,
		});
		expect((await send(v1aBody, v1aHeaders)).status).toBe(200);

		const tampered = await send(JSON.stringify(v1aEvent, null, 2), v1aHeaders);
		expect(tampered.status).toBe(401);
		const refusal = (await tampered.json()) as { code: string; error: string };
		expect(refusal.code).toBe('invalid_signature');
		expect(refusal.error).not.toMatch(/body parser/);

		const events = (await get('/events')) as Array<{ id: string }>;
		expect(events.map((event) => event.id)).toEqual([jwtEvent.id, v1aEvent.id]);
	});
});
