import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { buildReceiver, newSecret } from './helpers';

/**
 * The package's Node.js range (`engines`) is where its code runs: Node 20 from 20.19 (the first 20.x that loads the
 * ES-module-only `jose` from CommonJS; `crypto.hash` needs 20.12), and 22.12 on (the same in 22.x). Node 18 cannot
 * load `jose` 6, so it is left out and npm warns there. Jest runs on Node 24; here the built package (the main entry
 * and `mbb-send-event`) runs on a Node 20: one from PATH, or the registry's (fetched once, as scripts/node24.cjs does).
 */
const PACKAGE_DIR = join(__dirname, '..');
const ENGINES = '^20.19.0 || >=22.12.0';

function node20(): string {
	const major = (file: string) => {
		try {
			return execFileSync(file, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
		} catch {
			return '';
		}
	};
	for (const dir of (process.env.PATH ?? '').split(delimiter)) {
		const file = join(dir, 'node');
		if (existsSync(file) && major(file).startsWith('20.')) return file;
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const { registryNodeBinDir } = require('../../scripts/node24.cjs') as { registryNodeBinDir(major: number): string };
	return join(registryNodeBinDir(20), 'node');
}

const atLeast = (version: string, minimum: [number, number]) => {
	const [major, minor] = version.split('.').map(Number);
	return major > minimum[0] || (major === minimum[0] && minor >= minimum[1]);
};

it('engines name the Node versions the code runs on, and the package runs on Node 20', () => {
	buildReceiver();
	const engines = (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { engines: { node: string } })
		.engines.node;
	expect(engines).toBe(ENGINES);
	expect(atLeast(process.versions.node, [22, 12])).toBe(true);
	const node = node20();
	const version = execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim();
	expect(atLeast(version, [20, 19])).toBe(true);

	const dir = mkdtempSync(join(tmpdir(), 'mbb-node20-'));
	try {
		const secret = newSecret();
		const cli = join(PACKAGE_DIR, 'dist/receiver/src/cli.js');
		// A node:http server with the receiver, and mbb-send-event sending it a delivery, then a tampered one.
		writeFileSync(
			join(dir, 'run.cjs'),
			`const { createServer } = require('node:http');
const { execFileSync } = require('node:child_process');
const { createReceiver } = require(${JSON.stringify(join(PACKAGE_DIR, 'dist/receiver/src/index.js'))});
const receiver = createReceiver({ secrets: ${JSON.stringify(secret)}, audience: 'hook_local' });
const emitted = [];
const refused = [];
receiver.onAny((event) => void emitted.push(event.type)).onError((error) => void refused.push(error.code));
const server = createServer(receiver.middleware()).listen(0, '127.0.0.1', async () => {
  const url = 'http://127.0.0.1:' + server.address().port + '/hooks';
  const send = (...args) => new Promise((resolve) => require('node:child_process').execFile(process.execPath, [${JSON.stringify(cli)}, url, '--secret', ${JSON.stringify(secret)}, '--type', 'payment.success', ...args], (error, stdout) => resolve(stdout.trim().replace(/^\\S+ evt_\\w+ -> /, ''))));
  const answers = [await send('--id', 'evt_node20'), await send('--tamper', '--scheme', 'jwt')];
  await receiver.idle();
  server.close();
  console.log(JSON.stringify({ node: process.versions.node, answers: answers.map((answer) => { const body = JSON.parse(answer.slice(4)); return answer.slice(0, 3) + ' ' + (body.code ?? 'duplicate: ' + body.duplicate); }), emitted, refused }));
});
`,
		);
		const output = execFileSync(node, [join(dir, 'run.cjs')], { encoding: 'utf8', timeout: 120_000 });
		expect(JSON.parse(output.trim().split('\n').at(-1)!)).toEqual({
			node: version,
			answers: ['200 duplicate: false', '401 body_hash_mismatch'],
			emitted: ['payment.success'],
			refused: ['body_hash_mismatch'],
		});
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}, 300_000);
