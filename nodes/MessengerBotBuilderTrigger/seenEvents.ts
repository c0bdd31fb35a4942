/**
 * The in-process fast path of the repeat check: event ids this n8n process accepted, per hook. A repeat that reaches
 * the same process is answered "duplicate" at once and starts no execution. It is only a shortcut: the check that
 * holds across processes and restarts is in n8n's shared store (repeatCheck.ts), and nothing here is written to the
 * workflow's static data (n8n saves that column whole, last writer wins: a webhook process writing it could put back
 * an old hook secret).
 */

/**
 * The sender retries a delivery with the same event id for a bit over an hour; an id is kept
 * twice that long so a late retry still starts nothing.
 */
export const REMEMBER_SECONDS = 3 * 60 * 60;
/** Bounds this process's memory per hook: the oldest ids are dropped first. */
export const MAX_REMEMBERED = 500;

/** Event id → unix seconds it was accepted, oldest first (a Map keeps insertion order). */
type AcceptedIds = Map<string, number>;

const acceptedInProcess = new Map<string, AcceptedIds>();

export function alreadyAccepted(hookId: string | undefined, eventId: string): boolean {
	const ids = hookId === undefined ? undefined : acceptedInProcess.get(hookId);
	const at = ids?.get(eventId);
	return at !== undefined && Math.floor(Date.now() / 1000) - at < REMEMBER_SECONDS;
}

/** Records an accepted event id in this process and drops ids that are too old or too many. */
export function markAccepted(hookId: string | undefined, eventId: string, now: number): void {
	if (hookId === undefined) return;
	let ids = acceptedInProcess.get(hookId);
	if (!ids) acceptedInProcess.set(hookId, (ids = new Map()));
	ids.delete(eventId);
	ids.set(eventId, now);
	for (const [id, at] of ids) {
		if (ids.size <= MAX_REMEMBERED && now - at < REMEMBER_SECONDS) break;
		ids.delete(id);
	}
	// Hooks that were removed (or stayed quiet for hours) are forgotten.
	for (const [hook, held] of acceptedInProcess) {
		const newest = [...held.values()].pop();
		if (newest === undefined || now - newest >= REMEMBER_SECONDS) acceptedInProcess.delete(hook);
	}
}
