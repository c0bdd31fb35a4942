/**
 * Installs the pinned n8n (e2e/n8n/package-lock.json) on first use; a no-op when it is already in place.
 * `npm ci --ignore-scripts` keeps n8n's many install scripts from running; only sqlite3 (n8n's database
 * driver) is built, against the headers of the Node that runs this script.
 * The install (about 2.6 GB, 5 minutes) lives in a cache outside the clone, keyed by what it depends on, and
 * e2e/n8n/node_modules links to it: a fresh clone on the same machine (CI) reuses it at once.
 * Usage: node e2e/install-n8n.ts [--force]     cache: $MBB_N8N_CACHE or ~/.cache/messenger-bot-builder-n8n
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { nodeHeadersDir } from './lib/nodeHeaders.ts';
import { n8nBin, n8nHostDir } from './lib/paths.ts';

const STAMP_NAME = '.e2e-install-stamp';
const stampFile = path.join(n8nHostDir, 'node_modules', STAMP_NAME);
const cacheRoot = process.env.MBB_N8N_CACHE ?? path.join(os.homedir(), '.cache', 'messenger-bot-builder-n8n');

/** What the install depends on: the lockfile and the ABI of the Node that sqlite3 was built for. */
function expectedStamp(): string {
  const lock = readFileSync(path.join(n8nHostDir, 'package-lock.json'));
  const lockHash = createHash('sha256').update(lock).digest('hex').slice(0, 16);
  return `lock=${lockHash} abi=${process.versions.modules} platform=${process.platform}-${process.arch}`;
}

/** n8n's database driver, the one native module the install builds. */
function sqliteBinding(modules: string): string {
  return path.join(modules, 'sqlite3', 'build', 'Release', 'node_sqlite3.node');
}

function isInstalled(): boolean {
  return (
    existsSync(n8nBin) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, 'utf8').trim() === expectedStamp() &&
    existsSync(sqliteBinding(path.join(n8nHostDir, 'node_modules')))
  );
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): void {
  console.log(`e2e: ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { cwd, env, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new Error(`\`${command} ${args.join(' ')}\` failed in ${cwd} (exit ${result.status ?? result.signal})`);
  }
}

/** Points e2e/n8n/node_modules at the cached install. */
function linkInstall(cachedModules: string): void {
  const link = path.join(n8nHostDir, 'node_modules');
  if (existsSync(link) || lstatSync(link, { throwIfNoEntry: false })) rmSync(link, { recursive: true, force: true });
  symlinkSync(cachedModules, link, 'dir');
}

export function installN8n({ force = false } = {}): void {
  if (!force && isInstalled()) {
    console.log('e2e: n8n is installed in e2e/n8n');
    return;
  }
  const stamp = expectedStamp();
  const cacheDir = path.join(cacheRoot, createHash('sha256').update(stamp).digest('hex').slice(0, 16));
  const cachedModules = path.join(cacheDir, 'node_modules');
  const cachedStamp = path.join(cachedModules, STAMP_NAME);
  if (!force && existsSync(cachedStamp) && readFileSync(cachedStamp, 'utf8').trim() === stamp && existsSync(sqliteBinding(cachedModules))) {
    linkInstall(cachedModules);
    console.log(`e2e: n8n linked from the cache ${cacheDir}`);
    return;
  }
  const started = Date.now();
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(cacheDir, { recursive: true });
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(path.join(n8nHostDir, file), path.join(cacheDir, file));
  run('npm', ['ci', '--ignore-scripts', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=error'], cacheDir);
  const headers = nodeHeadersDir();
  if (!headers) console.warn('e2e: no local Node headers found for this Node; node-gyp will look for its own');
  // `npm run` hands its own config to child processes (npm_config_ignore_scripts=true from the project's .npmrc):
  // a rebuild that inherited it would skip the build and leave n8n without its database driver.
  const rebuildEnv: NodeJS.ProcessEnv = { ...process.env, npm_config_ignore_scripts: 'false' };
  if (headers) rebuildEnv.npm_config_nodedir = headers;
  run('npm', ['rebuild', 'sqlite3', '--ignore-scripts=false', '--loglevel=error'], cacheDir, rebuildEnv);
  const binding = sqliteBinding(cachedModules);
  if (!existsSync(binding)) throw new Error(`sqlite3 was not built (${binding} is missing): n8n could not open its database`);
  writeFileSync(cachedStamp, `${stamp}\n`);
  linkInstall(cachedModules);
  console.log(`e2e: n8n installed in ${Math.round((Date.now() - started) / 1000)} s (cache ${cacheDir})`);
}

if (import.meta.main) {
  installN8n({ force: process.argv.includes('--force') });
}
