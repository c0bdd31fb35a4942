/**
 * How many random cases a large fast-check property draws. Mutation testing (`npm run mutation`) runs every property
 * a surviving mutant reaches, once per mutant: jest.mutation.config.js sets `PROPERTY_RUNS_SCALE` (0.2) to draw a
 * fifth of them there, never fewer than 100. `npm test` draws them all.
 */
export function propertyRuns(runs: number): number {
	const scale = Number(process.env.PROPERTY_RUNS_SCALE ?? 1);
	if (!(scale > 0 && scale <= 1))
		throw new Error(`PROPERTY_RUNS_SCALE must be a number in (0, 1], not ${process.env.PROPERTY_RUNS_SCALE}`);
	return Math.min(runs, Math.max(100, Math.round(runs * scale)));
}
