// Writes sandbox/openapi.json from the built sandbox (npm run openapi -w sandbox), and the types a client generated
// from it with openapi-typescript gets (sandbox/test/client/openapi.d.ts). The document is generated from the
// endpoint registry and the contract tables in src/openapi; test/openapi.test.ts and test/clientGeneration.test.ts
// fail while a committed file differs from what the sandbox serves.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { clientTypes } from './client-types.mjs';

const require = createRequire(import.meta.url);
const { openApiDocument } = require('../dist/index.js');
const { modules } = require('../dist/api/index.js');
const document = openApiDocument(modules.flatMap((module) => module.endpoints));
const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
const types = new URL('../test/client/openapi.d.ts', import.meta.url);
writeFileSync(types, await clientTypes(document));
console.log(`wrote ${types.pathname}`);
