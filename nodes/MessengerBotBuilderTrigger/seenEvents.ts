import type { HookState } from './hookState';

/**
 * The sender retries a delivery with the same event id for a bit over an hour; an id is kept
 * twice that long so a late retry still starts nothing.
 */
export const REMEMBER_SECONDS = 3 * 60 * 60;
/** Bounds the static data n8n saves with the workflow: the oldest ids are dropped first. */
export const MAX_REMEMBERED = 500;

export function alreadyAccepted(state: HookState, eventId: string): boolean {
	return state.seen !== undefined && Object.prototype.hasOwnProperty.call(state.seen, eventId);
}

/** Records an accepted event id and drops ids that are too old or too many. */
export function markAccepted(state: HookState, eventId: string, now: number): void {
	const kept = Object.entries(state.seen ?? {})
		.filter(([, at]) => now - at < REMEMBER_SECONDS)
		.sort(([, a], [, b]) => b - a)
		.slice(0, MAX_REMEMBERED - 1);
	state.seen = Object.fromEntries([[eventId, now], ...kept]);
}
