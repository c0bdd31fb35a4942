/** How far a redelivery may stray from its scheduled delay, as a fraction of it (±10%). */
export const RETRY_JITTER = 0.1;

/**
 * Milliseconds to wait before the next attempt, after `attemptsMade` failed attempts; undefined when
 * the schedule is used up (the delivery has failed). Jitter spreads retries of many deliveries apart.
 */
export function retryDelayMs(
	schedule: readonly number[],
	attemptsMade: number,
	random: () => number = Math.random,
): number | undefined {
	const seconds = schedule[attemptsMade - 1];
	if (seconds === undefined) return undefined;
	const jitter = 1 + (random() * 2 - 1) * RETRY_JITTER;
	return Math.max(0, Math.round(seconds * 1000 * jitter));
}
