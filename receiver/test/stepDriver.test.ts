import { runSteps, settle } from '../../nodes/shared/delivery';

/** The step driver that runs one verification synchronously until its first promise, then asynchronously. */

describe('the step driver', () => {
	function* add(values: unknown[]): Generator<unknown, number, unknown> {
		let sum = 0;
		for (const value of values) sum += (yield* settle(value as number | Promise<number>)) as number;
		return sum;
	}

	it('runs plain steps synchronously', () => {
		expect(runSteps(add([1, 2, 3]))).toBe(6);
	});

	it('continues asynchronously from the first promise, plain steps after it included', async () => {
		const result = runSteps(add([1, Promise.resolve(2), 3, Promise.resolve(4), 5]));
		expect(result).toBeInstanceOf(Promise);
		await expect(result).resolves.toBe(15);
	});

	it('a value with a "then" that is not a function, or null, is a plain step', () => {
		function* odd(): Generator<unknown, unknown[], unknown> {
			const a = yield* settle({ then: 5 } as unknown as number);
			const b = yield* settle(null as unknown as number);
			return [a, b];
		}
		expect(runSteps(odd())).toEqual([{ then: 5 }, null]);
	});

	it('a rejected step is thrown into the generator, which may recover; its own errors reject', async () => {
		function* recovering(): Generator<unknown, string, unknown> {
			try {
				yield* settle(Promise.reject(new Error('first')));
				return 'not reached';
			} catch (error) {
				const again = yield* settle(Promise.resolve(`${(error as Error).message} recovered`));
				return `${again} then ${yield* settle('sync')}`;
			}
		}
		await expect(runSteps(recovering())).resolves.toBe('first recovered then sync');
		function* failing(): Generator<unknown, string, unknown> {
			yield* settle(Promise.resolve(1));
			throw new Error('own');
		}
		await expect(runSteps(failing())).rejects.toThrow('own');
	});
});
