/** One jest run for the whole repository: each package is a project. */
const tsJest = [
  'ts-jest',
  {
    // Transpile only: `npm run build` and `npm run typecheck` do the type checking.
    isolatedModules: true,
    tsconfig: { allowJs: true, module: 'commonjs', target: 'es2022', esModuleInterop: true, sourceMap: true },
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
  // A bound against hangs, not a speed check: on a busy two-core machine (CI runs wherever a session stops) a test that
  // starts tools like tsc, Redocly or a second sandbox takes well over jest's default 5 s, or a 30 s bound.
  testTimeout: 120000,
  // On two cores jest runs all the files inside its own process (in band): a handle that a failed test leaves open
  // (a Redis connection that keeps reconnecting) would keep the run from ever ending, and CI would time out instead of
  // reporting the failure. Jest still names the leak ("Force exiting Jest").
  forceExit: true,
  projects: [
    { ...common, displayName: 'sandbox', roots: ['<rootDir>/sandbox/test'] },
    { ...common, displayName: 'receiver', roots: ['<rootDir>/receiver/test'] },
    { ...common, displayName: 'nodes', roots: ['<rootDir>/test'] },
  ],
};
