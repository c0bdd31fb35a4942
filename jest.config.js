/** One jest run for the whole repository: each package is a project. */
const swc = [
  '@swc/jest',
  { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
];
// Some dependencies ship ES modules only (jose, @octokit/*); jest's CommonJS runtime needs them transformed.
const esmOnly = ['jose', '@octokit', 'universal-user-agent', 'before-after-hook'];
const transformIgnorePatterns = [`/node_modules/(?!(${esmOnly.join('|')})/)`];
const common = {
  testEnvironment: 'node',
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns,
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
};

module.exports = {
  testTimeout: 30000,
  projects: [
    { ...common, displayName: 'sandbox', roots: ['<rootDir>/sandbox/test'] },
    { ...common, displayName: 'receiver', roots: ['<rootDir>/receiver/test'] },
    { ...common, displayName: 'nodes', roots: ['<rootDir>/test'] },
  ],
};
