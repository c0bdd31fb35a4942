// Signed benchmark requests. Every event is signed once; the JWT, Standard Webhooks and octokit requests for it
// carry the same body, so the scenarios differ only by the headers they are checked with.
import { createHmac } from 'node:crypto';
import { sampleEvent, signDelivery } from '@messenger-bot-builder/receiver';

const KINDS = ['subscriber.new', 'subscriber.stage', 'payment.success'];

/**
 * How each scenario's requests are signed (bare reads the JWT-signed requests and ignores the signature). The
 * acknowledgement-mode scenarios all use JWTs, so they compare with `receiver-jwt` (onReceipt, memory store).
 */
export const SIGNING = {
	bare: 'jwt',
	'bare-node': 'jwt',
	'standardwebhooks-npm': 'standard-webhooks',
	'receiver-jwt': 'jwt',
	'receiver-standard-webhooks': 'standard-webhooks',
	'standard-webhooks-no-dedupe': 'standard-webhooks',
	octokit: 'octokit',
	'hmac-floor': 'octokit',
	'onReceipt-redis': 'jwt',
	afterListeners: 'jwt',
	'afterListeners-redis': 'jwt',
	queue: 'jwt',
	'bullmq-raw': 'jwt',
};

function request(headers, body) {
	return { method: 'POST', path: '/hooks', headers: { 'content-type': 'application/json', ...headers }, body };
}

/** The three signed forms of one new event, signed at `timestamp` (unix seconds; default now). */
async function signEvent(secret, index, timestamp) {
	const event = sampleEvent(KINDS[index % KINDS.length], { hook: 'hook_bench' });
	const body = JSON.stringify(event);
	const { 'x-signature': jwt, ...standardWebhooks } = await signDelivery({
		body,
		eventId: event.id,
		hookId: event.hook,
		secret,
		timestamp,
	});
	const octokit = {
		'x-github-event': 'ping',
		'x-github-delivery': event.id,
		'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
	};
	return {
		jwt: request({ 'x-signature': jwt }, body),
		'standard-webhooks': request(standardWebhooks, body),
		octokit: request(octokit, body),
	};
}

/**
 * `connections` slices of `perConnection` distinct events, in each signing: `pools[signing][connection]` is the
 * list autocannon cycles through on that connection. `timestamp`: the signing time (unix seconds; default now).
 */
export async function signPools(secret, connections, perConnection, timestamp) {
	const pools = { jwt: [], 'standard-webhooks': [], octokit: [] };
	let index = 0;
	for (let c = 0; c < connections; c += 1) {
		const slices = { jwt: [], 'standard-webhooks': [], octokit: [] };
		for (let i = 0; i < perConnection; i += 1) {
			const signed = await signEvent(secret, index++, timestamp);
			for (const signing of Object.keys(slices)) slices[signing].push(signed[signing]);
		}
		for (const signing of Object.keys(slices)) pools[signing].push(slices[signing]);
	}
	return pools;
}
