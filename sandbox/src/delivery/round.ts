import { randomUUID } from 'node:crypto';
import type { AsymmetricJwtKey } from '@messenger-bot-builder/receiver';
import type { Hook } from '../domain/hooks';
import type { Store } from '../store/store';
import { baseHeaders, sendAttempt, type AttemptOutcome } from './attempt';
import type { ChaosPlan } from './chaos';
import { sendCutAttempt } from './cutAttempt';
import type { Delivery } from './deliveries';
import { signAttempt } from './signingKeys';

/** One POST of a round, as it went. */
export interface SentAttempt {
	id: string;
	at: string;
	headers: Record<string, string>;
	outcome: AttemptOutcome;
	/** The chaos this POST met, as the delivery's record words it. */
	chaos: string[];
}

export interface RoundInput {
	store: Store;
	delivery: Delivery;
	hook: Hook;
	jwtKey: AsymmetricJwtKey | undefined;
	timeoutMs: number;
	stopSignal: AbortSignal;
	/** Chaos for this round (the first one only); absent for an ordinary round. */
	plan?: ChaosPlan;
}

/**
 * One round of a delivery: a freshly signed POST, or, when chaos duplicates it, two at once (each signed on its own).
 * Chaos may cut the first POST's connection, or count its answer as later than its timeout.
 */
export function sendRound(input: RoundInput): Promise<SentAttempt[]> {
	const { plan } = input;
	const first = sendOne(input, plan?.cut ? 'cut' : plan?.slow ? 'slow' : undefined);
	if (!plan?.duplicate) return Promise.all([first]);
	return Promise.all([first, sendOne(input, undefined)]);
}

async function sendOne(input: RoundInput, chaos: 'cut' | 'slow' | undefined): Promise<SentAttempt> {
	const { store, delivery, hook } = input;
	const id = `att_${randomUUID()}`;
	const at = new Date().toISOString();
	let headers = baseHeaders();
	let outcome: AttemptOutcome;
	try {
		const signature = await signAttempt(store, {
			body: delivery.body,
			eventId: delivery.eventId,
			hookId: hook.id,
			secret: hook.secret,
			attemptId: id,
			timestamp: Math.floor(Date.now() / 1000),
			jwtKey: input.jwtKey,
		});
		headers = { ...headers, ...signature };
		const request = {
			url: hook.url,
			body: delivery.body,
			headers: signature,
			timeoutMs: input.timeoutMs,
			stopSignal: input.stopSignal,
		};
		outcome = chaos === 'cut' ? await sendCutAttempt(request) : await sendAttempt(request);
	} catch (error) {
		outcome = {
			status: null,
			error: `signing failed: ${(error as Error).message}`,
			durationMs: 0,
			responseBody: null,
			abandoned: false,
		};
	}
	const notes: string[] = [];
	if (chaos === 'cut' && outcome.error?.startsWith('connection cut')) notes.push('connection cut after the request');
	if (chaos === 'slow' && outcome.status !== null) {
		notes.push(`answer counted as later than the timeout (it was ${outcome.status} after ${outcome.durationMs} ms)`);
		outcome = {
			...outcome,
			status: null,
			error: `no answer within the attempt's timeout (chaos: the receiver answered ${outcome.status} later)`,
		};
	}
	return { id, at, headers, outcome, chaos: notes };
}

/**
 * The status a round settles on: a 2xx from any of its POSTs delivers; else a 410 disables the hook; else the first
 * POST's status.
 */
export function roundStatus(sent: SentAttempt[]): number | null {
	const statuses = sent.map((attempt) => attempt.outcome.status);
	return (
		statuses.find((status) => status !== null && status >= 200 && status < 300) ??
		statuses.find((status) => status === 410) ??
		statuses[0] ??
		null
	);
}
