import type { Store } from './store/store';

/** The latest business time the clock may reach (ISO 8601 forms keep a four-digit year). */
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * Business time of the sandbox. Tests move it forward (POST /sandbox/clock) to see keys and
 * catalog links expire without waiting; rate limiting and delivery retries use real time.
 * Its offset is part of the stored state (kept across restarts, reset, snapshots).
 */
export class Clock {
	constructor(private readonly store: Store) {}

	private state(): { offsetMs: number } {
		return this.store.document('clock', () => ({ offsetMs: 0 }));
	}

	now(): number {
		return Date.now() + this.state().offsetMs;
	}

	iso(): string {
		return new Date(this.now()).toISOString();
	}

	/** How far the clock may still move forward, in seconds. */
	maxAdvanceSeconds(): number {
		return Math.floor((LATEST_MS - this.now()) / 1000);
	}

	/** Moves business time forward; `seconds` must be within 0 and maxAdvanceSeconds() (checked by the caller). */
	advance(seconds: number): void {
		this.state().offsetMs += seconds * 1000;
	}
}
