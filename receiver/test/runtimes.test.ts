import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateHookKeyPair, generateHookSecret, sampleEvent, signDelivery, signStandardWebhooksV1a } from '../src';
import { longStep } from '../../scripts/lib/longStep.cjs';
import { withInstallLock } from '../../scripts/lib/installLock.cjs';
import { bundleWorker, expectedOfficialOutcomes, expectedVectorOutcomes } from './workerd/bundle';

/**
 * The receiver's Web-standard entry in Deno and Bun, from their npm packages (installed on first use into
 * ~/.cache/messenger-bot-builder-runtimes, outside the workspace: their lockfile entries would list other platforms'
 * binaries). The same bundle as in workerd must reach every vector's and official case's outcome, and its handler must
 * accept signed deliveries and refuse a changed one.
 */
const RUNTIMES_DIR = process.env.MBB_RUNTIMES_DIR ?? join(homedir(), '.cache', 'messenger-bot-builder-runtimes');
const VERSIONS = { deno: '2.9.6', bun: '1.4.5' };

function installRuntimes(): void {
	const marker = join(RUNTIMES_DIR, `installed-${VERSIONS.deno}-${VERSIONS.bun}`);
	if (existsSync(marker)) return;
	// Under the install lock: another test run on this machine (a second clone's CI) installing at the same moment
	// rewrote the binaries while this one started Deno, which failed with ETXTBSY. The second run waits, then finds
	// the marker.
	withInstallLock(RUNTIMES_DIR, 'tests', () => {
		if (existsSync(marker)) return;
		mkdirSync(RUNTIMES_DIR, { recursive: true });
		writeFileSync(join(RUNTIMES_DIR, 'package.json'), JSON.stringify({ name: 'runtimes', private: true }));
		// --ignore-scripts: the binaries come in the platform packages; Bun's is then run directly.
		longStep(
			'tests',
			`installing Deno ${VERSIONS.deno} and Bun ${VERSIONS.bun} (about 0.2 GB, once per machine) into ${RUNTIMES_DIR}`,
			'30 s to 2 min',
			() =>
				execFileSync(
					'npm',
					[
						'install',
						'--prefix',
						RUNTIMES_DIR,
						'--ignore-scripts',
						'--no-audit',
						'--no-fund',
						'--loglevel=error',
						`deno@${VERSIONS.deno}`,
						`bun@${VERSIONS.bun}`,
					],
					{
						stdio: 'inherit',
						timeout: 240_000,
					},
				),
		);
		writeFileSync(marker, '');
	});
}

function binary(name: 'deno' | 'bun'): string {
	if (name === 'deno') return join(RUNTIMES_DIR, 'node_modules', '.bin', 'deno');
	const oven = join(RUNTIMES_DIR, 'node_modules', '@oven');
	const platform = readdirSync(oven).find((dir) => existsSync(join(oven, dir, 'bin', 'bun')));
	if (!platform) throw new Error(`no Bun binary for this platform under ${oven}`);
	return join(oven, platform, 'bin', 'bun');
}

const SECRET = generateHookSecret();
const HOOK = 'hook_runtime';
const PAIR = generateHookKeyPair();
let dir: string;

beforeAll(async () => {
	installRuntimes();
	dir = mkdtempSync(join(tmpdir(), 'mbb-runtimes-'));
	writeFileSync(
		join(dir, 'worker.mjs'),
		await bundleWorker({ secrets: [SECRET], publicKeys: [PAIR.publicKey], audience: [HOOK] }),
	);
	// Three deliveries for the handler: a JWT one, a v1a one, and the v1a one with a changed body.
	const jwtEvent = sampleEvent('subscriber.new', { hook: HOOK });
	const jwtBody = JSON.stringify(jwtEvent);
	const v1aEvent = sampleEvent('payment.success', { hook: HOOK });
	const v1aBody = JSON.stringify(v1aEvent);
	const v1aHeaders = signStandardWebhooksV1a({
		body: v1aBody,
		eventId: v1aEvent.id,
		timestamp: Math.floor(Date.now() / 1000),
		privateKey: PAIR.privateKey,
	});
	const deliveries = [
		{
			body: jwtBody,
			headers: await signDelivery({ body: jwtBody, eventId: jwtEvent.id, hookId: HOOK, secret: SECRET }),
		},
		{ body: v1aBody, headers: v1aHeaders },
		{ body: JSON.stringify(v1aEvent, null, 2), headers: v1aHeaders },
	];
	writeFileSync(
		join(dir, 'run.mjs'),
		`import worker from './worker.mjs';
const get = async (path) => (await worker.fetch(new Request('http://worker' + path))).json();
const answers = [];
for (const { body, headers } of ${JSON.stringify(deliveries)}) {
  const response = await worker.fetch(new Request('http://worker/hooks', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }));
  answers.push({ status: response.status, body: await response.json() });
}
console.log(JSON.stringify({ vectors: await get('/vectors'), official: await get('/official'), answers, events: (await get('/events')).map((e) => e.id), ids: ${JSON.stringify([jwtEvent.id, v1aEvent.id])} }));
`,
	);
}, 300_000);

afterAll(() => {
	if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(name: 'deno' | 'bun') {
	const args =
		name === 'deno' ? ['run', '--quiet', '--no-prompt', '--no-config', join(dir, 'run.mjs')] : [join(dir, 'run.mjs')];
	const output = execFileSync(binary(name), args, {
		cwd: dir,
		encoding: 'utf8',
		timeout: 60_000,
		env: {
			...process.env,
			DENO_DIR: join(dir, '.deno'),
			DENO_NO_UPDATE_CHECK: '1',
			BUN_INSTALL_CACHE_DIR: join(dir, '.bun'),
		},
	});
	return JSON.parse(output.trim().split('\n').at(-1)!);
}

describe.each(['deno', 'bun'] as const)("the receiver's Web Crypto entry in %s", (name) => {
	it("reaches every shared vector's and official case's outcome; its handler accepts JWT and v1a deliveries and refuses a changed body", () => {
		const result = run(name);
		expect(result.vectors).toEqual(expectedVectorOutcomes());
		expect(result.official).toEqual(expectedOfficialOutcomes());
		expect(result.answers.map((answer: { status: number }) => answer.status)).toEqual([200, 200, 401]);
		expect(result.answers[2].body).toEqual({ code: 'invalid_signature', error: expect.any(String) });
		expect(result.events).toEqual(result.ids);
	});
});
