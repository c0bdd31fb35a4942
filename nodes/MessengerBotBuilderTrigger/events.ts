import { EVENT_KINDS, type EventKind } from '../shared/delivery/eventKinds';

export { EVENT_KINDS, type EventKind };

/** Name of the extra output for kinds the service added later, with "One Output per Event Kind". */
export const OTHER_EVENTS_OUTPUT = 'Other Events';

/**
 * The outputs of the trigger as n8n evaluates them from its parameters: one, or with "One Output per
 * Event Kind" one per documented kind (in the order of EVENT_KINDS) and, when unknown kinds pass,
 * one for them last. Written out as an expression because n8n computes outputs in the editor too.
 */
export const outputsExpression: `={{${string}}}` = `={{(${String(
	(options: { outputPerEvent?: boolean; passUnknownEvents?: boolean } | undefined, kinds: string[], other: string) =>
		options?.outputPerEvent
			? [...kinds, ...(options.passUnknownEvents ? [other] : [])].map((displayName) => ({ type: 'main', displayName }))
			: ['main'],
)})($parameter.options, ${JSON.stringify(EVENT_KINDS.map((kind) => kind.name))}, ${JSON.stringify(OTHER_EVENTS_OUTPUT)})}}`;

/** The output an event goes to with "One Output per Event Kind": its kind's, or the last for unknown kinds. */
export function outputIndexOf(type: string): number {
	const index = EVENT_KINDS.findIndex((kind) => kind.value === type);
	return index === -1 ? EVENT_KINDS.length : index;
}

/** Value of the "Events" parameter that stands for every documented kind. */
export const ALL_EVENTS = '*';

const KNOWN = new Set<string>(EVENT_KINDS.map((kind) => kind.value));

export const isKnownEventKind = (type: string): type is EventKind => KNOWN.has(type);

/** The kinds to subscribe the hook to, sorted so that the same choice always compares equal. */
export function subscribedKinds(selected: string[]): EventKind[] {
	const kinds = selected.includes(ALL_EVENTS)
		? EVENT_KINDS.map((kind) => kind.value)
		: selected.filter(isKnownEventKind);
	return [...new Set(kinds)].sort();
}

/** The bot an event concerns: the subscriber's bot, or the bot a payment was made in. */
export function botOfEvent(data: unknown): string | undefined {
	if (!data || typeof data !== 'object') return undefined;
	const { subscriber, payment } = data as { subscriber?: { botid?: unknown }; payment?: { botid?: unknown } };
	const botid = subscriber?.botid ?? payment?.botid;
	return botid === undefined || botid === null ? undefined : String(botid);
}
