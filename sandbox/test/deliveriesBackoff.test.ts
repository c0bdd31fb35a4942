import { RETRY_JITTER, retryDelayMs } from '../src/delivery/backoff';

describe('retry delays', () => {
	const schedule = [5, 30, 120];

	test('follow the schedule, one entry per failed attempt, then stop', () => {
		const noJitter = () => 0.5;
		expect([1, 2, 3, 4].map((attempts) => retryDelayMs(schedule, attempts, noJitter))).toEqual([
			5000,
			30000,
			120000,
			undefined,
		]);
	});

	test('jitter stays within ±10% of the scheduled wait, fractional seconds included', () => {
		expect(retryDelayMs(schedule, 2, () => 0)).toBe(30000 * (1 - RETRY_JITTER));
		expect(retryDelayMs(schedule, 2, () => 0.999999)).toBeCloseTo(30000 * (1 + RETRY_JITTER), -1);
		for (let i = 0; i < 200; i += 1) {
			const delay = retryDelayMs([0.05], 1)!;
			expect(delay).toBeGreaterThanOrEqual(45);
			expect(delay).toBeLessThanOrEqual(55);
		}
	});
});
