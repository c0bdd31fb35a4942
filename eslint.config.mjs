// Lint of the whole repository: the TypeScript recommendations on every TypeScript and JavaScript file, and on the
// n8n package (nodes, credentials, package.json) n8n's community-node rules, the ones n8n's verification applies.
import eslint from '@eslint/js';
import n8nCommunityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
	{
		ignores: [
			// What the build, the tests and the benchmarks write (as in .gitignore), and generated client types.
			'**/dist/**',
			'**/node_modules/**',
			'**/out/**',
			'coverage/**',
			'reports/**',
			'.stryker-tmp*/**',
			'.sandbox-data/**',
			'.n8n-test/**',
			'e2e/n8n/**',
			'e2e/n8n1/**',
			'sandbox/test/client/.generated-*/**',
			'sandbox/test/client/openapi.d.ts',
		],
	},
	{
		files: ['**/*.{ts,mts,cts,js,mjs,cjs}'],
		extends: [eslint.configs.recommended, tseslint.configs.recommended],
		languageOptions: { globals: { ...globals.node } },
		rules: {
			'prefer-spread': 'off',
			// Leaving a field out of an object by destructuring it away is how the code drops secrets and headers.
			'@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
		},
	},
	{
		files: ['**/*.{js,cjs}'],
		rules: { '@typescript-eslint/no-require-imports': 'off' },
	},
	{
		files: ['sandbox/console/**/*.js'],
		languageOptions: { globals: { ...globals.browser } },
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		plugins: { '@n8n/community-nodes': n8nCommunityNodes, 'n8n-nodes-base': n8nNodesBase },
		rules: n8nCommunityNodes.configs.recommended.rules,
	},
	{
		files: ['package.json'],
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
