/**
 * Node's C headers for building native modules (sqlite3) against the Node that will run n8n.
 * A user npmrc may point `nodedir` at another Node's headers; we always pass the matching ones.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

function majorOf(headersDir: string): number | undefined {
	const versionFile = path.join(headersDir, 'include', 'node', 'node_version.h');
	if (!existsSync(versionFile)) return undefined;
	const match = /#define NODE_MAJOR_VERSION (\d+)/.exec(readFileSync(versionFile, 'utf8'));
	return match ? Number(match[1]) : undefined;
}

/** The folder holding `include/node` for a Node binary (default: the running one), or undefined when none is on disk. */
export function nodeHeadersDir(nodeBinary = process.execPath, nodeVersion = process.versions.node): string | undefined {
	const installRoot = path.resolve(path.dirname(nodeBinary), '..');
	const candidates = [
		installRoot, // a regular install: <prefix>/bin/node + <prefix>/include/node
		// the `node` package from the npm registry: node/bin/node + node/node_modules/node-<platform>-<arch>/include/node
		path.join(installRoot, 'node_modules', `node-${process.platform}-${process.arch}`),
	];
	const major = Number(nodeVersion.split('.')[0]);
	return candidates.find((dir) => majorOf(dir) === major);
}
