import type { Store } from '../store/store';

/** What one bot did on one calendar day of the account's time zone. */
export interface DayCounts {
	/** Subscriber cards created. */
	subscribers: number;
	/** Messages the bot sent (API messages, broadcast deliveries, chain blocks). */
	messages: number;
}

/**
 * Counters by day and bot, kept as events happen rather than computed from current cards and chats,
 * so that deleting a subscriber does not rewrite history.
 */
interface StatsState {
	/** day (YYYY-MM-DD) -> botid -> counts */
	days: Record<string, Record<string, DayCounts>>;
}

export function statsState(store: Store): StatsState {
	return store.working<StatsState>('stats', () => ({
		days: Object.fromEntries(
			store.records<Record<string, DayCounts>>('statsDay').map(([day, counts]) => [String(day), counts]),
		),
	}));
}

const dayFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar day (YYYY-MM-DD) of an instant in the given IANA time zone. */
export function dayKey(epochMs: number, timezone: string): string {
	let format = dayFormats.get(timezone);
	if (!format) {
		// en-CA formats dates as YYYY-MM-DD.
		format = new Intl.DateTimeFormat('en-CA', {
			timeZone: timezone,
			year: 'numeric',
			month: '2-digit',
			day: '2-digit',
		});
		dayFormats.set(timezone, format);
	}
	return format.format(epochMs);
}

export function countDay(
	store: Store,
	timezone: string,
	at: number,
	botid: string,
	what: keyof DayCounts,
	amount = 1,
): void {
	const days = statsState(store).days;
	const key = dayKey(at, timezone);
	const day = (days[key] ??= {});
	const counts = (day[botid] ??= { subscribers: 0, messages: 0 });
	counts[what] += amount;
	store.put('statsDay', key, day);
}

/** Sums of the bots accepted by `includeBot` on one day. */
export function countsOn(store: Store, day: string, includeBot: (botid: string) => boolean): DayCounts {
	const total: DayCounts = { subscribers: 0, messages: 0 };
	for (const [botid, counts] of Object.entries(statsState(store).days[day] ?? {})) {
		if (!includeBot(botid)) continue;
		total.subscribers += counts.subscribers;
		total.messages += counts.messages;
	}
	return total;
}
