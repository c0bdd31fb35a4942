// Writes sandbox/openapi.json from the built sandbox (npm run openapi -w sandbox). The document is
// generated from the endpoint registry and the contract tables in src/openapi; test/openapi.test.ts
// fails while the committed file differs from what the sandbox serves.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { openApiDocument } = require('../dist/index.js');
const { modules } = require('../dist/api/index.js');
const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(openApiDocument(modules.flatMap((module) => module.endpoints)), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
