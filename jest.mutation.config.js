/**
 * The jest run that mutation testing (`npm run mutation`, stryker.config.mjs) uses: only the tests that exercise the
 * verification core in-process (no sandbox, Redis, browser or n8n), as one project so that Stryker can measure which
 * test covers which mutant. The transform is the repository's (jest.config.js).
 */
const { projects } = require('./jest.config.js');

// A surviving mutant runs every property test it reaches: a fifth of their random cases (receiver/test/propertyRuns.ts).
process.env.PROPERTY_RUNS_SCALE ??= '0.2';
const { displayName, roots, ...common } = projects.find((project) => project.displayName === 'receiver');

const CORE_TESTS = [
	'receiver/test/keysAndSignatures.test.ts',
	'receiver/test/verificationRefusals.test.ts',
	'receiver/test/encoding.test.ts',
	'receiver/test/headerReading.test.ts',
	'receiver/test/stepDriver.test.ts',
	'receiver/test/deliveryErrors.test.ts',
	'receiver/test/eventChecks.test.ts',
	'receiver/test/verify.test.ts',
	'receiver/test/hs256.test.ts',
	'receiver/test/jwtToken.test.ts',
	'receiver/test/asymmetricJwt.test.ts',
	'receiver/test/jwks.test.ts',
	'receiver/test/vectors.test.ts',
	'receiver/test/sign.test.ts',
	'receiver/test/property.test.ts',
	'receiver/test/diagnostics.test.ts',
	'receiver/test/receiver.test.ts',
	'receiver/test/express.test.ts',
	'test/trigger/verifier.test.ts',
	'test/trigger/vectors.test.ts',
	'test/trigger/verificationAgreement.test.ts',
];

module.exports = {
	...common,
	rootDir: __dirname,
	testTimeout: 30000,
	testMatch: CORE_TESTS.map((pattern) => `<rootDir>/${pattern}`),
};
