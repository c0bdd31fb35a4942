import { withDueSteps } from '../domain/messagingChains';
import { countsOn } from '../domain/statsCounters';
import { optionalBot, readDay } from '../domain/subscribersParams';
import { ApiError } from '../http/errors';
import { LIMITS } from '../openapi/limits';
import type { ApiCall, SandboxModule } from './endpoint';

const DAY_MS = 86_400_000;

/** Every calendar day from `from` to `to`, both included. */
function daysBetween(from: string, to: string): string[] {
	const days: string[] = [];
	for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`); time += DAY_MS) {
		days.push(new Date(time).toISOString().slice(0, 10));
	}
	return days;
}

function statistics(call: ApiCall) {
	const from = readDay(call.params, 'from', true)!;
	const to = readDay(call.params, 'to', true)!;
	// Rules across the two days (the OpenAPI document states them in words): their own code, invalid_range.
	if (to < from)
		throw new ApiError(422, 'invalid_range', `Parameter "to" must not be before "from" (${from})`, { param: 'to' });
	const days = daysBetween(from, to);
	if (days.length > LIMITS.statDays) {
		throw new ApiError(
			422,
			'invalid_range',
			`Parameter "to" must be within ${LIMITS.statDays} days of "from" (both included)`,
			{ param: 'to', max: LIMITS.statDays },
		);
	}
	const bot = optionalBot(call);
	const includeBot = (botid: string) => (bot ? botid === bot.id : call.botAllowed(botid));
	const items = days.map((date) => ({ date, ...countsOn(call.store, date, includeBot) }));
	const total = items.reduce(
		(sum, day) => ({ subscribers: sum.subscribers + day.subscribers, messages: sum.messages + day.messages }),
		{ subscribers: 0, messages: 0 },
	);
	return { from, to, timezone: call.options.timezone, items, total };
}

/** Statistics by day. */
export const statsModule: SandboxModule = {
	name: 'stats',
	endpoints: [withDueSteps({ path: '/stat/get', methods: 'GET or POST', scope: 'stats:read', handle: statistics })],
};
