/**
 * Installs the pinned n8n (e2e/n8n/package-lock.json) on first use; a no-op when it is already in place.
 * `npm ci --ignore-scripts` keeps n8n's many install scripts from running; only sqlite3 (n8n's database
 * driver) is built, against the headers of the Node that runs this script.
 * Usage: node e2e/install-n8n.ts [--force]
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { nodeHeadersDir } from './lib/nodeHeaders.ts';
import { n8nBin, n8nHostDir } from './lib/paths.ts';

const stampFile = path.join(n8nHostDir, 'node_modules', '.e2e-install-stamp');

/** What the install depends on: the lockfile and the ABI of the Node that sqlite3 was built for. */
function expectedStamp(): string {
  const lock = readFileSync(path.join(n8nHostDir, 'package-lock.json'));
  const lockHash = createHash('sha256').update(lock).digest('hex').slice(0, 16);
  return `lock=${lockHash} abi=${process.versions.modules} platform=${process.platform}-${process.arch}`;
}

function isInstalled(): boolean {
  return existsSync(n8nBin) && existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === expectedStamp();
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.log(`e2e: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd: n8nHostDir, env, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`\`${command} ${args.join(' ')}\` failed in ${n8nHostDir} (exit ${result.status ?? result.signal})`);
  }
}

export function installN8n({ force = false } = {}): void {
  if (!force && isInstalled()) {
    console.log('e2e: n8n is installed in e2e/n8n');
    return;
  }
  const started = Date.now();
  run('npm', ['ci', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error']);
  const headers = nodeHeadersDir();
  if (!headers) console.warn('e2e: no local Node headers found for this Node; node-gyp will look for its own');
  run('npm', ['rebuild', 'sqlite3', '--loglevel=error'], headers ? { ...process.env, npm_config_nodedir: headers } : process.env);
  writeFileSync(stampFile, `${expectedStamp()}\n`);
  console.log(`e2e: n8n installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

if (import.meta.main) {
  installN8n({ force: process.argv.includes('--force') });
}
