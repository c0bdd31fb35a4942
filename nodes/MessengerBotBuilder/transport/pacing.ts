import { sleep } from 'n8n-workflow';

/** The service answers more than 10 requests per second per key with 429. */
export const REQUESTS_PER_SECOND = 10;

const INTERVAL_MS = 1000 / REQUESTS_PER_SECOND;

/**
 * Earliest start of the next request per credential. Module state, so every node of every
 * execution in this n8n process that uses the same key shares one pace, and so does every
 * item of one node. Requests are spaced evenly rather than burst, which keeps clear of the
 * service's bucket even when answers arrive unevenly.
 */
const nextStart = new Map<string, number>();

/** Waits until `credential` may send its next request, and books that slot. */
export async function waitForTurn(credential: string): Promise<void> {
	const now = Date.now();
	const start = Math.max(now, nextStart.get(credential) ?? 0);
	nextStart.set(credential, start + INTERVAL_MS);
	if (start > now) await sleep(start - now);
}

/** After a 429, nobody using `credential` sends before the service's `Retry-After` has passed. */
export function holdOff(credential: string, ms: number): void {
	const resumeAt = Date.now() + ms;
	if ((nextStart.get(credential) ?? 0) < resumeAt) nextStart.set(credential, resumeAt);
}
