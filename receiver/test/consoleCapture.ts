/**
 * The receiver reports a refused delivery with `console.warn` when no onError handler is registered. Tests that
 * send refused deliveries on purpose capture those lines instead of printing them, and fail on any other warning.
 */
export const REFUSAL_LINE = /^\[receiver\] refused a delivery(?: of event [\w.:-]+)? \(([a-z_]+)\)/;

export interface CapturedWarnings {
	/** The error code of each refusal reported so far, in order. */
	refusals(): string[];
	/** Fails on a warning that is not a refusal report, then stops capturing. */
	restore(): void;
}

export function captureRefusalWarnings(): CapturedWarnings {
	const spy = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
	const lines = () => spy.mock.calls.map(([line]) => String(line));
	return {
		refusals: () => lines().map((line) => REFUSAL_LINE.exec(line)?.[1] ?? `not a refusal: ${line}`),
		restore() {
			const others = lines().filter((line) => !REFUSAL_LINE.test(line));
			spy.mockRestore();
			expect(others).toEqual([]);
		},
	};
}
