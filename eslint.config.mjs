// Lint of the n8n package: n8n's community-node rules (the ones n8n's verification applies) on
// nodes, credentials and package.json, on top of the TypeScript recommendations.
import eslint from '@eslint/js';
import n8nCommunityNodes from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'sandbox/**', 'receiver/**', 'e2e/**', 'bench/**', 'test/**', 'scripts/**', 'examples/**', '*.js', '*.mjs'] },
  {
    files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
    extends: [eslint.configs.recommended, tseslint.configs.recommended],
    rules: { 'prefer-spread': 'off' },
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
