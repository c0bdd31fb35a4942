/**
 * The n8n 1.x of the compatibility smoke test (`npm run test:n8n1`): pinned in e2e/n8n1 (package.json + lockfile)
 * and run by Node 22 from the npm registry (cached in ~/.cache/node22), or by the Node binary $N8N1_NODE names.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { e2eDir, type N8nHost } from './paths.ts';

export const N8N1_NODE_MAJOR = 22;
export const n8n1HostDir = path.join(e2eDir, 'n8n1');
/** The pinned n8n 1.x version (e2e/n8n1/package.json). */
export const n8n1Version = (
	JSON.parse(readFileSync(path.join(n8n1HostDir, 'package.json'), 'utf8')) as { dependencies: { n8n: string } }
).dependencies.n8n;

/** The host, fetching Node 22 on first use unless $N8N1_NODE is set. */
export function n8n1Host(): N8nHost {
	if (process.env.N8N1_NODE) return { dir: n8n1HostDir, nodeBinary: process.env.N8N1_NODE };
	const { registryNodeBinDir } = createRequire(import.meta.url)('../../scripts/node24.cjs') as {
		registryNodeBinDir(major: number): string;
	};
	return { dir: n8n1HostDir, nodeBinary: path.join(registryNodeBinDir(N8N1_NODE_MAJOR), 'node') };
}
