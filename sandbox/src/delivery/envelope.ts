import { randomBytes } from 'node:crypto';
import type { EventKind } from '@messenger-bot-builder/receiver';

/** The body of a delivery, as the receiver sees it. */
export interface EventEnvelope {
	/** `evt_...`: the same for every attempt of one hook's delivery; receivers dedupe on it. */
	id: string;
	type: EventKind;
	created: string;
	/** Id of the hook the delivery is for. */
	hook: string;
	data: Record<string, unknown>;
}

export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`;

/**
 * The exact raw body of a delivery. It is built once and stored, so every retry sends (and signs)
 * the same bytes.
 */
export function envelopeBody(envelope: EventEnvelope): string {
	const { id, type, created, hook, data } = envelope;
	return JSON.stringify({ id, type, created, hook, data });
}
