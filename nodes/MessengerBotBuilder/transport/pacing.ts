import { sleep } from 'n8n-workflow';

/** The service answers more than 10 requests per second per key with 429. */
export const REQUESTS_PER_SECOND = 10;

/** Slowest pace a credential falls to under many 429s (one request every 5 s). */
const SLOWEST_RATE = 0.2;
/** Requests per second gained per second of clean answers (additive increase). */
const SPEED_UP_PER_SECOND = 0.5;
/** The rate is multiplied by this on a 429 (multiplicative decrease). */
const SLOW_DOWN_FACTOR = 0.7;
/** 429s closer together than this count as one signal: one burst of refusals slows down once. */
const SLOW_DOWN_GAP_MS = 500;

interface Pace {
	/** Requests per second this process currently allows itself with this credential. */
	rate: number;
	/** Earliest start of the next request. */
	nextStart: number;
	/** When the rate was last lowered. */
	slowedAt: number;
}

/**
 * Pace per credential in this process. Module state, so every node of every execution in this
 * n8n process that uses the same key shares one pace. Processes (n8n queue-mode workers) share
 * nothing: each adapts on its own, like TCP senders sharing a link: it starts at the service's
 * documented rate, lowers its rate on every 429 and raises it slowly while answers are clean, so
 * that processes sharing one key settle near equal shares of the limit without talking to each
 * other. Requests are spaced evenly rather than burst.
 */
const paces = new Map<string, Pace>();

function paceOf(credential: string): Pace {
	let pace = paces.get(credential);
	if (!pace) {
		pace = { rate: REQUESTS_PER_SECOND, nextStart: 0, slowedAt: -Infinity };
		paces.set(credential, pace);
	}
	return pace;
}

/** Waits until `credential` may send its next request, and books that slot. */
export async function waitForTurn(credential: string): Promise<void> {
	const pace = paceOf(credential);
	const now = Date.now();
	const start = Math.max(now, pace.nextStart);
	pace.nextStart = start + 1000 / pace.rate;
	if (start > now) await sleep(start - now);
}

/** A clean answer: speed up by `SPEED_UP_PER_SECOND` per second at the current rate. */
export function answeredClean(credential: string): void {
	const pace = paceOf(credential);
	pace.rate = Math.min(REQUESTS_PER_SECOND, pace.rate + SPEED_UP_PER_SECOND / pace.rate);
}

/** A 429: slow down (once per burst of refusals), and push the next slot out to the new spacing. */
export function answeredRateLimited(credential: string): void {
	const pace = paceOf(credential);
	const now = Date.now();
	if (now - pace.slowedAt < SLOW_DOWN_GAP_MS) return;
	pace.slowedAt = now;
	pace.rate = Math.max(SLOWEST_RATE, pace.rate * SLOW_DOWN_FACTOR);
	pace.nextStart = Math.max(pace.nextStart, now + 1000 / pace.rate);
}
