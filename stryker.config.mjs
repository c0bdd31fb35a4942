// Mutation testing of the verification core (nodes/shared/delivery), run by hand, not in CI:
//   npm run mutation                                        the whole core (hours on two cores)
//   npm run mutation -- --mutate nodes/shared/delivery/jwt.ts   one file
// Each mutant runs only the tests that cover it (perTest), from the core's in-process tests (jest.mutation.config.js).
// Surviving mutants that cannot change a verdict are listed in notes/mutation-equivalents.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
	mutate: ['nodes/shared/delivery/*.ts', '!nodes/shared/delivery/index.ts'],
	testRunner: 'jest',
	jest: { projectType: 'custom', configFile: 'jest.mutation.config.js', enableFindRelatedTests: false },
	coverageAnalysis: 'perTest',
	// The machine is shared: one mutant at a time unless STRYKER_CONCURRENCY says otherwise.
	concurrency: Number(process.env.STRYKER_CONCURRENCY ?? 1),
	// A mutant that loops forever is given twice its tests' time plus 10 s (a timeout counts as killed).
	timeoutFactor: 2,
	timeoutMS: 10000,
	ignorePatterns: [
		'/dist',
		'/receiver/dist',
		'/sandbox/dist',
		'/e2e',
		'/chaos',
		'/bench',
		'/examples',
		'/package',
		'/sandbox/test',
		'/.sandbox-data',
		'/coverage',
		'/out',
		'/reports',
	],
	reporters: ['clear-text', 'progress', 'html', 'json'],
	htmlReporter: { fileName: 'reports/mutation/mutation.html' },
	jsonReporter: { fileName: 'reports/mutation/mutation.json' },
	tempDirName: '.stryker-tmp',
	cleanTempDir: true,
};
