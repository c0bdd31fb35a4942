/** One jest run for the whole repository: each package is a project. */
const tsJest = [
	'ts-jest',
	{
		// Transpile only (TypeScript's isolatedModules, which ts-jest 29.4 reads from here rather than from its own deprecated
		// option): `npm run build` and `npm run typecheck` do the type checking.
		tsconfig: {
			allowJs: true,
			module: 'commonjs',
			target: 'es2022',
			esModuleInterop: true,
			sourceMap: true,
			isolatedModules: true,
		},
		diagnostics: false,
	},
];
// Some dependencies ship ES modules only (jose, @octokit/*); jest's CommonJS runtime needs them transformed.
const esmOnly = ['jose', '@octokit', 'universal-user-agent', 'before-after-hook', '@apidevtools', 'svix'];
const common = {
	testEnvironment: 'node',
	transform: { '^.+\\.(t|j|mj)s$': tsJest },
	transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
	moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

module.exports = {
	// A bound against hangs, not a speed check: on a busy two-core machine (CI may run on one) a test that starts tools
	// like tsc, Redocly or a second sandbox takes well over jest's default 5 s.
	testTimeout: 120000,
	// Three workers, also on two cores (jest's default there is one, in band): most files spend much of their time
	// waiting on processes they start (sandboxes, Redis, tsc, generators), so three at once finish sooner.
	maxWorkers: 3,
	// A worker that has grown past this after a file is replaced by a fresh one. Every file loads n8n-core anew, so an
	// unbounded worker grows large, and on a loaded machine the operating system can take longer to tear it down than
	// the half second jest allows; jest then kills it and prints "A worker process has failed to exit gracefully" with
	// nothing left open. Smaller workers exit at once.
	workerIdleMemoryLimit: '600MB',
	// Run in band (`--runInBand`, or one core), jest keeps all the files inside its own process: a handle that a failed
	// test leaves open (a Redis connection that keeps reconnecting) would keep the run from ever ending, and CI would time out instead of
	// reporting the failure. The exit guard ends such a run and says so; jest's own forceExit would print
	// "Force exiting Jest" on every run, leak or not.
	reporters: ['default', '<rootDir>/test/support/exitGuardReporter.cjs'],
	// The guard's one line replaces jest's own warning a second after the run.
	openHandlesTimeout: 0,
	projects: [
		{ ...common, displayName: 'sandbox', roots: ['<rootDir>/sandbox/test'] },
		{ ...common, displayName: 'receiver', roots: ['<rootDir>/receiver/test'] },
		{ ...common, displayName: 'nodes', roots: ['<rootDir>/test'] },
	],
};
