/** A token bucket per API key: `rate` requests per second, bursts of at most `rate`. */
export class RateLimiter {
	private readonly buckets = new Map<string, { tokens: number; updated: number }>();

	constructor(private readonly rate: number) {}

	/** Takes a token for `key`; returns 0 when allowed, else the seconds to wait before retrying. */
	take(key: string, now = performance.now()): number {
		if (this.rate <= 0) return 0;
		const bucket = this.buckets.get(key) ?? { tokens: this.rate, updated: now };
		bucket.tokens = Math.min(this.rate, bucket.tokens + ((now - bucket.updated) / 1000) * this.rate);
		bucket.updated = now;
		this.buckets.set(key, bucket);
		if (bucket.tokens >= 1) {
			bucket.tokens -= 1;
			return 0;
		}
		return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate));
	}
}
