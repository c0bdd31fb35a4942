/**
 * The Redis the tests share (the receiver's multi-instance, dedupe and sandbox tests, the e2e's queue mode): one
 * variable, TEST_REDIS_URL, default redis://127.0.0.1:6379. Every test keeps to a key prefix of its own and removes
 * its keys; tests that stop or pause Redis start a redis-server of their own instead.
 */
export const DEFAULT_TEST_REDIS_URL = 'redis://127.0.0.1:6379';

export interface TestRedis {
	url: string;
	host: string;
	port: number;
}

export function testRedis(env: Record<string, string | undefined> = process.env): TestRedis {
	const url = env.TEST_REDIS_URL || DEFAULT_TEST_REDIS_URL;
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new Error(`TEST_REDIS_URL must be a Redis URL such as ${DEFAULT_TEST_REDIS_URL}, got "${url}"`);
	}
	if (parsed.protocol !== 'redis:') throw new Error(`TEST_REDIS_URL must start with redis://, got "${url}"`);
	return { url, host: parsed.hostname, port: Number(parsed.port || 6379) };
}
