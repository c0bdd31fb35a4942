/**
 * Deliveries sent straight to a trigger's webhook URL, signed by the project's own signer (the
 * receiver package, built next to the sandbox): genuine ones, and the forgeries a stranger could try.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PublicApi } from './n8nApi.ts';
import { repoRoot } from './paths.ts';
import { waitFor } from './waitFor.ts';

type SignatureHeaders = Record<'x-signature' | 'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

interface Signer {
	signDelivery(input: {
		body: string;
		eventId: string;
		hookId: string;
		secret: string;
		timestamp?: number;
	}): Promise<SignatureHeaders>;
	generateHookSecret(): string;
}

const signer = createRequire(import.meta.url)(
	path.join(repoRoot, 'receiver', 'dist', 'receiver', 'src', 'index.js'),
) as Signer;

/** What n8n keeps in the trigger node's static data (see the node's hookState.ts). */
export interface TriggerHook {
	hookId: string;
	secret: string;
	url: string;
}

/** The hook a published trigger workflow keeps in its static data once n8n has activated it (node "On Event"). */
export async function publishedHook(api: PublicApi, workflowId: string, what: string): Promise<TriggerHook> {
	const state = await waitFor(
		async () => {
			const stored = (await api.getWorkflow(workflowId)).staticData?.['node:On Event'];
			return stored?.hookId && stored?.secret ? stored : undefined;
		},
		{ what: `the hook of ${what}`, timeoutMs: 30_000, intervalMs: 250 },
	);
	return { hookId: String(state.hookId), secret: String(state.secret), url: String(state.url) };
}

export interface Delivery {
	/** The event id; the body's `id`. */
	id: string;
	body: string;
}

export function subscriberEvent(hookId: string, id: string, clientid: string): Delivery {
	const event = {
		id,
		type: 'subscriber.new',
		created: new Date().toISOString(),
		hook: hookId,
		data: { subscriber: { botid: 'bot_tg', clientid, messenger: 'telegram', name: 'Forged' } },
	};
	return { id, body: JSON.stringify(event) };
}

export interface SendOptions {
	/** Sign with this secret instead of the hook's. */
	secret?: string;
	/** Unix seconds of the signature (default now). */
	timestamp?: number;
	/** Which signature headers travel: both (default), the JWT only, Standard Webhooks only, none. */
	scheme?: 'both' | 'jwt' | 'standard-webhooks' | 'none';
	/** Sent instead of the body that was signed. */
	sentBody?: string;
	/** More request headers (e.g. balancer.ts toWebhookProcess, to send it to one webhook process). */
	headers?: Record<string, string>;
}

/** n8n's answer to a delivery. */
export interface DeliveryAnswer {
	status: number;
	body: string;
}

function keepScheme(headers: SignatureHeaders, scheme: NonNullable<SendOptions['scheme']>): Record<string, string> {
	if (scheme === 'none') return {};
	if (scheme === 'jwt') return { 'x-signature': headers['x-signature'] };
	if (scheme === 'standard-webhooks') {
		const { 'x-signature': _jwt, ...standard } = headers;
		return standard;
	}
	return headers;
}

/** Signs `delivery` as told and POSTs it to the hook's URL; returns the HTTP status n8n answered. */
export async function sendDelivery(hook: TriggerHook, delivery: Delivery, options: SendOptions = {}): Promise<number> {
	return (await deliver(hook, delivery, options)).status;
}

/** The signature headers the service would send with `delivery` to `hook` (both schemes). */
export async function signatureHeaders(
	hook: TriggerHook,
	delivery: Delivery,
	options: Pick<SendOptions, 'secret' | 'timestamp'> = {},
): Promise<SignatureHeaders> {
	return signer.signDelivery({
		body: delivery.body,
		eventId: delivery.id,
		hookId: hook.hookId,
		secret: options.secret ?? hook.secret,
		timestamp: options.timestamp,
	});
}

/** Signs `delivery` as told and POSTs it to the hook's URL; returns n8n's status and body. */
export async function deliver(
	hook: TriggerHook,
	delivery: Delivery,
	options: SendOptions = {},
): Promise<DeliveryAnswer> {
	const headers = await signatureHeaders(hook, delivery, options);
	const response = await fetch(hook.url, {
		method: 'POST',
		headers: {
			'content-type': 'application/json',
			...keepScheme(headers, options.scheme ?? 'both'),
			...options.headers,
		},
		body: options.sentBody ?? delivery.body,
	});
	return { status: response.status, body: await response.text() };
}

export const otherSecret = (): string => signer.generateHookSecret();
