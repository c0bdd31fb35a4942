/**
 * The event kinds the service documents: the one list the trigger, the action node's hook operations, the receiver and
 * the sandbox all read. The service may add kinds; every part passes unknown ones on.
 */
export const EVENT_KINDS = [
	{ value: 'subscriber.new', name: 'New Subscriber', description: 'A new subscriber appeared in a bot' },
	{
		value: 'subscriber.stage',
		name: 'Subscriber Stage Changed',
		description: "A subscriber's CRM funnel stage changed",
	},
	{ value: 'payment.success', name: 'Payment Succeeded', description: 'A payment went through' },
] as const;

/** A documented event kind's value, such as `subscriber.new`. */
export type EventKind = (typeof EVENT_KINDS)[number]['value'];

/** The documented kinds as a parameter's options, sorted by name as n8n's option lists are. */
export const EVENT_KIND_OPTIONS = [...EVENT_KINDS]
	.sort((a, b) => a.name.localeCompare(b.name))
	.map(({ name, value, description }) => ({ name, value, description }));
