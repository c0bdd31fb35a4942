/**
 * The quick loop (`npm test`): the whole jest suite but the files that start outside tools (Chromium, Prism, the
 * client generators, the Deno, Bun and workerd runtimes) or run the short forms of the benchmarks and chaos runs.
 * The full suite (`npm run test:jest`, part of `npm run test:all` and CI) runs them all.
 */
const full = require('./jest.config.js');

const OUTSIDE_TOOLS_AND_LONG_RUNS = [
	'<rootDir>/test/bench/',
	'<rootDir>/receiver/test/chaos\\.test\\.ts$',
	'<rootDir>/receiver/test/runtimes\\.test\\.ts$',
	'<rootDir>/receiver/test/workerd\\.test\\.ts$',
	'<rootDir>/sandbox/test/chaos\\.test\\.ts$',
	'<rootDir>/sandbox/test/console\\.test\\.ts$',
	'<rootDir>/sandbox/test/contractGenerators\\.test\\.ts$',
	'<rootDir>/sandbox/test/clientGeneration\\.test\\.ts$',
	'<rootDir>/sandbox/test/prism\\.test\\.ts$',
	'<rootDir>/sandbox/test/openapiLint\\.test\\.ts$',
];

module.exports = {
	...full,
	projects: full.projects.map((project) => ({
		...project,
		testPathIgnorePatterns: ['/node_modules/', ...OUTSIDE_TOOLS_AND_LONG_RUNS],
	})),
};
