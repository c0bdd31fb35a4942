// The one build: TypeScript's project references (tsconfig.build.json) compile the receiver, then the sandbox (which
// imports the receiver's declarations), then the n8n package; then the n8n package's icons and codex files go beside
// its compiled nodes.
//
// Every output folder starts empty: a source file renamed or removed must not live on in what npm ships (dist/ of
// each package) or in what the tests start (the built sandbox).
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { copyNodeAssets } from './copy-assets.mjs';

const root = join(import.meta.dirname, '..');
const outputs = ['dist', 'receiver/dist', 'sandbox/dist'];

for (const dir of outputs) rmSync(join(root, dir), { recursive: true, force: true });

const tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

copyNodeAssets();
