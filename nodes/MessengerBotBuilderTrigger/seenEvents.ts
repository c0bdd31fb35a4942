import type { HookState } from './hookState';

/**
 * The sender retries a delivery with the same event id for a bit over an hour; an id is kept
 * twice that long so a late retry still starts nothing.
 */
export const REMEMBER_SECONDS = 3 * 60 * 60;
/** Bounds the static data n8n saves with the workflow (and this process's memory): the oldest ids are dropped first. */
export const MAX_REMEMBERED = 500;

type AcceptedIds = Record<string, number>;

/**
 * Accepted ids per hook, in this process. The node's static data is the shared record, but n8n
 * (2.x) drops static-data changes made by a `webhook()` call that starts an execution: it wraps the
 * same static data again for the run, which clears the "changed" flag that its save after the call
 * looks at. So the ids of events that started the workflow are recorded here too; every repeat that
 * reaches this process is caught. Verification itself never needs this memory.
 */
const acceptedInProcess = new Map<string, AcceptedIds>();

/** The ids still worth remembering, newest first, at most MAX_REMEMBERED - 1 (room for one more). */
function recent(ids: AcceptedIds, now: number): Array<[string, number]> {
	return Object.entries(ids)
		.filter(([, at]) => now - at < REMEMBER_SECONDS)
		.sort(([, a], [, b]) => b - a)
		.slice(0, MAX_REMEMBERED - 1);
}

const has = (ids: AcceptedIds | undefined, eventId: string) => ids !== undefined && Object.prototype.hasOwnProperty.call(ids, eventId);

export function alreadyAccepted(state: HookState, eventId: string): boolean {
	return has(state.seen, eventId) || (state.hookId !== undefined && has(acceptedInProcess.get(state.hookId), eventId));
}

/** Records an accepted event id (static data and this process) and drops ids that are too old or too many. */
export function markAccepted(state: HookState, eventId: string, now: number): void {
	state.seen = Object.fromEntries([[eventId, now], ...recent(state.seen ?? {}, now)]);
	if (state.hookId === undefined) return;
	acceptedInProcess.set(state.hookId, Object.fromEntries([[eventId, now], ...recent(acceptedInProcess.get(state.hookId) ?? {}, now)]));
	// Hooks that were removed (or stayed quiet for hours) are forgotten.
	for (const [hookId, ids] of acceptedInProcess) {
		if (Object.values(ids).every((at) => now - at >= REMEMBER_SECONDS)) acceptedInProcess.delete(hookId);
	}
}
