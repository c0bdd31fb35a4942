import { randomUUID } from 'node:crypto';
import { isKnownEventType, type DeliveryEvent, type EventMap, type KnownEventType } from '../../nodes/shared/delivery';

export interface SampleEventOptions {
	id?: string;
	hook?: string;
	/** ISO 8601 time of the event (default now). */
	created?: string;
	/** Replaces fields of the sample's `data` (shallow merge). */
	data?: Record<string, unknown>;
}

const sampleSubscriber = {
	botid: '1001',
	clientid: '555000111',
	messenger: 'telegram',
	name: 'Ada Lovelace',
	username: 'ada',
	note: '',
	tags: ['lead'],
	active: true,
	blocked: false,
	dialog: true,
};

function sampleData(type: string, created: string): Record<string, unknown> {
	switch (type) {
		case 'subscriber.new':
			return { subscriber: sampleSubscriber };
		case 'subscriber.stage':
			// Stage names as the funnel spells them (the sandbox's demo funnel: New, Qualified, Won).
			return { subscriber: sampleSubscriber, stage: 'Qualified', previous: 'New' };
		case 'payment.success':
			return {
				payment: {
					id: 'pay_sample_1',
					amount: 49.9,
					currency: 'EUR',
					botid: sampleSubscriber.botid,
					clientid: sampleSubscriber.clientid,
					messenger: sampleSubscriber.messenger,
					description: 'Sample order',
					paid_at: created,
				},
			};
		default:
			return { note: `sample of the unknown event kind ${type}` };
	}
}

/** A realistic event of any kind (unknown kinds get placeholder data), for local testing and examples. */
export function sampleEvent<T extends KnownEventType>(type: T, options?: SampleEventOptions): EventMap[T];
export function sampleEvent(type: string, options?: SampleEventOptions): DeliveryEvent;
export function sampleEvent(type: string, options: SampleEventOptions = {}): DeliveryEvent {
	if (typeof type !== 'string' || !/^[a-z0-9_]+(\.[a-z0-9_]+)+$/.test(type)) {
		throw new TypeError('type must be an event kind such as "subscriber.new"');
	}
	const created = options.created ?? new Date().toISOString();
	const event = {
		id: options.id ?? `evt_${randomUUID().replaceAll('-', '')}`,
		type,
		created,
		hook: options.hook ?? 'hook_local',
		data: { ...sampleData(type, created), ...options.data },
	};
	return isKnownEventType(type) ? (event as EventMap[typeof type]) : event;
}
