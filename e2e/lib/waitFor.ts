/** Polling helpers for things that become true eventually (a server is ready, an execution finished). */
import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
	/** What is awaited, for the timeout message. */
	what: string;
	timeoutMs?: number;
	intervalMs?: number;
	/** Errors for which waiting longer is pointless (rethrown at once). */
	stopOn?: (error: unknown) => boolean;
}

/** Calls `probe` until it returns a value other than undefined; throws after the timeout with the last error. */
export async function waitFor<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
	const { what, timeoutMs = 30_000, intervalMs = 250, stopOn } = options;
	const deadline = Date.now() + timeoutMs;
	let lastError: unknown;
	for (;;) {
		try {
			const value = await probe();
			if (value !== undefined) return value;
		} catch (error) {
			if (stopOn?.(error)) throw error;
			lastError = error;
		}
		if (Date.now() > deadline) {
			const cause = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
			throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
		}
		await sleep(intervalMs);
	}
}

export { sleep };
